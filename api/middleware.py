"""Pure ASGI middlewares: the body size limit (413) and the nosniff header on every response.

`BodyLimit` checks Content-Length up front and also counts the bytes of a chunked body as
they arrive, so an undeclared large upload is cut off without buffering it. `NoSniff` is
the outermost: it sees every response, the fast path's and `BodyLimit`'s included.
"""

from __future__ import annotations

import json

from starlette.exceptions import HTTPException
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class _TooLarge(HTTPException):
    """An HTTPException, so FastAPI's body parsing re-raises it instead of a 400."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body is larger than {limit} bytes")


def _response(limit: int) -> tuple[dict, bytes]:
    body = json.dumps({"code": "too_large", "message": f"request body is larger than "
                       f"{limit} bytes", "section": None}).encode()
    start = {"type": "http.response.start", "status": 413,
             "headers": [(b"content-type", b"application/json"),
                         (b"content-length", str(len(body)).encode()),
                         (b"connection", b"close")]}
    return start, body


class BodyLimit:
    """Refuses bodies larger than `limit` bytes (413) before the app reads them."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > self.limit:
                    await self._refuse(send)
                    return
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise _TooLarge(self.limit)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        start, body = _response(self.limit)
        await send(start)
        await send({"type": "http.response.body", "body": body})


# A browser that sniffs a body may run it as HTML or script in the service's origin, where
# the console's session cookie lives: an evidence frame is whatever bytes a device posted
# after a JPEG's magic number, and a JSON error echoes what the request said. Every
# response says its type is the one meant.
_NOSNIFF = (b"x-content-type-options", b"nosniff")


class NoSniff:
    """Adds `X-Content-Type-Options: nosniff` to every HTTP response of the app."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def marked_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers", ()))
                if not any(name.lower() == _NOSNIFF[0] for name, _ in headers):
                    headers.append(_NOSNIFF)
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, marked_send)
        except Exception:
            # Starlette's 500 is sent by its ServerErrorMiddleware, outside every middleware
            # added to the app: the same answer is sent here, marked, and the exception goes
            # on to be logged (that middleware sends nothing once a response started).
            if not started:
                await PlainTextResponse("Internal Server Error", 500)(scope, receive,
                                                                      marked_send)
            raise
