"""Edge devices bound to a table (admin). The secret is shown once, at creation."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from ..deps import DbDep, Principal, require
from ..schemas.common import errors
from ..schemas.tables import DeviceCreated, DeviceIn
from ..services import tables as svc
from .tables import TableId

router = APIRouter(tags=["devices"])


@router.post("/tables/{table_id}/devices", status_code=201, response_model=DeviceCreated,
             responses=errors(401, 403, 404, 422))
def create_device(table_id: TableId, body: DeviceIn, db: DbDep, request: Request,
                  _: Annotated[Principal, Depends(require("admin"))]) -> dict:
    """Binds a new edge device to the table and returns its secret (only this once)."""
    return svc.create_device(db, request.app.state.server_key, table_id, body.name)
