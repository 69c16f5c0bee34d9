"""Group commit of roll intakes: one writer thread per process and database.

Request handlers verify a roll (signature, schema) on the event loop and queue it here; the
writer takes everything queued, up to `max_batch`, and applies it in one transaction
(`rolls.apply_batch`), then answers every waiting request. Under load the cost of a
transaction (BEGIN, locking the chain head, the commit and its sync) is shared by the batch
instead of paid per roll, and the rolls no longer queue on a lock in many threads. Nobody is
answered before the commit, so an acknowledged roll is as durable as before. A request
cancelled while queued (its client gone) is still applied: the device retries it and gets
the stored answer as a replay. The thread exits when idle; the next roll starts it again.
"""

from __future__ import annotations

import asyncio
import threading
from collections import defaultdict, deque
from typing import Any

from ..db.session import Database
from . import rolls

_IDLE_S = 2.0

Waiting = tuple[rolls.Posted, asyncio.AbstractEventLoop, asyncio.Future]


class IntakeWriter:
    """Applies queued rolls in batches on its own thread."""

    def __init__(self, db: Database, max_batch: int = 64) -> None:
        self.db = db
        self.max_batch = max_batch
        self._queue: deque[Waiting] = deque()
        self._cond = threading.Condition()
        self._running = False

    def submit(self, post: rolls.Posted) -> asyncio.Future:
        """Queues `post`; the returned future (of the running loop) gets its result."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        with self._cond:
            self._queue.append((post, loop, future))
            if self._running:
                self._cond.notify()
            else:
                self._running = True
                threading.Thread(target=self._run, name="dicecall-intake",
                                 daemon=True).start()
        return future

    def _take(self) -> list[Waiting]:
        with self._cond:
            if not self._queue:
                self._cond.wait(_IDLE_S)
            if not self._queue:
                self._running = False  # under the lock: a submit now starts a new thread
                return []
            n = min(len(self._queue), self.max_batch)
            return [self._queue.popleft() for _ in range(n)]

    def _run(self) -> None:
        while batch := self._take():
            try:
                results: list[Any] = rolls.apply_batch(self.db, [p for p, _, _ in batch])
            except BaseException as exc:  # the database is down: every request hears it
                results = [exc] * len(batch)
            # One wake-up per event loop for the whole batch, not one per request.
            answers: dict[asyncio.AbstractEventLoop, list] = defaultdict(list)
            for (_, loop, future), result in zip(batch, results, strict=True):
                answers[loop].append((future, result))
            for loop, pairs in answers.items():
                if not loop.is_closed():
                    loop.call_soon_threadsafe(_resolve, pairs)


def _resolve(pairs: list[tuple[asyncio.Future, Any]]) -> None:
    for future, result in pairs:
        if future.cancelled():
            continue
        if isinstance(result, BaseException):
            future.set_exception(result)
        else:
            future.set_result(result)


_lock = threading.Lock()


def writer_for(db: Database) -> IntakeWriter:
    """The process's writer for `db` (created on first use)."""
    writer = getattr(db, "intake_writer", None)
    if writer is None:
        with _lock:
            writer = getattr(db, "intake_writer", None)
            if writer is None:
                writer = db.intake_writer = IntakeWriter(db)
    return writer
