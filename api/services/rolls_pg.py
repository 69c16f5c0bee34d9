"""The roll intake's reads and writes on PostgreSQL, in two round trips per batch.

Through SQLAlchemy a batch cost a dozen round trips (the pool's ping, BEGIN, each SELECT,
each write, the chain head twice, the commit) and one statement per row written; every round
trip wakes the database and the writer thread on the cores the load shares. Here psycopg's
pipeline mode sends (1) BEGIN and the three reads together and (2) every write, one
statement per table whatever the number of rows (`unnest` of one array per column: the same
text each time, so the server prepares it once), with the COMMIT. The chain head is read
(its own round trip, after the rolls were applied, so that lock is as short as before) only
when the process does not remember the one it committed last (`HeadMemory`).

The transaction is the SQLAlchemy path's (rolls_batch.py, used on SQLite): reads after the
table rows are locked see what committed before, a duplicate roll_id fails it before COMMIT
and rolls everything back, and nobody is answered before the COMMIT's result came back. The
driver connection is in autocommit mode meanwhile only so that BEGIN and COMMIT can travel in
the pipelines as statements (psycopg's own BEGIN and commit() each wait for a sync of
their own); `explicit` rolls back on any error and restores the mode.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from weakref import WeakKeyDictionary

from psycopg.errors import NotNullViolation
from psycopg.pq import TransactionStatus
from psycopg.rows import dict_row
from sqlalchemy import BigInteger, Boolean, Connection, Engine, Float, Integer, String

from ..audit import GENESIS, appends, link
from ..db.models import Device, Event, Roll, SequenceGap, Table

TABLE_COLS = ("id", "game", "state_json", "version", "round_no", "betting_open", "arrivals",
              "held_rolls")
_READS = (
    f"SELECT {', '.join(TABLE_COLS)} FROM dc_tables WHERE id = ANY(%s) ORDER BY id FOR UPDATE",
    "SELECT roll_id, body_hash, table_id, response_json FROM rolls WHERE roll_id = ANY(%s)",
    "SELECT id, table_id, revoked, last_seq FROM devices WHERE id = ANY(%s)",
)
_HEAD = "SELECT last_id, last_hash FROM chain_head WHERE id = 1 FOR UPDATE"
_GENESIS = "INSERT INTO chain_head (id, last_id, last_hash) VALUES (1, 0, %s)"
_SET_HEAD = "UPDATE chain_head SET last_id = %s, last_hash = %s WHERE id = 1"
# With a remembered head: last_id becomes NULL, which the column refuses, unless the row
# still holds what this process committed, so a stale memory fails the whole transaction.
_ADVANCE_HEAD = ("UPDATE chain_head SET last_id = CASE WHEN last_id = %s AND last_hash = %s "
                 "THEN %s END, last_hash = %s WHERE id = 1")
_HEAD_OFF_S = 5.0


def _array_type(column: Any) -> str:
    # Strings as text[]: a cast to varchar(n)[] would cut an over-long value silently, the
    # assignment to the column refuses it.
    for sa_type, pg_type in ((Boolean, "boolean"), (BigInteger, "bigint"),
                             (Integer, "integer"), (Float, "float8"), (String, "text")):
        if isinstance(column.type, sa_type):
            return pg_type
    raise TypeError(f"no array type for {column}")


def _insert(model: Any, skip: tuple[str, ...] = ()) -> tuple[str, tuple[str, ...]]:
    cols = tuple(c for c in model.__table__.c if c.name not in skip)
    names = tuple(c.name for c in cols)
    arrays = ", ".join(f"%b::{_array_type(c)}[]" for c in cols)
    return f"INSERT INTO {model.__tablename__} ({', '.join(names)}) SELECT * FROM " \
           f"unnest({arrays})", names


def _update(model: Any, names: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    table = model.__table__
    arrays = ", ".join(f"%b::{_array_type(table.c[n])}[]" for n in ("id", *names))
    sets = ", ".join(f"{n} = v.{n}" for n in names)
    return f"UPDATE {model.__tablename__} AS t SET {sets} FROM unnest({arrays}) " \
           f"AS v(id, {', '.join(names)}) WHERE t.id = v.id", ("id", *names)


_INSERT_ROLLS = _insert(Roll)
_INSERT_GAPS = _insert(SequenceGap, skip=("id",))  # its id comes from the sequence
_INSERT_EVENTS = _insert(Event)
_UPDATE_TABLES = _update(Table, TABLE_COLS[2:])
_UPDATE_DEVICES = _update(Device, ("last_seq",))


class StaleHead(Exception):
    """The remembered chain head was not the database's: nothing was written, retry."""


class HeadMemory:
    """The chain head this process committed last, so the next batch can skip its locking
    read of the head: the write pipeline checks it instead (`_ADVANCE_HEAD`), under the same
    row lock. Forgotten when anything else of the process appends to the chain, and unused
    for a few seconds after it was found stale (another process writing: two workers)."""

    def __init__(self) -> None:
        self.head: tuple[int, str] | None = None
        self.appends = -1
        self.off_until = 0.0

    def get(self) -> tuple[int, str] | None:
        if self.appends != appends() or time.monotonic() < self.off_until:
            return None
        return self.head

    def put(self, head: tuple[int, str], appends_seen: int) -> None:
        self.head, self.appends = head, appends_seen

    def stale(self) -> None:
        self.head, self.off_until = None, time.monotonic() + _HEAD_OFF_S


_memories: WeakKeyDictionary[Engine, HeadMemory] = WeakKeyDictionary()
_memories_lock = threading.Lock()


def head_memory(conn: Connection) -> HeadMemory:
    with _memories_lock:
        return _memories.setdefault(conn.engine, HeadMemory())


def _pg(conn: Connection) -> Any:
    return conn.connection.driver_connection


@contextmanager
def explicit(conn: Connection) -> Iterator[None]:
    """The driver connection in autocommit mode, the transaction begun and ended by the
    pipelines; rolled back if anything fails."""
    pg = _pg(conn)
    pg.autocommit = True
    try:
        yield
    except BaseException:
        if not pg.closed and pg.pgconn.transaction_status != TransactionStatus.IDLE:
            pg.rollback()
        raise
    finally:
        if not pg.closed and pg.pgconn.transaction_status == TransactionStatus.IDLE:
            pg.autocommit = False


def read(conn: Connection, tids: list[str], rids: list[str],
         dids: list[str]) -> list[list[dict]]:
    """BEGIN; locks the tables (in id order) and reads them, the stored rolls, the devices."""
    pg = _pg(conn)
    cursors = [pg.cursor(row_factory=dict_row) for _ in _READS]
    with pg.pipeline():
        pg.execute("BEGIN", prepare=False)
        for cur, sql, arg in zip(cursors, _READS, (tids, rids, dids), strict=True):
            cur.execute(sql, (arg,))
    return [cur.fetchall() for cur in cursors]


def chain_head(conn: Connection) -> tuple[int, str]:
    """The chain head, locked until commit (appends of every writer are serialized)."""
    pg = _pg(conn)
    head = pg.execute(_HEAD).fetchone()
    if head is None:  # a database created without the migration's genesis row
        pg.execute(_GENESIS, (GENESIS,))
        return 0, GENESIS
    return head


def flush(batch: Any) -> None:
    """Writes a rolls_batch.Batch and commits it: the chain head's locking read when the
    one committed last is not remembered, then one round trip for everything."""
    conn = batch.conn
    memory = head_memory(conn)
    remembered = memory.get() if batch.events else None
    head = remembered or (chain_head(conn) if batch.events else (0, ""))
    events, last_id, last_hash = link(batch.events, *head, time.time())
    try:
        write_and_commit(conn, batch.rows, batch.gaps, list(batch.dirty_tables.values()),
                         list(batch.dirty_devices.values()), events, (last_id, last_hash),
                         remembered)
    except StaleHead:
        memory.stale()
        raise
    if events:
        memory.put((last_id, last_hash), batch.appends)


def write_and_commit(conn: Connection, rolls: list[dict], gaps: list[dict],
                     tables: list[Any], devices: list[Any], events: list[dict],
                     head: tuple[int, str], remembered: tuple[int, str] | None) -> None:
    """Writes the batch and commits it, in one round trip. `head` is the chain's new head;
    `remembered` the old one when it was not read (HeadMemory), checked first.

    Raises:
        StaleHead: the remembered head was not the database's; nothing was written.
    """
    pg = _pg(conn)
    try:
        with pg.pipeline():
            cur = pg.cursor()
            if events and remembered is not None:
                cur.execute(_ADVANCE_HEAD, (*remembered, *head))
            _writes(cur, rolls, gaps, tables, devices, events)
            if events and remembered is None:
                cur.execute(_SET_HEAD, head)
            cur.execute("COMMIT", prepare=False)
    except NotNullViolation as exc:
        if exc.diag.table_name != "chain_head":
            raise
        raise StaleHead() from exc


def _writes(cur: Any, rolls: list[dict], gaps: list[dict], tables: list[Any],
            devices: list[Any], events: list[dict]) -> None:
    """One statement per table, rolls first (as on SQLite)."""
    for (sql, cols), rows, get in (
            (_INSERT_ROLLS, rolls, dict.__getitem__), (_INSERT_GAPS, gaps, dict.__getitem__),
            (_UPDATE_TABLES, tables, getattr), (_UPDATE_DEVICES, devices, getattr),
            (_INSERT_EVENTS, events, dict.__getitem__)):
        if rows:
            cur.execute(sql, [[get(row, c) for row in rows] for c in cols])
