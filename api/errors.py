"""One JSON error shape for every refusal: {"code", "message", "section", "errors"}.

Engine refusals keep their code and section (the rule that forbids the action), so an
integrator sees the same citation the audit log keeps.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .games.errors import EngineError
from .metrics import AUTH_FAILURES
from .security import AuthError

log = logging.getLogger("dicecall.api")

# Engine codes that mean "the request itself is wrong" (422); the rest depend on the table's
# state (409), except an unknown wager id (404).
INPUT_CODES = frozenset({"bad_params", "unknown_wager", "bad_amount", "outside_limits",
                         "wrong_units", "bad_seat", "unequal_amounts", "bad_option",
                         "wrong_dice_count", "bad_face"})


class ApiError(Exception):
    """A refusal with an HTTP status, a machine code and, where a rule applies, a section."""

    def __init__(self, status: int, code: str, message: str, section: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.section, self.headers = section, headers

    @classmethod
    def from_engine(cls, exc: EngineError) -> ApiError:
        status = 404 if exc.code == "unknown_id" else 422 if exc.code in INPUT_CODES else 409
        return cls(status, exc.code, exc.message, exc.section)


def body(code: str, message: str, section: str | None = None,
         errors: list | None = None) -> dict:
    out: dict = {"code": code, "message": message, "section": section}
    if errors is not None:
        out["errors"] = errors
    return out


def _validation_message(errors: list[dict]) -> str:
    first = errors[0] if errors else {}
    if first.get("type") == "json_invalid":
        return "the request body is not valid JSON: " + str(first.get("ctx", {}).get(
            "error", first.get("msg", "")))
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
    return f"{where}: {first.get('msg', 'invalid')}" + (
        f" (and {len(errors) - 1} more)" if len(errors) > 1 else "")


def install(app: FastAPI) -> None:
    """Registers the handlers that render every error in the shape above."""

    @app.exception_handler(ApiError)
    async def _api(_: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(body(exc.code, exc.message, exc.section), exc.status,
                            headers=exc.headers)

    @app.exception_handler(EngineError)
    async def _engine(request: Request, exc: EngineError) -> JSONResponse:
        return await _api(request, ApiError.from_engine(exc))

    @app.exception_handler(AuthError)
    async def _auth(_: Request, exc: AuthError) -> JSONResponse:
        AUTH_FAILURES.labels(exc.code).inc()
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return JSONResponse(body(exc.code, exc.message), exc.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"loc": list(e.get("loc", ())), "msg": str(e.get("msg", "")),
                   "type": str(e.get("type", ""))} for e in exc.errors()]
        return JSONResponse(body("invalid_request", _validation_message(exc.errors()),
                                 errors=errors), 422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}.get(
            exc.status_code, "http_error")
        return JSONResponse(body(code, str(exc.detail)), exc.status_code,
                            headers=getattr(exc, "headers", None))
