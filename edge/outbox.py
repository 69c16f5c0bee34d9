"""The durable outbox: every roll is committed (and fsync'd) here before it counts as read.

SQLite in WAL mode with `synchronous=FULL`: a commit returns only after the WAL is on disk,
so a roll survives a killed process and a power cut. The body is stored as the exact bytes
that will be posted, so every retry (and a retry after a restart) sends the same roll_id
with the same body, which the service answers idempotently (`200`, `Idempotent-Replayed`):
sent twice, settled once.

Disk use is bounded: acknowledged rows are deleted, the size in use is tracked, an alarm is
raised above `alarm_fraction` of `max_bytes`, and when a new roll would not fit, its JPEGs
are dropped (the hashes stay) rather than the roll. A roll is never dropped.
"""

from __future__ import annotations

import json
import logging
import shutil
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS rolls (
    seq INTEGER PRIMARY KEY,
    roll_id TEXT NOT NULL UNIQUE,
    body BLOB NOT NULL,
    settled_wall REAL NOT NULL,
    created REAL NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending',
    response TEXT
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


DISK_RESERVE = 64 * 2**20  # left free on the filesystem for the database's own writes
log = logging.getLogger("dicecall.edge.outbox")


def _corrupt(exc: sqlite3.DatabaseError) -> bool:
    """A damaged or foreign file (quick_check failed, SQLITE_CORRUPT, SQLITE_NOTADB)."""
    if str(exc).startswith("quick_check: "):
        return True
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF  # the primary code of an extended one
    return code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


@dataclass(frozen=True)
class Pending:
    seq: int
    roll_id: str
    body: bytes
    settled_wall: float


class Outbox:
    """One table's queue of rolls; safe to use from the reader and publisher threads."""

    def __init__(self, path: Path, max_bytes: int, alarm_fraction: float) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.max_bytes, self.alarm_fraction = max_bytes, alarm_fraction
        try:
            self._db = self._connect()
        except sqlite3.DatabaseError as exc:
            if not _corrupt(exc):
                raise  # locked, disk I/O, permissions: not the file's fault, keep it
            self._set_aside(exc)
            self._db = self._connect()
        self._lock = threading.Lock()
        self.changed = threading.Condition()
        self.version = 0  # bumped on every put/done, so a waiter cannot miss a change
        # A High Roll throw stored while its phase was unknown (`put(held=True)`) whose
        # process died before the phase was known: as stored, it is the phase-unknown roll
        # for review, so it is sent as it is rather than lost.
        found = self._db.execute("UPDATE rolls SET state='pending' WHERE state='held'"
                                 ).rowcount
        if found:
            log.warning(f"{found} High Roll throw(s) stored before their phase was known: "
                        "sent for review with the phase unknown", extra={"rolls": found})

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            found = db.execute("PRAGMA quick_check").fetchall()
            if found != [("ok",)]:
                raise sqlite3.DatabaseError(f"quick_check: {found[0][0]}")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.executescript(SCHEMA)
        except BaseException:
            db.close()
            raise
        return db

    def _set_aside(self, exc: sqlite3.DatabaseError) -> None:
        """Moves a corrupt outbox (and its WAL) aside, kept for salvage: without this the
        edge would fail at every start, a crash loop reading no throw at all."""
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        for suffix in ("", "-wal", "-shm"):
            part = self.path.with_name(self.path.name + suffix)
            if part.exists():
                part.rename(aside.with_name(aside.name + suffix))
        log.error(f"outbox {self.path} is corrupt ({exc}): moved to {aside} for salvage, "
                  "starting a new outbox; rolls in it not yet acknowledged are not sent",
                  extra={"path": str(self.path), "moved_to": str(aside), "error": str(exc)})

    # -- state -------------------------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def next_seq(self) -> int:
        """One more than any seq ever stored (acknowledged rows are deleted, meta keeps it)."""
        with self._lock:
            row = self._db.execute("SELECT MAX(seq) FROM rolls").fetchone()
            meta = self._db.execute("SELECT value FROM meta WHERE key='last_seq'").fetchone()
        last = max(row[0] if row[0] is not None else -1, int(meta[0]) if meta else -1)
        return last + 1

    def used_bytes(self) -> int:
        """Bytes in use by the database and its WAL (free pages excluded)."""
        with self._lock:
            pages = self._db.execute("PRAGMA page_count").fetchone()[0]
            free = self._db.execute("PRAGMA freelist_count").fetchone()[0]
            size = self._db.execute("PRAGMA page_size").fetchone()[0]
        wal = self.path.with_name(self.path.name + "-wal")
        return (pages - free) * size + (wal.stat().st_size if wal.exists() else 0)

    def disk_free(self) -> int:
        """Free bytes on the outbox's filesystem (the budget means nothing past them)."""
        return shutil.disk_usage(self.path.parent).free

    def alarm(self) -> bool:
        """Above the alarm share of the budget, or the filesystem itself nearly full."""
        return (self.used_bytes() >= self.alarm_fraction * self.max_bytes
                or self.disk_free() < DISK_RESERVE * 4)

    def depth(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM rolls WHERE state='pending'"
                                    ).fetchone()[0]

    def oldest_pending(self) -> float | None:
        """Unix time the oldest roll not yet acknowledged was stored; None when none is."""
        with self._lock:
            return self._db.execute("SELECT MIN(created) FROM rolls WHERE state='pending'"
                                    ).fetchone()[0]

    # -- writer ------------------------------------------------------------------------------
    def fits(self, nbytes: int) -> bool:
        return (self.used_bytes() + nbytes <= self.max_bytes
                and self.disk_free() - nbytes >= DISK_RESERVE)

    def put(self, seq: int, roll_id: str, body: bytes, settled_wall: float,
            cursor: tuple[str, str] | None = None, held: bool = False) -> None:
        """Stores one roll durably (fsync'd on return), with the source cursor if given.
        `held`: not sent until `release` (a High Roll throw waiting for its phase).

        Raises:
            sqlite3.Error: the disk refused the write; the caller must not count the read.
        """
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("INSERT INTO rolls (seq, roll_id, body, settled_wall, created,"
                                 " state) VALUES (?, ?, ?, ?, ?, ?)",
                                 (seq, roll_id, body, settled_wall, time.time(),
                                  "held" if held else "pending"))
                self._db.execute("INSERT OR REPLACE INTO meta VALUES ('last_seq', ?)",
                                 (str(seq),))
                if cursor is not None:
                    self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", cursor)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        self._bump()

    def release(self, seq: int, roll_id: str, body: bytes) -> None:
        """Makes a held roll pending with its final body (fsync'd on return).

        Raises:
            sqlite3.Error: the disk refused the write; the held row stays held (and is sent
                as stored after a restart).
        """
        with self._lock:
            self._db.execute("UPDATE rolls SET roll_id=?, body=?, state='pending' WHERE seq=? "
                             "AND state='held'", (roll_id, body, seq))
        self._bump()

    def _bump(self) -> None:
        with self.changed:
            self.version += 1
            self.changed.notify_all()

    # -- publisher ---------------------------------------------------------------------------
    def head(self) -> Pending | None:
        """The oldest roll not yet acknowledged: rolls are sent strictly in seq order."""
        with self._lock:
            row = self._db.execute("SELECT seq, roll_id, body, settled_wall FROM rolls WHERE "
                                   "state='pending' ORDER BY seq LIMIT 1").fetchone()
        return Pending(row[0], row[1], bytes(row[2]), row[3]) if row else None

    def done(self, seq: int, response: dict | None, rejected: bool = False) -> None:
        """Acknowledged rows are deleted; refused ones are kept (state 'rejected') for a person."""
        with self._lock:
            if rejected:
                self._db.execute("UPDATE rolls SET state='rejected', response=? WHERE seq=?",
                                 (json.dumps(response), seq))
            else:
                # No fsync for the deletion: if a power cut loses it, the roll is posted
                # again and the service answers the repeat idempotently (200, the original
                # answer). The next put's fsync makes it durable anyway (same WAL).
                self._db.execute("PRAGMA synchronous=NORMAL")
                try:
                    self._db.execute("DELETE FROM rolls WHERE seq=?", (seq,))
                finally:
                    self._db.execute("PRAGMA synchronous=FULL")
        self._bump()

    def rejected(self) -> list[tuple[int, str, str | None]]:
        """The rolls the service refused, oldest first: (seq, roll_id, its answer as JSON)."""
        with self._lock:
            return self._db.execute("SELECT seq, roll_id, response FROM rolls WHERE "
                                    "state='rejected' ORDER BY seq").fetchall()

    def rejected_count(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM rolls WHERE state='rejected'"
                                    ).fetchone()[0]

    def requeue(self, seqs: list[int] | None = None) -> int:
        """Makes refused rolls pending again (all, or those of `seqs`); how many moved.

        The same bytes are sent, so a roll the service has since settled is answered as a
        repeat (200) and a conflicting roll_id is refused again."""
        query = "UPDATE rolls SET state='pending', response=NULL WHERE state='rejected'"
        args: tuple = ()
        if seqs is not None:
            query += f" AND seq IN ({','.join('?' * len(seqs))})"
            args = tuple(seqs)
        with self._lock:
            moved = self._db.execute(query, args).rowcount
        self._bump()
        return moved

    def wait(self, timeout: float, since: int | None = None) -> None:
        """Waits for a put or done, or `timeout`; returns at once if `version` != `since`."""
        with self.changed:
            if since is None or since == self.version:
                self.changed.wait(timeout)

    def close(self) -> None:
        with self._lock:
            try:
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                self._db.close()
