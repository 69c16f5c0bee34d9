"""Revoking edge devices and bearer tokens (admin). Repeating a revoke changes nothing."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path

from ..deps import DbDep, Principal, require
from ..schemas.common import UUID_PATTERN, Out, errors
from ..services import revoke as svc

router = APIRouter(tags=["revoke"])
Id = Annotated[str, Path(pattern=UUID_PATTERN, description="The device's or token's id.")]


class DeviceRevoked(Out):
    id: str
    table_id: str
    name: str
    revoked: bool


class TokenRevoked(Out):
    id: str
    name: str
    role: str
    revoked: bool


@router.post("/devices/{device_id}/revoke", response_model=DeviceRevoked,
             responses=errors(401, 403, 404, 422))
def revoke_device(device_id: Id, db: DbDep,
                  who: Annotated[Principal, Depends(require("admin"))]) -> dict:
    """Revokes an edge device: its signed requests are refused from now on (a lost or
    replaced camera); its rolls stay on record."""
    return svc.revoke_device(db, device_id, who.name)


@router.post("/tokens/{token_id}/revoke", response_model=TokenRevoked,
             responses=errors(401, 403, 404, 422))
def revoke_token(token_id: Id, db: DbDep,
                 who: Annotated[Principal, Depends(require("admin"))]) -> dict:
    """Revokes a bearer token: requests bearing it are refused from now on."""
    return svc.revoke_token(db, token_id, who.name)
