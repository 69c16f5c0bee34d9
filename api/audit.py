"""The tamper-evident audit trail: every state change appends one event to a hash chain.

Each event stores its predecessor's hash and its own, the sha256 of the canonical JSON of
(id, table, kind, payload, time, predecessor's hash). Ids are consecutive and the
`chain_head` row holds the last id and hash, so `verify` can tell an edited row (its hash no
longer recomputes), an inserted one (a successor's link or the head does not match) and a
deleted one (a missing id, a broken link, or a head past the last row). It also checks the
rows the chain vouches for: rolls, their settlements and dealer calls (audit_rows.py).

Its limit: whoever can write the database can delete the last events and move the head
back to the new last row; nothing inside the database tells that from a shorter history.
`verify` reports the head (id, hash) so an operator can record it elsewhere: a head
recorded earlier that is no longer in the chain reveals the truncation.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, insert, select, update
from sqlalchemy.orm import Session

from .db.models import ChainHead, Event

GENESIS = "0" * 64


def canonical(obj: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, UTF-8 kept (the same text every time)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def link_hash(event_id: int, table_id: str | None, kind: str, payload: str,
              created_at: float, prev_hash: str) -> str:
    """The hash of one event; `payload` is its canonical JSON text as stored."""
    body = canonical({"id": event_id, "table_id": table_id, "kind": kind,
                      "payload": payload, "created_at": created_at, "prev": prev_hash})
    return hashlib.sha256(body.encode()).hexdigest()


@dataclass
class Pending:
    """An event collected during a transaction, appended just before commit."""

    table_id: str | None
    kind: str
    payload: dict[str, Any]


_EVENTS = Event.__table__
_HEAD = ChainHead.__table__
_appends = 0
_appends_lock = threading.Lock()


def appends() -> int:
    """How many times `append` was called in this process: the PostgreSQL intake keeps the
    chain head it committed last only while nothing else of the process appended."""
    return _appends


def append(session: Session | Connection, events: Iterable[Pending]) -> list[dict]:
    """Appends events to the chain inside the caller's transaction (Session or Core).

    The head row stays locked until commit (FOR UPDATE; SQLite holds its write lock), so
    appends of concurrent transactions are serialized and ids become visible in order.
    Call it last, to keep that lock short.

    Returns:
        The inserted rows as dicts (ids assigned).
    """
    events = list(events)
    if not events:
        return []
    global _appends
    with _appends_lock:
        _appends += 1
    conn = session.connection() if isinstance(session, Session) else session
    head = conn.execute(select(_HEAD.c.last_id, _HEAD.c.last_hash)
                        .where(_HEAD.c.id == 1).with_for_update()).first()
    if head is None:  # a database created without the migration's genesis row
        conn.execute(insert(_HEAD).values(id=1, last_id=0, last_hash=GENESIS))
        head = (0, GENESIS)
    rows, last_id, last_hash = link(events, head[0], head[1], time.time())
    conn.execute(insert(_EVENTS), rows)
    conn.execute(update(_HEAD).where(_HEAD.c.id == 1).values(last_id=last_id,
                                                             last_hash=last_hash))
    return rows


def link(events: Iterable[Pending], last_id: int, last_hash: str,
         now: float) -> tuple[list[dict], int, str]:
    """The rows of `events` chained after (last_id, last_hash), and the new head."""
    rows = []
    for pending in events:
        last_id += 1
        payload = canonical(pending.payload)
        digest = link_hash(last_id, pending.table_id, pending.kind, payload, now, last_hash)
        rows.append({"id": last_id, "table_id": pending.table_id, "kind": pending.kind,
                     "payload": payload, "created_at": now, "prev_hash": last_hash,
                     "hash": digest})
        last_hash = digest
    return rows, last_id, last_hash


@dataclass
class Report:
    """What `verify` found; `problems` name the event ids involved."""

    checked: int = 0
    problems: list[str] = field(default_factory=list)
    head_id: int = 0  # the chain head as found, to be recorded outside the database
    head_hash: str = GENESIS
    expected_id: int | None = None  # the event whose hash is the recorded head, if any

    @property
    def ok(self) -> bool:
        return not self.problems


def verify(session: Session, batch: int = 5000, expect_head: str | None = None) -> Report:
    """Walks the whole chain in id order and reports every inconsistency, then every roll
    or dealer call row that no longer matches its events (audit_rows).

    Args:
        expect_head: a head recorded outside the database (its sha256); it must still be
            in the chain, as the head or an event the chain grew on from. A truncated tail
            with the head moved back verifies otherwise.
    """
    from .audit_rows import RowIndex

    report = Report()
    if expect_head == GENESIS:
        report.expected_id = 0
    index = RowIndex()
    prev_id, prev_hash = 0, GENESIS
    last = 0
    while True:
        rows = session.scalars(select(Event).where(Event.id > last).order_by(Event.id)
                               .limit(batch)).all()
        if not rows:
            break
        for row in rows:
            _check_row(report, row, prev_id, prev_hash)
            index.see(row)
            if row.hash == expect_head:
                report.expected_id = row.id
            prev_id, prev_hash = row.id, row.hash
            report.checked += 1
        last = rows[-1].id
    head = session.get(ChainHead, 1)
    head_id, head_hash = (head.last_id, head.last_hash) if head else (0, GENESIS)
    if head_id > prev_id:
        report.problems.append(f"events {prev_id + 1}..{head_id} deleted: the chain head "
                               f"records {head_id} events, the last row is {prev_id}")
    elif head_id < prev_id:
        report.problems.append(f"events {head_id + 1}..{prev_id} inserted after the chain "
                               f"head (which ends at {head_id})")
    elif head_hash != prev_hash:
        report.problems.append(f"event {prev_id}: differs from the chain head's hash "
                               "(last event replaced)")
    report.head_id, report.head_hash = head_id, head_hash
    if expect_head is not None and report.expected_id is None:
        report.problems.append(f"the recorded chain head {expect_head} is not in the chain: "
                               "the events up to it were deleted (the tail truncated and the "
                               f"head moved back, now id {head_id}) or rewritten")
    index.check(session, report.problems)
    return report


def _check_row(report: Report, row: Event, prev_id: int, prev_hash: str) -> None:
    if row.id != prev_id + 1:
        report.problems.append(f"events {prev_id + 1}..{row.id - 1} missing (deleted)")
    if row.prev_hash != prev_hash:
        report.problems.append(f"event {row.id}: its predecessor hash does not match event "
                               f"{prev_id} (a row was inserted, deleted or edited before it)")
    digest = link_hash(row.id, row.table_id, row.kind, row.payload, row.created_at,
                       row.prev_hash)
    if digest != row.hash:
        report.problems.append(f"event {row.id}: contents edited (hash does not recompute)")
