"""Client side of the device signature: the edge imports this to sign every request.

Pure and dependency-free (hashlib and hmac only) so the Pi needs nothing of the service.
The signed message binds the method, the path (with its query string), the timestamp and
the sha256 of the exact body bytes; the service recomputes it (`api.security`).

Example:
    >>> headers = sign(secret, "POST", "/v1/tables/t1/rolls", time.time(), body,
    ...                device_id="d1")
    >>> httpx.post(url, content=body, headers={**headers, "Content-Type": "application/json"})
"""

from __future__ import annotations

import hashlib
import hmac

HEADER_DEVICE = "X-Dicecall-Device"
HEADER_TIMESTAMP = "X-Dicecall-Timestamp"
HEADER_SIGNATURE = "X-Dicecall-Signature"


def message(method: str, path: str, timestamp: str, body: bytes) -> bytes:
    """The bytes that are signed: four lines, the last the body's sha256 in hex."""
    digest = hashlib.sha256(body).hexdigest()
    return f"{method.upper()}\n{path}\n{timestamp}\n{digest}".encode()


def signature(secret: str, method: str, path: str, timestamp: str, body: bytes) -> str:
    """HMAC-SHA256 of `message(...)` under the device secret, lowercase hex."""
    return hmac.new(secret.encode(), message(method, path, timestamp, body),
                    hashlib.sha256).hexdigest()


def format_timestamp(timestamp: float | int | str) -> str:
    """Unix time in whole milliseconds, as the header carries it."""
    if isinstance(timestamp, str):
        return timestamp
    return str(round(float(timestamp) * 1000))


def sign(secret: str, method: str, path: str, timestamp: float | int | str, body: bytes,
         device_id: str | None = None) -> dict[str, str]:
    """Headers that authenticate one request of a device.

    Args:
        secret: the device secret printed once by `dicecall admin device`.
        method: HTTP method, e.g. "POST".
        path: the request path with its query string, e.g. "/v1/tables/t1/rolls".
        timestamp: Unix seconds (float) or an already formatted millisecond string.
        body: the exact bytes sent as the request body (b"" when there is none).
        device_id: the device's id; included as X-Dicecall-Device when given.

    Returns:
        The X-Dicecall-* headers to add to the request.
    """
    ts = format_timestamp(timestamp)
    headers = {HEADER_TIMESTAMP: ts,
               HEADER_SIGNATURE: signature(secret, method, path, ts, body)}
    if device_id is not None:
        headers[HEADER_DEVICE] = device_id
    return headers
