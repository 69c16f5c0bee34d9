"""Settling a stored roll through the engine, and the views of a roll.

Used by the intake (a valid roll), by a surveillance review (a held roll) and by the drain of
rolls queued behind a held one. Each runs inside the caller's transaction with the table
row locked.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .. import audit
from ..db.models import Roll, Table
from ..games.errors import RollRefused
from ..games.model import Settlement
from ..games.registry import get
from ..metrics import SETTLED_LINES, SETTLEMENTS, Tally
from .state import now, save_state


def settlement_view(s: Settlement) -> dict[str, Any]:
    """A Settlement as JSON data; remainders are exact fractions of a cent, as strings."""
    lines = [{"wager_id": ln.wager_id, "name": ln.name, "seat": ln.seat,
              "result": ln.result, "stake": ln.stake, "paid": ln.paid,
              "returned": ln.returned, "collected": ln.collected, "stays": ln.stays,
              "remainder": str(ln.remainder), "section": ln.section, "note": ln.note}
             for ln in s.lines]
    return {"faces": list(s.faces), "lines": lines, "paid": s.paid,
            "collected": s.collected, "remainder": str(s.remainder),
            "events": list(s.events)}


def settle_roll(session: Session | None, table: Any, state: Any, roll: Any, faces: list[int],
                events: list[audit.Pending], tally: Tally) -> Any:
    """Settles `faces` on the table for `roll`; returns the next state. Its counters go to
    `tally`, made by the caller once its transaction committed.

    Raises:
        RollRefused: the engine refuses the faces (wrong number of dice...); the caller's
            transaction is then rolled back or the roll held.
    """
    result = get(table.game).settle(state, faces)
    view = settlement_view(result)
    text = json.dumps(view, separators=(",", ":"))
    roll.status, roll.final_faces_json = "settled", json.dumps(list(result.faces))
    roll.settlement_json, roll.settled_at = text, now()
    # The stored text of `state` (every caller keeps the row's text in step with the state
    # it passes): kept by reference, no second serialization on the hot path.
    roll.state_before_json = table.state_json
    save_state(table, result.state)
    roll.settled_version = table.version
    table.round_no += 1
    # The next round opens with the roll (668a.3(e), 675a.4), except while the High Roll
    # Extra Roll is pending: the engine keeps betting closed then (675a.4(e),(g)).
    table.betting_open = getattr(result.state, "betting_open", True)
    events.append(audit.Pending(table.id, "settlement", {
        "roll_id": roll.roll_id, "round": roll.round_no, "faces": view["faces"],
        "paid": view["paid"], "collected": view["collected"],
        "remainder": view["remainder"], "lines": len(view["lines"]),
        "table_events": view["events"],
        "settlement_sha256": hashlib.sha256(text.encode()).hexdigest()}))
    tally.inc(SETTLEMENTS, table.game)
    for line in result.lines:
        tally.inc(SETTLED_LINES, line.result)
    return result.state


def drain(session: Session, table: Table, state: Any, events: list[audit.Pending],
          tally: Tally) -> Any:
    """Settles the rolls queued behind held ones, in arrival order, up to the next held
    roll or one the engine refuses: a roll thrown after a held one waits for its review,
    whichever order the reviews come in (623a.9(c))."""
    waiting = session.scalars(select(Roll).where(Roll.table_id == table.id,
                                                 Roll.status.in_(("held", "queued")))
                              .order_by(Roll.arrival)).all()
    for roll in waiting:
        if roll.status == "held":
            break
        try:
            state = settle_roll(session, table, state, roll, json.loads(roll.faces_json),
                                events, tally)
        except RollRefused as exc:
            # The table moved on while it waited (e.g. an Extra Roll needs fewer dice):
            # a person decides, and the rolls behind it wait again.
            roll.status = "held"
            table.held_rolls += 1
            events.append(audit.Pending(table.id, "needs_review", {
                "roll_id": roll.roll_id, "reasons": [exc.as_dict()]}))
            break
    return state


def roll_view(roll: Any) -> dict[str, Any]:
    """The current view of a stored roll (GET); the intake stores its first one."""
    detail = json.loads(roll.detail_json)
    return {"roll_id": roll.roll_id, "table_id": roll.table_id, "device_id": roll.device_id,
            "seq": roll.seq, "round": roll.round_no, "verdict": roll.verdict,
            "status": roll.status, "faces": json.loads(roll.faces_json),
            "final_faces": json.loads(roll.final_faces_json) if roll.final_faces_json
            else None,
            "reasons": detail["reasons"], "sequence": detail["sequence"],
            "settlement": json.loads(roll.settlement_json) if roll.settlement_json else None,
            "received_at": roll.received_at, "settled_at": roll.settled_at,
            "review": json.loads(roll.review_json) if roll.review_json else None}
