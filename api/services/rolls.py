"""Roll intake: exactly-once effect for rolls delivered at least once.

The roll's `roll_id` is the primary key of `rolls`. The intake runs in one transaction with
the table row locked, so rolls of a table are applied one at a time; a concurrent duplicate
either finds the stored roll after the lock is released, or (posted for another table) hits
the primary key and rolls back. Either way it answers with the original response, and a
different body under a known roll_id is a 409.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from sqlalchemy import Connection, bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError

from .. import audit
from ..db.models import Device, Roll, SequenceGap, Table
from ..db.session import Database
from ..errors import ApiError
from ..games.errors import RollRefused
from ..metrics import SEQUENCE
from ..schemas.rolls import RollIn
from ..security import AuthError
from ..settings import Settings
from . import evidence
from .settle import roll_view, settle_roll
from .state import load_state, now, remember


@dataclass
class Intake:
    status_code: int  # 201 first time, 200 for a replay
    body: str  # the response JSON text (the original one for a replay)
    replayed: bool
    settled: bool = False


def body_hash(roll: RollIn) -> str:
    return hashlib.sha256(audit.canonical(roll.model_dump(mode="json")).encode()).hexdigest()


def _replay(row: Any, digest: str, table_id: str) -> Intake:
    if row.body_hash != digest or row.table_id != table_id:
        raise ApiError(409, "roll_id_conflict", f"roll {row.roll_id} was already posted "
                       "with a different body")
    return Intake(200, row.response_json, True)


_ROLLS, _TABLES = Roll.__table__, Table.__table__
_DEVICES, _GAPS = Device.__table__, SequenceGap.__table__
_TABLE_COLS = ("id", "game", "state_json", "version", "round_no", "betting_open",
               "arrivals", "held_rolls")


# Built once: constructing statements per request costs more than executing them.
_SELECT_TABLE = (select(*(_TABLES.c[c] for c in _TABLE_COLS))
                 .where(_TABLES.c.id == bindparam("tid")).with_for_update())
_SELECT_ROLL = select(_ROLLS.c.roll_id, _ROLLS.c.body_hash, _ROLLS.c.table_id,
                      _ROLLS.c.response_json).where(_ROLLS.c.roll_id == bindparam("rid"))
_SELECT_DEVICE = select(_DEVICES.c.id, _DEVICES.c.table_id, _DEVICES.c.revoked,
                        _DEVICES.c.last_seq).where(_DEVICES.c.id == bindparam("did"))
_INSERT_ROLL = insert(_ROLLS)
_UPDATE_TABLE = update(_TABLES).where(_TABLES.c.id == bindparam("tid"))
_UPDATE_DEVICE = update(_DEVICES).where(_DEVICES.c.id == bindparam("did"))


class Record(SimpleNamespace):
    """A row as plain attributes: the hot path skips the ORM's unit of work, and the
    settlement code (written against the models' attribute names) works on either."""


def intake(db: Database, settings: Settings, device_id: str, table_id: str,
           roll: RollIn) -> Intake:
    """Stores, and where it can settles, one posted roll (see module docstring)."""
    digest = body_hash(roll)
    ev = roll.evidence
    stored = [evidence.store(settings.evidence_dir, b64, sha, settings.max_jpeg_bytes, which)
              for b64, sha, which in ((ev.clean_jpeg_b64, ev.clean_sha256, "clean"),
                                      (ev.annotated_jpeg_b64, ev.annotated_sha256,
                                       "annotated"))]
    try:
        with db.write_conn() as conn:
            row = conn.execute(_SELECT_TABLE, {"tid": table_id}).first()
            if row is None:
                raise ApiError(404, "unknown_table", f"no table {table_id!r}")
            table = Record(**row._mapping)
            existing = _stored(conn, roll.roll_id)
            if existing is not None:
                return _replay(existing, digest, table_id)
            result, state = _apply(conn, table, device_id, roll, digest, stored)
    except IntegrityError:
        with db.read() as session:
            existing = _stored(session.connection(), roll.roll_id)
            if existing is None:
                raise
            return _replay(existing, digest, table_id)
    if state is not None:
        remember(table, state)
    return result


def _stored(conn: Connection, roll_id: str) -> Record | None:
    row = conn.execute(_SELECT_ROLL, {"rid": roll_id}).first()
    return None if row is None else Record(**row._mapping)


def _sequence(conn: Connection, device: Record, seq: int) -> dict[str, Any]:
    """Compares `seq` with the device's highest so far; advances it."""
    last = device.last_seq
    if last is None:
        out = {"status": "first", "expected": None, "missing": None}
    elif seq == last + 1:
        out = {"status": "ok", "expected": seq, "missing": None}
    elif seq > last + 1:
        out = {"status": "gap", "expected": last + 1, "missing": [last + 1, seq - 1]}
    else:
        used = conn.execute(select(_ROLLS.c.roll_id).where(_ROLLS.c.device_id == device.id,
                                                           _ROLLS.c.seq == seq).limit(1))
        out = {"status": "repeat" if used.first() else "reordered", "expected": last + 1,
               "missing": None}
    device.last_seq = seq if last is None else max(last, seq)
    return out


def _apply(conn: Connection, table: Record, device_id: str, roll: RollIn, digest: str,
           stored: list[bool]) -> tuple[Intake, Any]:
    found = conn.execute(_SELECT_DEVICE, {"did": device_id}).first()
    if found is None or found.revoked or found.table_id != table.id:
        raise AuthError(403, "wrong_table", "this device is not bound to the table")
    device = Record(**found._mapping)
    seq = _sequence(conn, device, roll.seq)
    table.arrivals += 1
    reasons = [r.model_dump() for r in roll.reasons]
    row = Record(roll_id=roll.roll_id, table_id=table.id, device_id=device_id, seq=roll.seq,
                 arrival=table.arrivals, round_no=table.round_no, body_hash=digest,
                 verdict=roll.verdict, status="held", faces_json=json.dumps(roll.faces),
                 final_faces_json=None, settlement_json=None, review_json=None,
                 seq_status=seq["status"], received_at=now(), settled_at=None)
    events = [audit.Pending(table.id, "roll", {
        "roll_id": roll.roll_id, "device_id": device_id, "seq": roll.seq,
        "verdict": roll.verdict, "faces": roll.faces, "round": table.round_no,
        "body_sha256": digest, "evidence": [roll.evidence.clean_sha256,
                                            roll.evidence.annotated_sha256]})]
    state, held_reason = _decide(table, row, roll, seq, events)
    if held_reason is not None:
        reasons.append(held_reason)
    row.detail_json = json.dumps({
        "reasons": reasons, "confidences": roll.confidences, "sequence": seq,
        "captured_at": roll.captured_at,
        "evidence": {"clean_sha256": roll.evidence.clean_sha256,
                     "annotated_sha256": roll.evidence.annotated_sha256,
                     "clean_stored": stored[0], "annotated_stored": stored[1]}})
    row.response_json = json.dumps(roll_view(row), separators=(",", ":"))
    # The insert comes first: a duplicate primary key fails before anything else is written.
    conn.execute(_INSERT_ROLL, vars(row))
    if seq["status"] not in ("ok", "first"):
        _record_sequence(conn, table, row, seq, events)
    conn.execute(_UPDATE_TABLE, {
        "tid": table.id, "state_json": table.state_json, "version": table.version,
        "round_no": table.round_no, "betting_open": table.betting_open,
        "arrivals": table.arrivals, "held_rolls": table.held_rolls})
    conn.execute(_UPDATE_DEVICE, {"did": device_id, "last_seq": device.last_seq})
    audit.append(conn, events)
    return Intake(201, row.response_json, False, row.status == "settled"), state


def _record_sequence(conn: Connection, table: Record, row: Record, seq: dict,
                     events: list[audit.Pending]) -> None:
    SEQUENCE.labels(seq["status"]).inc()
    conn.execute(insert(_GAPS).values(
        table_id=table.id, device_id=row.device_id, roll_id=row.roll_id, kind=seq["status"],
        expected=seq["expected"], received=row.seq, created_at=row.received_at))
    events.append(audit.Pending(table.id, "sequence_gap", {
        "roll_id": row.roll_id, "device_id": row.device_id, **seq, "received": row.seq}))


def _decide(table: Record, row: Record, roll: RollIn, seq: dict,
            events: list[audit.Pending]) -> tuple[Any, dict | None]:
    """Settles, records or holds the roll; returns (new state or None, hold reason)."""
    hold = None
    if seq["status"] in ("reordered", "repeat"):
        # Settling a late roll against a table that has moved on would pay the wrong
        # wagers: a person decides (623a.9(c) dispute procedure).
        hold = {"code": f"sequence_{seq['status']}", "section": "623a.9(c)"}
    elif roll.verdict == "needs_review":
        hold = {"code": "needs_review", "section": "623a.9(c)"}
    if hold is None and roll.verdict == "no_roll":
        row.status = "no_roll"
        events.append(audit.Pending(table.id, "no_roll", {"roll_id": row.roll_id,
                                                          "reasons": [r.model_dump() for r
                                                                      in roll.reasons]}))
        return None, None
    if hold is None and table.held_rolls:
        row.status = "queued"  # behind a held roll: settled in order after its review
        return None, None
    if hold is None:
        try:
            return settle_roll(None, table, load_state(table), row, roll.faces, events), None
        except RollRefused as exc:
            hold = {"code": exc.code, "section": exc.section or ""}
    row.status = "held"
    table.held_rolls += 1
    events.append(audit.Pending(table.id, "needs_review",
                                {"roll_id": row.roll_id, "reasons": [hold]}))
    return None, hold
