"""The live event stream (Server-Sent Events), resumable with Last-Event-ID."""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import StreamingResponse

from ..deps import BrokerDep, DbDep, SettingsDep
from ..errors import ApiError
from ..events import STREAM_KINDS, stream
from ..schemas.common import errors
from .tables import Reader

router = APIRouter(tags=["events"])

# events.id is a BIGINT: a position outside it would be a 500 on PostgreSQL.
MAX_EVENT_ID = 2**63 - 1
_DIGITS = re.compile(r"[0-9]{1,19}")  # ASCII only: str.isdigit() also takes "²"


def event_position(text: str, what: str) -> int:
    """A stream position from a header or query text: 0..MAX_EVENT_ID, else 422."""
    if not _DIGITS.fullmatch(text) or int(text) > MAX_EVENT_ID:
        raise ApiError(422, "bad_last_event_id", f"{what} must be an event id, 0 to "
                       f"{MAX_EVENT_ID}")
    return int(text)


@router.get("/events", response_class=StreamingResponse,
            responses={200: {"content": {"text/event-stream": {}},
                             "description": "SSE: `id`, `event` (kind), `data` (JSON)."},
                       **errors(401, 403, 422)})
async def events(
    request: Request, db: DbDep, broker: BrokerDep, settings: SettingsDep, _: Reader,
    table: Annotated[str | None, Query(max_length=64, description="Only this table.")] = None,
    kinds: Annotated[str | None, Query(max_length=300, description="Comma-separated kinds; "
                                       "default: " + ",".join(STREAM_KINDS))] = None,
    follow: Annotated[bool, Query(description="Keep the stream open for live events; "
                                  "false sends the backlog and ends.")] = True,
    after: Annotated[int | None, Query(ge=0, le=MAX_EVENT_ID, description="Start after "
                                       "this event id (Last-Event-ID wins).")] = None,
    last_event_id: Annotated[str | None, Header(max_length=20)] = None,
) -> StreamingResponse:
    """Roll, settlement, no_roll, needs_review, review, correction, dealer_call_mismatch and
    sequence_gap events. Reconnect with `Last-Event-ID` to receive every event missed."""
    start = after or 0
    if last_event_id:
        start = event_position(last_event_id, "Last-Event-ID")
    wanted = tuple(k for k in (kinds.split(",") if kinds else STREAM_KINDS) if k)
    unknown = sorted(set(wanted) - set(STREAM_KINDS))
    if unknown or not wanted:
        raise ApiError(422, "bad_kinds", f"unknown kinds {unknown}; known: "
                       f"{', '.join(STREAM_KINDS)}")
    body = stream(db, broker, start, table, wanted, follow, settings.sse_poll_s,
                  settings.sse_heartbeat_s, request.is_disconnected)
    return StreamingResponse(body, media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
