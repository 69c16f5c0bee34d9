"""People in the console: a bearer token exchanged for a session cookie, plus a CSRF token.

The cookie holds the token itself (HttpOnly, SameSite=Strict, path /console), so a revoked
token ends the session within the credential cache's few seconds, and nothing new is stored.
Every state-changing request must also carry `X-CSRF-Token`, an HMAC of the token's hash
under the server key: a page on another site can neither read it nor send the cookie.
Integration tokens cannot log in: the console is for surveillance, labelers and admins.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from fastapi import Request, Response
from starlette.concurrency import run_in_threadpool

from ..deps import Principal, _lookup_token, _tokens
from ..security import AuthError, sha256_hex

COOKIE = "dicecall_console"
PEOPLE = ("surveillance", "labeler", "admin")
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


@dataclass(frozen=True)
class Person:
    name: str
    role: str
    csrf: str


def csrf_for(server_key: bytes, token: str) -> str:
    return hmac.new(server_key, f"csrf:{sha256_hex(token)}".encode(),
                    hashlib.sha256).hexdigest()


async def _principal(request: Request, token: str) -> Principal | None:
    digest = sha256_hex(token)
    found = _tokens.get(digest)
    if found is None:
        found = await run_in_threadpool(_lookup_token, request.app.state.db, digest)
        if found is not None:
            _tokens.put(digest, found)
    return found


async def login(request: Request, response: Response, token: str) -> Person:
    """Checks the token, sets the session cookie; returns who logged in and the CSRF token."""
    found = await _principal(request, token.strip())
    if found is None:
        raise AuthError(401, "bad_token", "unknown or revoked token")
    if found.role not in PEOPLE:
        raise AuthError(403, "forbidden", f"role {found.role} cannot use the console; "
                        f"needs {', '.join(PEOPLE)}")
    response.set_cookie(COOKIE, token.strip(), httponly=True, samesite="strict",
                        secure=request.url.scheme == "https", path="/console")
    return Person(found.name, found.role, csrf_for(request.app.state.server_key,
                                                   token.strip()))


def logout(response: Response) -> None:
    response.delete_cookie(COOKIE, path="/console", httponly=True, samesite="strict")


def person(*roles: str):
    """A dependency admitting a logged-in person of one of `roles` (admin always); unsafe
    methods must also present the session's CSRF token."""
    allowed = {*roles, "admin"}

    async def dependency(request: Request) -> Person:
        token = request.cookies.get(COOKIE)
        if not token:
            raise AuthError(401, "no_session", "log in to the console first")
        found = await _principal(request, token)
        if found is None:
            raise AuthError(401, "bad_token", "unknown or revoked token; log in again")
        csrf = csrf_for(request.app.state.server_key, token)
        if request.method not in SAFE_METHODS:
            given = request.headers.get("x-csrf-token", "")
            if not hmac.compare_digest(given.encode(), csrf.encode()):
                raise AuthError(403, "bad_csrf", "missing or wrong X-CSRF-Token")
        if found.role not in allowed:
            raise AuthError(403, "forbidden", f"role {found.role} may not do this; needs "
                            f"{' or '.join(sorted(allowed))}")
        return Person(found.name, found.role, csrf)

    return dependency
