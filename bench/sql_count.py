"""Counts the SQL statements a process executes, for `bench_service.py --count-sql`.

Imported into the service process before it starts. On PostgreSQL psycopg itself is
counted, so statements sent without SQLAlchemy (the intake's pipelines, the pool's ping) are
too: "calls" are cursor executions, "rows" the statements the server runs for them (an
executemany of n rows runs n), and the "(round trips)" line counts the times the
connection waited for the server: one per statement, commit or rollback outside a
pipeline, one per pipeline (its sync), one per BEGIN psycopg sends itself. On SQLite every
cursor execution through a SQLAlchemy engine is counted. Statements
are keyed by their first words. SIGUSR1 writes the counts so far to
$DICECALL_SQL_COUNT_FILE as JSON and starts again from zero, so the bench can count the
load alone (not the migration).
"""

from __future__ import annotations

import json
import os
import re
import signal
import threading
from collections import Counter

from sqlalchemy import event
from sqlalchemy.engine import Engine

_lock = threading.Lock()
_calls: Counter[str] = Counter()
_rows: Counter[str] = Counter()


def _key(statement: str) -> str:
    words = re.sub(r"\s+", " ", statement).strip()
    words = re.sub(r"VALUES \(.*", "VALUES (...)", words)  # multi-row lists vary in length
    return words[:110]


def _add(key: str, rows: int = 1) -> None:
    with _lock:
        _calls[key] += 1
        _rows[key] += rows


@event.listens_for(Engine, "before_cursor_execute")
def _count(conn, cursor, statement, parameters, context, executemany) -> None:
    if conn.dialect.name != "postgresql":
        _add(_key(statement), len(parameters) if executemany else 1)


@event.listens_for(Engine, "commit")
def _commit(conn) -> None:
    if conn.dialect.name != "postgresql":
        _add("COMMIT")


RT = "(round trips)"


def _patch_psycopg() -> None:
    import psycopg

    def wrap(cls, name, count):
        original = getattr(cls, name)

        def counted(self, *args, **kwargs):
            count(self, *args, **kwargs)
            return original(self, *args, **kwargs)

        setattr(cls, name, counted)

    from psycopg.pq import TransactionStatus

    def execute(cur, query, *a, **k):
        _add(_key(str(query)))
        if cur.connection._pipeline is None:
            _add(RT)

    def executemany(cur, query, params, *a, **k):  # in a pipeline psycopg opens (counted)
        _add(_key(str(query)), len(params))

    def ends(name):
        def count(conn):
            if conn.pgconn.transaction_status != TransactionStatus.IDLE:
                _add(name)
                _add(RT)
        return count

    wrap(psycopg.Cursor, "execute", execute)
    wrap(psycopg.Cursor, "executemany", executemany)
    wrap(psycopg.Pipeline, "__exit__", lambda *a: _add(RT))  # its sync
    # psycopg's own BEGIN (not in autocommit mode) waits for the server, in a pipeline too.
    wrap(psycopg.Connection, "_get_tx_start_command", lambda conn: (_add("BEGIN"), _add(RT)))
    wrap(psycopg.Connection, "commit", ends("COMMIT"))
    wrap(psycopg.Connection, "rollback", ends("ROLLBACK"))


_patch_psycopg()


def _dump() -> None:
    with _lock:
        out = {k: {"calls": _calls[k], "rows": _rows[k]} for k in _calls}
        _calls.clear()
        _rows.clear()
    with open(os.environ["DICECALL_SQL_COUNT_FILE"], "w") as f:
        json.dump(out, f)


# The handler runs on the main thread, which may hold the lock: dump from another thread.
signal.signal(signal.SIGUSR1, lambda *_: threading.Thread(target=_dump).start())
