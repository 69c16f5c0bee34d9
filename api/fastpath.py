"""The roll intake without the framework's per-request machinery, for rolls that are in order.

A device's POST of a roll costs the service most of its CPU in FastAPI's routing and
dependency solving (measured with py-spy: about 70% of the event loop), not in settling
the roll. This ASGI middleware answers exactly that request itself: same checks (timestamp,
cached device secret, HMAC signature, bound table, body schema), then the same
`routes.rolls.accept` as the route. Anything else, or anything unusual about it (a missing or
over-long header, a device not in the credentials cache, a bad signature, an invalid body,
evidence JPEGs, a query string, an escaped path), is passed on untouched, body included, to
the FastAPI route, which refuses it in the documented shape or accepts it as before. Nothing
is written before every check passed, so passing a request on never applies it twice.
"""

from __future__ import annotations

import re
import time

from pydantic import ValidationError
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .deps import cached_device
from .errors import ApiError, body
from .metrics import AUTH_FAILURES
from .routes.rolls import accept
from .schemas.rolls import RollIn
from .security import AuthError, check_signature, check_timestamp

_PATH = re.compile(r"/v1/tables/([^/]{1,64})/rolls")


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> str | None:
    for key, value in headers:
        if key == name:
            return value.decode("latin-1")
    return None


class RollFastPath:
    """Answers well-formed, correctly signed roll intakes; passes on everything else."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        match = None
        if (scope["type"] == "http" and scope["method"] == "POST" and not scope["query_string"]
                and not scope.get("root_path")
                and scope.get("raw_path", b"") == scope["path"].encode()):
            match = _PATH.fullmatch(scope["path"])
        if match is None:
            await self.app(scope, receive, send)
            return
        chunks, more = [], True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # client gone: let the app see it
                await self.app(scope, _replay(b"".join(chunks), message, receive), send)
                return
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        raw = b"".join(chunks)
        checked = self._check(scope, match.group(1), raw)
        if checked is None:
            await self.app(scope, _replay(raw, None, receive), send)
            return
        device_id, roll = checked
        app = scope["app"]
        try:
            result = await accept(app.state.db, app.state.settings, app.state.broker,
                                  device_id, match.group(1), roll)
        except ApiError as exc:
            response = JSONResponse(body(exc.code, exc.message, exc.section), exc.status,
                                    headers=exc.headers)
        except AuthError as exc:  # 403: the device was revoked or moved meanwhile
            AUTH_FAILURES.labels(exc.code).inc()
            response = JSONResponse(body(exc.code, exc.message), exc.status)
        else:
            headers = {"Idempotent-Replayed": "true"} if result.replayed else None
            response = Response(result.body, result.status_code, headers=headers,
                                media_type="application/json")
        await response(scope, receive, send)

    @staticmethod
    def _check(scope: Scope, table_id: str, raw: bytes) -> tuple[str, RollIn] | None:
        """The device id and roll when the request passes every check, else None."""
        headers = scope["headers"]
        device_id = _header(headers, b"x-dicecall-device")
        timestamp = _header(headers, b"x-dicecall-timestamp")
        signature = _header(headers, b"x-dicecall-signature")
        if not (device_id and timestamp and signature) or len(device_id) > 64 \
                or len(timestamp) > 20:
            return None
        found = cached_device(device_id)
        if found is None:
            return None
        bound_table, secret = found
        settings = scope["app"].state.settings
        try:
            check_timestamp(timestamp, time.time(), settings.replay_window_s)
            check_signature(secret, "POST", scope["path"], timestamp, raw, signature)
            if bound_table != table_id:
                return None
            roll = RollIn.model_validate_json(raw)
        except (AuthError, ValidationError):
            return None
        if roll.evidence.clean_jpeg_b64 is not None \
                or roll.evidence.annotated_jpeg_b64 is not None:
            return None  # decoding and storing JPEGs: the route's path (in the thread pool)
        return device_id, roll


def _replay(raw: bytes, last: Message | None, receive: Receive) -> Receive:
    """A receive that hands the app the body already read, then the rest of the stream."""
    pending = [{"type": "http.request", "body": raw, "more_body": False}]
    if last is not None:
        pending = [{"type": "http.request", "body": raw, "more_body": True}, last]

    async def replayed() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed
