"""Group commit of roll intakes: one writer thread per process and database.

Request handlers verify a roll (signature, schema) on the event loop and queue it here; the
writer takes everything queued, up to `max_batch`, and applies it in one transaction
(`rolls.apply_batch`), then answers every waiting request. Under load the cost of a
transaction (BEGIN, locking the chain head, the commit and its sync) is shared by the batch
instead of paid per roll, and the rolls no longer queue on a lock in many threads. Nobody is
answered before the commit, so an acknowledged roll is as durable as before. The thread
exits when idle and is started again by the next roll.
"""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import Future

from ..db.session import Database
from . import rolls

_IDLE_S = 2.0


class IntakeWriter:
    """Applies queued rolls in batches on its own thread; `submit` returns a Future."""

    def __init__(self, db: Database, max_batch: int = 64) -> None:
        self.db = db
        self.max_batch = max_batch
        self._queue: deque[tuple[rolls.Posted, Future]] = deque()
        self._cond = threading.Condition()
        self._running = False

    def submit(self, post: rolls.Posted) -> Future:
        future: Future = Future()
        with self._cond:
            self._queue.append((post, future))
            if self._running:
                self._cond.notify()
            else:
                self._running = True
                threading.Thread(target=self._run, name="dicecall-intake",
                                 daemon=True).start()
        return future

    def _take(self) -> list[tuple[rolls.Posted, Future]]:
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
            # A request cancelled while queued (client gone) is not applied; once running,
            # its roll is applied and a retry of it is answered as a replay.
            batch = [(p, f) for p, f in batch if f.set_running_or_notify_cancel()]
            if not batch:
                continue
            try:
                results = rolls.apply_batch(self.db, [p for p, _ in batch])
            except BaseException as exc:  # the database is down: every request hears it
                for _, future in batch:
                    future.set_exception(exc)
                continue
            for (_, future), result in zip(batch, results, strict=True):
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
