"""The live event stream: Server-Sent Events backed by the audit events in the database.

A stream first sends every stored event after the client's `Last-Event-ID`, then waits for
new ones. Writers in this process wake the streams at once (`Broker.notify`); events written
by other processes are found by polling every `sse_poll_s`. Since the audit chain commits
ids in order, asking the database for "id > last sent" never skips an event.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable, Sequence

from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from .db.models import Event
from .db.session import Database

STREAM_KINDS = ("roll", "settlement", "no_roll", "needs_review", "review", "correction",
                "dealer_call_mismatch", "dealer_call_rechecked", "sequence_gap")


class Broker:
    """Wakes waiting streams (async) when a writer (any thread) has committed events."""

    def __init__(self) -> None:
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()
        self._lock = threading.Lock()

    def subscribe(self) -> tuple[asyncio.AbstractEventLoop, asyncio.Event]:
        waiter = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            self._waiters.add(waiter)
        return waiter

    def unsubscribe(self, waiter: tuple[asyncio.AbstractEventLoop, asyncio.Event]) -> None:
        with self._lock:
            self._waiters.discard(waiter)

    def notify(self) -> None:
        with self._lock:
            waiters = list(self._waiters)
        for loop, flag in waiters:
            # A stream whose loop has closed is harmless to skip.
            if not loop.is_closed():
                loop.call_soon_threadsafe(flag.set)


def fetch(db: Database, after: int, table_id: str | None, kinds: Sequence[str],
          limit: int = 500) -> list[Event]:
    """Stored events after id `after`, oldest first."""
    stmt = select(Event).where(Event.id > after, Event.kind.in_(kinds))
    if table_id is not None:
        stmt = stmt.where(Event.table_id == table_id)
    with db.read() as session:
        return list(session.scalars(stmt.order_by(Event.id).limit(limit)))


def format_sse(event: Event) -> str:
    """One SSE message: id, event kind and the payload (with table and time) as data."""
    data = json.dumps({"id": event.id, "table_id": event.table_id, "kind": event.kind,
                       "created_at": event.created_at, "data": json.loads(event.payload)},
                      separators=(",", ":"))
    return f"id: {event.id}\nevent: {event.kind}\ndata: {data}\n\n"


async def stream(db: Database, broker: Broker, after: int, table_id: str | None,
                 kinds: Sequence[str], follow: bool, poll_s: float, heartbeat_s: float,
                 disconnected: Callable[[], object]) -> AsyncIterator[str]:
    """Backfill from the database, then live; ends when not following or on disconnect."""
    waiter = broker.subscribe()
    idle = 0.0
    try:
        yield "retry: 2000\n\n"
        while True:
            waiter[1].clear()  # cleared before the query: a notify after it is not lost
            events = await run_in_threadpool(fetch, db, after, table_id, kinds)
            for event in events:
                yield format_sse(event)
                after = event.id
            if len(events) == 500:
                continue
            if not follow or await disconnected():
                return
            try:
                await asyncio.wait_for(waiter[1].wait(), timeout=poll_s)
                idle = 0.0
            except TimeoutError:
                idle += poll_s
                if idle >= heartbeat_s:
                    idle = 0.0
                    yield ": keep-alive\n\n"
    finally:
        broker.unsubscribe(waiter)
