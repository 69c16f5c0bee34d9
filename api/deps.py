"""FastAPI dependencies: settings, database, broker, bearer tokens and device signatures.

Credentials are looked up in the database and cached for a few seconds per process, so a
revoked token or device stops working within `_TTL_S` without a query on every request.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, Path, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from .db.models import Device, Token
from .db.session import Database
from .events import Broker
from .security import AuthError, check_signature, check_timestamp, device_secret, sha256_hex
from .settings import Settings

_TTL_S = 5.0
_bearer = HTTPBearer(auto_error=False, description="Bearer token from `dicecall admin token`.")
_signature = APIKeyHeader(name="X-Dicecall-Signature", auto_error=False,
                          description="HMAC-SHA256 of method, path, timestamp and body "
                                      "(api/signing.py), with X-Dicecall-Device and "
                                      "X-Dicecall-Timestamp.")


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


async def get_db(request: Request) -> Database:
    return request.app.state.db


async def get_broker(request: Request) -> Broker:
    return request.app.state.broker


# The getters above are async on purpose: FastAPI runs a plain `def` dependency in its thread
# pool, three thread hops per request for reading an attribute.
SettingsDep = Annotated[Settings, Depends(get_settings)]
DbDep = Annotated[Database, Depends(get_db)]
BrokerDep = Annotated[Broker, Depends(get_broker)]


@dataclass(frozen=True)
class Principal:
    """Who is calling: a token's name and role."""

    name: str
    role: str


class _TtlCache:
    def __init__(self) -> None:
        self._items: dict[str, tuple[float, object]] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> object | None:
        hit = self._items.get(key)
        return hit[1] if hit is not None and hit[0] > time.monotonic() else None

    def drop(self, key: str) -> None:
        with self._lock:
            self._items.pop(key, None)

    def put(self, key: str, value: object) -> None:
        with self._lock:
            if len(self._items) > 10_000:
                self._items.clear()
            self._items[key] = (time.monotonic() + _TTL_S, value)


_tokens = _TtlCache()
_devices = _TtlCache()


def _lookup_token(db: Database, digest: str) -> Principal | None:
    with db.read() as session:
        row = session.query(Token).filter(Token.token_hash == digest).one_or_none()
        if row is None or row.revoked:
            return None
        return Principal(row.name, row.role)


def require(*roles: str):
    """A dependency that admits a bearer token of one of `roles` (admin always)."""
    allowed = {*roles, "admin"}

    async def dependency(db: DbDep, creds: Annotated[HTTPAuthorizationCredentials | None,
                                                     Depends(_bearer)]) -> Principal:
        if creds is None or creds.scheme.lower() != "bearer":
            raise AuthError(401, "no_token", "a bearer token is required")
        digest = sha256_hex(creds.credentials)
        principal = _tokens.get(digest)
        if principal is None:
            principal = await run_in_threadpool(_lookup_token, db, digest)
            if principal is None:
                raise AuthError(401, "bad_token", "unknown or revoked token")
            _tokens.put(digest, principal)
        if principal.role not in allowed:
            raise AuthError(403, "forbidden", f"role {principal.role} may not do this; "
                            f"needs {' or '.join(sorted(allowed))}")
        return principal

    return dependency


def forget_device(device_id: str) -> None:
    """Drops a revoked device from this process's cache (other processes: within _TTL_S)."""
    _devices.drop(device_id)


def forget_token(digest: str) -> None:
    _tokens.drop(digest)


def cached_device(device_id: str) -> tuple | None:
    """(bound table id, secret) of a device looked up in the last few seconds, else None."""
    hit = _devices.get(device_id)
    return hit if isinstance(hit, tuple) else None


@dataclass(frozen=True)
class SignedDevice:
    """A device whose signature checked out, with the exact body it signed."""

    device_id: str
    table_id: str
    body: bytes


def _lookup_device(db: Database, server_key: bytes, device_id: str) -> tuple | None:
    with db.read() as session:
        row = session.get(Device, device_id)
        if row is None or row.revoked:
            return None
        secret = device_secret(server_key, row.id, row.salt)
        if sha256_hex(secret) != row.secret_hash:
            return None  # the server key changed since the device was created
        return row.table_id, secret


async def signed_device(
    request: Request, db: DbDep, settings: SettingsDep,
    table_id: Annotated[str, Path(max_length=64)],
    x_dicecall_device: Annotated[str | None, Header(max_length=64)] = None,
    x_dicecall_timestamp: Annotated[str | None, Header(max_length=20)] = None,
    signature: Annotated[str | None, Depends(_signature)] = None,
) -> SignedDevice:
    """Checks the device's HMAC signature, its clock and that it posts for its own table."""
    if not (x_dicecall_device and x_dicecall_timestamp and signature):
        raise AuthError(401, "unsigned", "X-Dicecall-Device, X-Dicecall-Timestamp and "
                        "X-Dicecall-Signature are required")
    check_timestamp(x_dicecall_timestamp, time.time(), settings.replay_window_s)
    found = _devices.get(x_dicecall_device)
    if found is None:
        found = await run_in_threadpool(_lookup_device, db, request.app.state.server_key,
                                        x_dicecall_device)
        if found is None:
            raise AuthError(401, "unknown_device", "unknown or revoked device")
        _devices.put(x_dicecall_device, found)
    bound_table, secret = found
    body = await request.body()
    path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    check_signature(secret, request.method, path, x_dicecall_timestamp, body, signature)
    if bound_table != table_id:
        raise AuthError(403, "wrong_table", "this device is bound to another table")
    return SignedDevice(x_dicecall_device, table_id, body)
