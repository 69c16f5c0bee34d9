"""Secrets of devices and people, and the check of a device's request signature.

A device secret is never stored: it is HMAC(server key, device id + salt), recomputed when
needed, and the database keeps the salt and the secret's sha256 (so a changed server key is
noticed instead of silently failing every signature). Bearer tokens are random and only
their sha256 is stored. Nothing here logs or returns a secret.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from .signing import signature

ROLES = ("integration", "surveillance", "labeler", "admin")
TOKEN_PREFIX = "dct_"


class AuthError(Exception):
    """A request that is not authenticated (401) or not allowed (403)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def sha256_hex(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def new_salt() -> str:
    return secrets.token_hex(16)


def device_secret(server_key: bytes, device_id: str, salt: str) -> str:
    """The secret of one device, derived from the server key (64 hex characters)."""
    return hmac.new(server_key, f"device:{device_id}:{salt}".encode(),
                    hashlib.sha256).hexdigest()


def new_token() -> tuple[str, str]:
    """A fresh bearer token and the sha256 that is stored for it."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    return token, sha256_hex(token)


def check_timestamp(timestamp: str, now: float, window_s: float) -> None:
    """Refuses a missing, malformed, stale or future timestamp (milliseconds)."""
    try:
        ts_ms = int(timestamp)
    except (TypeError, ValueError):
        raise AuthError(401, "bad_timestamp", "X-Dicecall-Timestamp must be Unix "
                        "milliseconds") from None
    skew = ts_ms / 1000.0 - now
    if skew < -window_s:
        raise AuthError(401, "stale_request", f"timestamp is {-skew:.1f} s old; the replay "
                        f"window is {window_s:g} s")
    if skew > window_s:
        raise AuthError(401, "future_request", f"timestamp is {skew:.1f} s in the future; "
                        f"the replay window is {window_s:g} s")


def check_signature(secret: str, method: str, path: str, timestamp: str, body: bytes,
                    given: str) -> None:
    """Constant-time comparison of the given signature with the expected one."""
    expected = signature(secret, method, path, timestamp, body)
    if not hmac.compare_digest(expected.encode(), (given or "").encode()):
        raise AuthError(401, "bad_signature", "the request signature does not match")
