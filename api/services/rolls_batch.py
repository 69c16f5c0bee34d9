"""One transaction's worth of roll intakes (see rolls.py): rows locked and read once, every
roll applied in order on top of the ones before it, written once at the end."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, bindparam, insert, select, update

from .. import audit
from ..db.models import Device, Roll, SequenceGap, Table
from ..errors import ApiError
from ..games.errors import RollRefused
from ..metrics import SEQUENCE, Tally
from ..schemas.rolls import RollIn
from ..security import AuthError
from . import rolls_pg
from .dice_sets import thrown_at
from .settle import roll_view, settle_roll
from .state import load_state, now

if TYPE_CHECKING:
    from .rolls import Posted


@dataclass
class Intake:
    status_code: int  # 201 first time, 200 for a replay
    body: str  # the response JSON text (the original one for a replay)
    replayed: bool
    settled: bool = False


def _replay(row: Any, digest: str, table_id: str) -> Intake:
    if row.body_hash != digest or row.table_id != table_id:
        raise ApiError(409, "roll_id_conflict", f"roll {row.roll_id} was already posted "
                       "with a different body")
    return Intake(200, row.response_json, True)


_ROLLS, _TABLES = Roll.__table__, Table.__table__
_DEVICES, _GAPS = Device.__table__, SequenceGap.__table__
_TABLE_COLS = rolls_pg.TABLE_COLS
_WRITTEN = _TABLE_COLS[2:]  # what a roll changes: the state and the counters


# Built once: constructing statements per request costs more than executing them. Tables are
# locked in id order, so two batches sharing tables cannot deadlock each other.
_SELECT_TABLES = (select(*(_TABLES.c[c] for c in _TABLE_COLS))
                  .where(_TABLES.c.id.in_(bindparam("tids", expanding=True)))
                  .order_by(_TABLES.c.id).with_for_update())
_SELECT_ROLLS = select(_ROLLS.c.roll_id, _ROLLS.c.body_hash, _ROLLS.c.table_id,
                       _ROLLS.c.response_json).where(
    _ROLLS.c.roll_id.in_(bindparam("rids", expanding=True)))
_SELECT_DEVICES = select(_DEVICES.c.id, _DEVICES.c.table_id, _DEVICES.c.revoked,
                         _DEVICES.c.last_seq).where(
    _DEVICES.c.id.in_(bindparam("dids", expanding=True)))
_INSERT_ROLL = insert(_ROLLS)
_INSERT_GAP = insert(_GAPS)
_UPDATE_TABLE = update(_TABLES).where(_TABLES.c.id == bindparam("tid"))
_UPDATE_DEVICE = update(_DEVICES).where(_DEVICES.c.id == bindparam("did"))


class Record(SimpleNamespace):
    """A row as plain attributes: the hot path skips the ORM's unit of work, and the
    settlement code (written against the models' attribute names) works on either."""


class Batch:
    """The rolls of one transaction: rows are locked and read once, written once at the end.

    Every roll sees the effects of the rolls before it (table state, device sequence, stored
    roll_ids), so a batch settles exactly as the same rolls would one transaction each.
    """

    def __init__(self, conn: Connection, posts: list[Posted]) -> None:
        self.conn = conn
        self.pg = conn.dialect.name == "postgresql"
        self.appends = audit.appends()  # before anything is read (rolls_pg.HeadMemory)
        keys = (sorted({p.table_id for p in posts}), sorted({p.roll.roll_id for p in posts}),
                sorted({p.device_id for p in posts}))
        if self.pg:  # the caller holds rolls_pg.explicit(conn)
            tables, stored, devices = rolls_pg.read(conn, *keys)
        else:
            tables, stored, devices = (conn.execute(stmt, {name: arg}).mappings().all()
                                       for stmt, name, arg in zip(
                                           (_SELECT_TABLES, _SELECT_ROLLS, _SELECT_DEVICES),
                                           ("tids", "rids", "dids"), keys, strict=True))
        self.tables = {r["id"]: Record(**r) for r in tables}
        self.stored = {r["roll_id"]: Record(**r) for r in stored}
        self.devices = {r["id"]: Record(**r) for r in devices}
        self.states: dict[str, Any] = {}  # table id -> state after this batch's settlements
        self.rows: list[dict] = []
        self.gaps: list[dict] = []
        self.events: list[audit.Pending] = []
        self.tally = Tally()  # counted by rolls.apply_batch once the batch committed
        self.dirty_tables: dict[str, Record] = {}
        self.dirty_devices: dict[str, Record] = {}

    def apply(self, post: Posted) -> Intake | ApiError | AuthError:
        try:
            table = self.tables.get(post.table_id)
            if table is None:
                raise ApiError(404, "unknown_table", f"no table {post.table_id!r}")
            existing = self.stored.get(post.roll.roll_id)
            if existing is not None:
                return _replay(existing, post.digest, post.table_id)
            device = self.devices.get(post.device_id)
            if device is None or device.revoked or device.table_id != table.id:
                raise AuthError(403, "wrong_table", "this device is not bound to the table")
            return self._apply(table, device, post)
        except (ApiError, AuthError) as exc:  # raised before this roll changed anything
            return exc

    def _state(self, table: Record) -> Any:
        state = self.states.get(table.id)
        return state if state is not None else load_state(table)

    def _sequence(self, device: Record, seq: int) -> dict[str, Any]:
        """Compares `seq` with the device's highest so far; advances it."""
        last = device.last_seq
        if last is None:
            out = {"status": "first", "expected": None, "missing": None}
        elif seq == last + 1:
            out = {"status": "ok", "expected": seq, "missing": None}
        elif seq > last + 1:
            out = {"status": "gap", "expected": last + 1, "missing": [last + 1, seq - 1]}
        else:
            used = any(r["device_id"] == device.id and r["seq"] == seq for r in self.rows)
            used = used or self.conn.execute(select(_ROLLS.c.roll_id).where(
                _ROLLS.c.device_id == device.id, _ROLLS.c.seq == seq).limit(1)).first()
            out = {"status": "repeat" if used else "reordered", "expected": last + 1,
                   "missing": None}
        device.last_seq = seq if last is None else max(last, seq)
        return out

    def _apply(self, table: Record, device: Record, post: Posted) -> Intake:
        roll, device_id = post.roll, device.id
        seq = self._sequence(device, roll.seq)
        table.arrivals += 1
        reasons = [r.model_dump(exclude_none=True) for r in roll.reasons]
        received = now()
        row = Record(roll_id=roll.roll_id, table_id=table.id, device_id=device_id,
                     seq=roll.seq, arrival=table.arrivals, round_no=table.round_no,
                     body_hash=post.digest, verdict=roll.verdict, status="held",
                     faces_json=json.dumps(roll.faces), final_faces_json=None,
                     settlement_json=None, review_json=None, seq_status=seq["status"],
                     state_before_json=None, settled_version=None,
                     received_at=received, settled_at=None,
                     captured_at=thrown_at(roll.captured_at, received))
        self.events.append(audit.Pending(table.id, "roll", {
            "roll_id": roll.roll_id, "device_id": device_id, "seq": roll.seq,
            "verdict": roll.verdict, "faces": roll.faces, "round": table.round_no,
            "body_sha256": post.digest, "captured_at": row.captured_at,
            "evidence": [roll.evidence.clean_sha256, roll.evidence.annotated_sha256]}))
        state, held_reason = _decide(table, row, roll, seq, self.events, self.tally, self._state)
        if seq["status"] not in ("ok", "first"):
            self._record_sequence(table, row, seq)
        if state is not None:
            self.states[table.id] = state
        if held_reason is not None:
            reasons.append(held_reason)
        row.detail_json = json.dumps({
            "reasons": reasons, "confidences": roll.confidences, "sequence": seq,
            "captured_at": roll.captured_at,
            "evidence": {"clean_sha256": roll.evidence.clean_sha256,
                         "annotated_sha256": roll.evidence.annotated_sha256,
                         "clean_stored": post.stored[0], "annotated_stored": post.stored[1]}})
        row.response_json = _response_text(row)
        self.rows.append(vars(row))
        self.stored[roll.roll_id] = row  # a repeat later in this batch is a replay
        self.dirty_tables[table.id] = table
        self.dirty_devices[device_id] = device
        return Intake(201, row.response_json, False, row.status == "settled")

    def _record_sequence(self, table: Record, row: Record, seq: dict) -> None:
        self.tally.inc(SEQUENCE, seq["status"])
        self.gaps.append({"table_id": table.id, "device_id": row.device_id,
                          "roll_id": row.roll_id, "kind": seq["status"],
                          "expected": seq["expected"], "received": row.seq,
                          "created_at": row.received_at})
        self.events.append(audit.Pending(table.id, "sequence_gap", {
            "roll_id": row.roll_id, "device_id": row.device_id, **seq,
            "received": row.seq}))

    def flush(self) -> None:
        """Writes the batch: rolls first (a duplicate roll_id fails before anything else).
        On PostgreSQL it also commits, in the same round trip (rolls_pg.py); on SQLite the
        caller's transaction commits."""
        if self.pg:
            return rolls_pg.flush(self)
        conn = self.conn
        if self.rows:
            conn.execute(_INSERT_ROLL, self.rows)
        if self.gaps:
            conn.execute(_INSERT_GAP, self.gaps)
        if self.dirty_tables:
            conn.execute(_UPDATE_TABLE, [{"tid": t.id, **{c: getattr(t, c) for c in _WRITTEN}}
                                         for t in self.dirty_tables.values()])
        if self.dirty_devices:
            conn.execute(_UPDATE_DEVICE, [{"did": d.id, "last_seq": d.last_seq}
                                          for d in self.dirty_devices.values()])
        audit.append(conn, self.events)


def _response_text(row: Record) -> str:
    """The roll's view as JSON text. The settlement (most of it) is spliced in as already
    serialized instead of parsed and serialized again; `"settlement":null` can only be the
    key itself, since quotes inside strings are escaped."""
    settlement, row.settlement_json = row.settlement_json, None
    text = json.dumps(roll_view(row), separators=(",", ":"))
    row.settlement_json = settlement
    if settlement is None:
        return text
    return text.replace('"settlement":null', '"settlement":' + settlement, 1)


# Where each game says how a roll is called; a held roll cites it (the Craps chapter's
# dispute procedure, 623a.9(c); the call of the dice in 668a.3(h) and 675a.4(d)).
CALL_SECTION = {"craps": "623a.9(c)", "mini-craps": "623a.9(c)",
                "props-and-hops": "668a.3(h)", "high-roll-dice": "675a.4(d)",
                "high-roll-dice-6": "675a.6(h)"}


# The verdict's findings that never leave a roll valid, in any game (docs/verdicts.md's
# table; phase_unknown is the edge's). A device that calls a roll `valid` and also reports
# one of these (or a finding whose own status is not `valid`) contradicts itself, and no
# settlement may rest on a die its own reader voided or doubted: a person decides.
NOT_VALID_CODES = frozenset({
    "die_missing", "die_on_die", "off_floor", "cocked", "cocked_doubt", "cocked_void",
    "void_doubt", "cocked_near_edge", "lamps_tilted",
    "extra_object", "low_confidence", "readings_disagree", "reading_invalid",
    "die_partly_hidden", "on_zone_edge", "dice_overlap", "die_faint", "die_doubtful",
    "phase_unknown"})


def contradicting(roll: RollIn) -> list[str]:
    """The codes of `roll`'s findings that a `valid` call contradicts."""
    if roll.verdict != "valid":
        return []
    return [r.code for r in roll.reasons
            if r.code in NOT_VALID_CODES or r.code.startswith("rest_on_")
            or r.status not in (None, "valid")]


def _decide(table: Record, row: Record, roll: RollIn, seq: dict, events: list[audit.Pending],
            tally: Tally, state_of: Callable[[Record], Any]) -> tuple[Any, dict | None]:
    """Settles, records or holds the roll; returns (new state or None, hold reason)."""
    hold = None
    if seq["status"] in ("reordered", "repeat"):
        # Settling a late roll against a table that has moved on would pay the wrong
        # wagers: a person decides (623a.9(c) dispute procedure).
        hold = {"code": f"sequence_{seq['status']}", "section": CALL_SECTION[table.game]}
    elif roll.verdict == "needs_review":
        hold = {"code": "needs_review", "section": CALL_SECTION[table.game]}
    elif contradicting(roll):
        hold = {"code": "verdict_contradicts_reasons", "section": CALL_SECTION[table.game]}
    if hold is None and roll.verdict == "no_roll":
        row.status = "no_roll"
        reasons = [r.model_dump(exclude_none=True) for r in roll.reasons]
        events.append(audit.Pending(table.id, "no_roll", {"roll_id": row.roll_id,
                                                          "reasons": reasons}))
        return None, None
    if hold is None and table.held_rolls:
        row.status = "queued"  # behind a held roll: settled in order after its review
        return None, None
    if hold is None:
        try:
            return settle_roll(None, table, state_of(table), row, roll.faces, events, tally), None
        except RollRefused as exc:
            hold = {"code": exc.code, "section": exc.section or ""}
    row.status = "held"
    table.held_rolls += 1
    events.append(audit.Pending(table.id, "needs_review",
                                {"roll_id": row.roll_id, "reasons": [hold]}))
    return None, hold
