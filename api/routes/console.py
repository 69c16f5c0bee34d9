"""The surveillance console: its page and files, login, the table grid, history, alerts.

Everything is served by the service (no CDN; the console works offline). People log in
with their bearer token and then use a session cookie; unsafe requests need the CSRF token
(api/console/auth.py). Surveillance watches and decides alerts; admins also create tokens.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import FileResponse, StreamingResponse
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from ..console import actions, auth, queries
from ..console.auth import Person, person
from ..db.models import ChainHead
from ..deps import BrokerDep, DbDep, SettingsDep
from ..errors import ApiError
from ..events import STREAM_KINDS, stream
from ..schemas.common import Face, Strict
from ..services.evidence import path_for
from ..services.tables import create_token
from .events import event_position

STATIC = Path(__file__).resolve().parent.parent / "console" / "static"
_FILES = {"console.js": "text/javascript", "labels.js": "text/javascript",
          "fairness.js": "text/javascript", "console.css": "text/css"}
_SHA = re.compile(r"^[0-9a-f]{64}$")
# X-Content-Type-Options: nosniff is on every response of the service (middleware.NoSniff).
_HEADERS = {"Cache-Control": "no-store", "X-Frame-Options": "DENY",
            "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                                       "style-src 'self' 'unsafe-inline'"}

router = APIRouter(prefix="/console", tags=["console"], include_in_schema=False)
Watcher = Annotated[Person, Depends(person("surveillance"))]
Anyone = Annotated[Person, Depends(person("surveillance", "labeler"))]
Admin = Annotated[Person, Depends(person())]
CONSOLE_KINDS = (*STREAM_KINDS, "alert_action", "labels_saved")


class LoginIn(Strict):
    token: str = Field(min_length=8, max_length=200)


class ActionIn(Strict):
    action: str = Field(pattern="^(acknowledge|confirm|correct|no_roll)$")
    faces: list[Face] | None = Field(None, max_length=10)
    note: str = Field("", max_length=500, pattern=r"^[^\x00]*$")


class TokenIn(Strict):
    name: str = Field(min_length=1, max_length=100)
    role: str = Field(pattern="^(surveillance|labeler|admin|integration)$")


@router.get("")
@router.get("/")
def page() -> FileResponse:
    return FileResponse(STATIC / "index.html", media_type="text/html", headers=_HEADERS)


@router.get("/static/{name}")
def static(name: str) -> FileResponse:
    if name not in _FILES:
        raise ApiError(404, "not_found", f"no console file {name!r}")
    return FileResponse(STATIC / name, media_type=_FILES[name],
                        headers={"Cache-Control": "no-cache"})


@router.post("/api/login")
async def login(request: Request, response: Response, body: LoginIn) -> dict:
    who = await auth.login(request, response, body.token)
    return {"name": who.name, "role": who.role, "csrf": who.csrf}


@router.post("/api/logout")
def logout(response: Response, _: Anyone) -> dict:
    auth.logout(response)
    return {"ok": True}


def _head(db) -> int:
    with db.read() as session:
        head = session.get(ChainHead, 1)
        return head.last_id if head else 0


@router.get("/api/me")
async def me(db: DbDep, who: Anyone) -> dict:
    """Who is logged in, the CSRF token, and the last event id (where the stream starts)."""
    last = await run_in_threadpool(_head, db)
    return {"name": who.name, "role": who.role, "csrf": who.csrf, "last_event_id": last}


@router.get("/api/tables")
async def tables(db: DbDep, settings: SettingsDep, _: Watcher) -> list[dict]:
    return await run_in_threadpool(queries.grid, db, settings.dice_max_age_hours,
                                   settings.dice_warn_hours)


@router.get("/api/tables/{table_id}/rolls")
async def history(table_id: str, db: DbDep, settings: SettingsDep, _: Watcher,
                  q: Annotated[str, Query(max_length=100)] = "",
                  start: Annotated[float | None, Query(ge=0, allow_inf_nan=False)] = None,
                  end: Annotated[float | None, Query(ge=0, allow_inf_nan=False)] = None,
                  limit: Annotated[int, Query(ge=1, le=1000)] = 200) -> dict:
    """Rolls of the table between start and end (Unix s; default: the last shift)."""
    if start is None and end is None:
        start = queries.shift_start(settings.shift_hours)
    return await run_in_threadpool(queries.history, db, table_id, start, end, q, limit)


@router.get("/api/alerts")
async def alerts(db: DbDep, _: Watcher, handled: bool = False) -> list[dict]:
    return await run_in_threadpool(queries.alerts, db, handled)


@router.post("/api/alerts/{kind}/{ref}")
def act(kind: str, ref: str, body: ActionIn, db: DbDep, broker: BrokerDep,
        who: Watcher) -> dict:
    """Acknowledge, confirm or correct (through the engine) the roll behind an alert."""
    view = actions.act(db, kind, ref, body.action, body.faces, body.note, who.name)
    broker.notify()
    return view


@router.get("/api/evidence/{sha}")
def evidence(sha: str, settings: SettingsDep, _: Anyone) -> FileResponse:
    # Only a lowercase sha256 can name a stored frame; anything else (a traversal such
    # as "..") names none either, so it is the same 404 and says nothing of the folder.
    path = path_for(settings.evidence_dir, sha) if _SHA.match(sha) else None
    if path is None or not path.is_file():
        raise ApiError(404, "no_evidence", "that frame was not posted with its roll")
    return FileResponse(path, media_type="image/jpeg",
                        headers={"Cache-Control": "private, max-age=86400, immutable"})


@router.get("/api/events")
async def events(request: Request, db: DbDep, broker: BrokerDep, settings: SettingsDep,
                 _: Anyone) -> StreamingResponse:
    """The live stream for the console (cookie session), resumable with Last-Event-ID."""
    last = request.headers.get("last-event-id", "")
    after = request.query_params.get("after", "")
    start = (event_position(last, "Last-Event-ID") if last
             else event_position(after, "after") if after else 0)
    body = stream(db, broker, start, None, CONSOLE_KINDS, True, settings.sse_poll_s,
                  settings.sse_heartbeat_s, request.is_disconnected)
    return StreamingResponse(body, media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@router.post("/api/tokens", status_code=201)
def token(body: TokenIn, db: DbDep, _: Admin) -> dict:
    """Admin only: a token for a person or integration, shown once."""
    return create_token(db, body.name, body.role)
