"""Engines and sessions: one `Database` per process, shared by requests and the CLI.

Write transactions on SQLite start with BEGIN IMMEDIATE behind a process lock: SQLite has
one writer at a time, and waiting on its busy handler (which sleeps in growing steps)
instead of a lock would ruin tail latency. PostgreSQL uses row locks (`lock_table`).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

from sqlalchemy import Connection, Engine, create_engine, event, select
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import Session

from .models import Table


class FairLock:
    """A FIFO lock: writers get the SQLite write lock in arrival order. A plain Lock lets
    a thread that just released it take it again, which starves others and shows as a
    long latency tail under load. Release hands the lock straight to the next waiter
    through that waiter's own gate: waking every waiter to compare tickets (a Condition
    with notify_all) cost a third of the service's CPU with 30 writers queued."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._gates: deque[threading.Lock] = deque()
        self._held = False

    def __enter__(self) -> None:
        with self._mutex:
            if not self._held:
                self._held = True
                return
            gate = threading.Lock()
            gate.acquire()
            self._gates.append(gate)
        gate.acquire()  # released by the holder, which passes the lock on without freeing it

    def __exit__(self, *exc: object) -> None:
        with self._mutex:
            if self._gates:
                self._gates.popleft().release()
            else:
                self._held = False


class Database:
    """An engine plus the right way to open read and write transactions on it."""

    def __init__(self, url: str, pool_size: int = 8, sqlite_synchronous: str = "NORMAL"):
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        self.engine = _make_engine(url, pool_size, sqlite_synchronous)
        self._write_lock = FairLock() if self.is_sqlite else None

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session for reads; nothing is committed."""
        with Session(self.engine, expire_on_commit=False) as session:
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A session in one transaction, committed on success and rolled back on error."""
        with self._write_lock or nullcontext(), self.engine.connect() as conn:
            conn.info["write"] = True
            try:
                with Session(bind=conn, expire_on_commit=False) as session, session.begin():
                    yield session
            finally:
                conn.info.pop("write", None)

    @contextmanager
    def write_conn(self) -> Iterator[Connection]:
        """A Core connection in one write transaction (the roll intake's hot path)."""
        with self._write_lock or nullcontext(), self.engine.connect() as conn:
            conn.info["write"] = True
            try:
                with conn.begin():
                    yield conn
            finally:
                conn.info.pop("write", None)

    def lock_table(self, session: Session, table_id: str) -> Table | None:
        """The table row, locked until commit (all writes to one table are serialized)."""
        stmt = select(Table).where(Table.id == table_id)
        if not self.is_sqlite:  # SQLite: BEGIN IMMEDIATE already holds the write lock
            stmt = stmt.with_for_update()
        return session.scalars(stmt).one_or_none()

    def dispose(self) -> None:
        self.engine.dispose()


# A pooled connection used this recently is not pinged before use: under load the ping was
# one more round trip per transaction. One idle longer (possibly cut by a server restart or
# a firewall) still is.
_PING_AFTER_IDLE_S = 1.0


def _make_engine(url: str, pool_size: int, synchronous: str) -> Engine:
    if not url.startswith("sqlite"):
        # LIFO: the connection used last is the one reused, so a busy writer does not cycle
        # through every pooled connection (each idle long enough to need a ping).
        engine = create_engine(url, pool_size=pool_size, max_overflow=pool_size,
                               pool_use_lifo=True)

        @event.listens_for(engine, "checkin")
        def _checkin(_dbapi_conn, record) -> None:
            record.info["checked_in"] = time.monotonic()

        @event.listens_for(engine, "checkout")
        def _checkout(dbapi_conn, record, _proxy) -> None:
            if time.monotonic() - record.info.get("checked_in", 0.0) > _PING_AFTER_IDLE_S:
                try:
                    engine.dialect.do_ping(dbapi_conn)
                except Exception as exc:  # the pool discards it and takes another one
                    raise DisconnectionError() from exc

        return engine
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30},
                           pool_size=pool_size, max_overflow=pool_size)

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn, _record) -> None:
        # Autocommit at the driver level; transactions are begun explicitly below.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA synchronous={synchronous}")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.info.get("write") else "BEGIN")

    return engine
