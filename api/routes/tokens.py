"""Bearer tokens for people and integrations (admin). The token is shown once."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from ..deps import DbDep, Principal, require
from ..schemas.common import errors
from ..schemas.tables import TokenCreated, TokenIn
from ..services import tables as svc

router = APIRouter(tags=["tokens"])


@router.post("/tokens", status_code=201, response_model=TokenCreated,
             responses=errors(401, 403, 422))
def create_token(body: TokenIn, db: DbDep,
                 _: Annotated[Principal, Depends(require("admin"))]) -> dict:
    """Creates a token with a role: integration, surveillance or admin."""
    return svc.create_token(db, body.name, body.role)
