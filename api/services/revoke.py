"""Revoking an edge device or a bearer token (admin): idempotent, audited once.

The row is flagged, never deleted (the audit trail and the rolls keep pointing at it). This
process forgets the credential at once; other worker processes within the credentials
cache's few seconds (api/deps.py). A revoked device's rolls are refused by the intake
itself in any case, since it reads the device row inside its transaction.
"""

from __future__ import annotations

from sqlalchemy import select

from .. import audit
from ..db.models import Device, Token
from ..db.session import Database
from ..deps import forget_device, forget_token
from ..errors import ApiError


def revoke_device(db: Database, device_id: str, who: str) -> dict:
    with db.write() as session:
        device = session.scalars(select(Device).where(Device.id == device_id)
                                 .with_for_update()).one_or_none()
        if device is None:
            raise ApiError(404, "unknown_device", f"no device {device_id!r}")
        if not device.revoked:
            device.revoked = True
            session.flush()
            audit.append(session, [audit.Pending(device.table_id, "device_revoked", {
                "device_id": device.id, "by": who})])
        out = {"id": device.id, "table_id": device.table_id, "name": device.name,
               "revoked": True}
    forget_device(device_id)
    return out


def revoke_token(db: Database, token_id: str, who: str) -> dict:
    with db.write() as session:
        token = session.scalars(select(Token).where(Token.id == token_id)
                                .with_for_update()).one_or_none()
        if token is None:
            raise ApiError(404, "unknown_token", f"no token {token_id!r}")
        if not token.revoked:
            token.revoked = True
            session.flush()
            audit.append(session, [audit.Pending(None, "token_revoked", {
                "token_id": token.id, "name": token.name, "by": who})])
        out = {"id": token.id, "name": token.name, "role": token.role, "revoked": True}
        digest = token.token_hash
    forget_token(digest)
    return out
