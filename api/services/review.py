"""Surveillance decides a held roll: confirm the camera, correct the faces, or void it.

623a.9(c): a disputed roll is decided by the boxperson or floorperson; here that person's
decision is recorded with the roll and the roll settles through the engine. Held rolls are
decided in the order they arrived, which is the order the dice were thrown: a later roll
decided first would settle against a table that has not yet seen the earlier throw (a
seven-out paid as a come-out 7). Rolls queued behind it settle afterwards, in arrival
order, up to the next held roll. A roll that already settled can be corrected or voided
while it is still the table's latest change (correct.py). Either way the roll's dealer
calls are then compared with the decision (dealer.recheck).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .. import audit
from ..db.models import Roll, Table
from ..db.session import Database
from ..errors import ApiError
from ..games.errors import RollRefused
from ..metrics import Tally
from .correct import correct_settled, void_settled, voided_refusal
from .dealer import recheck, stamp_raised
from .settle import drain, roll_view, settle_roll
from .state import load_state, locked_table, now, remember


def review(db: Database, roll_id: str, action: str, faces: list[int] | None, note: str,
           who: str) -> dict[str, Any]:
    """Applies a review to a held roll, or a correction to a settled one; returns the
    roll's current view.

    Raises:
        ApiError: 404 unknown roll; 409 `roll_voided` when a review voided it after it
            settled, else when the roll is not held (or, for `correct` and `no_roll`, not
            held nor the table's latest settled change),
            `earlier_roll_held` when a roll of the table that arrived before it is still
            held; 422 when the engine refuses the faces (nothing changes).
    """
    with db.read() as session:
        found = session.get(Roll, roll_id)
        if found is None:
            raise ApiError(404, "unknown_roll", f"no roll {roll_id!r}")
        table_id = found.table_id
    with db.write() as session:
        table = locked_table(db, session, table_id)
        roll = session.get(Roll, roll_id, populate_existing=True)
        events: list[audit.Pending] = []
        tally = Tally()
        if roll.status == "settled" and action == "correct":
            state = correct_settled(session, table, roll, faces, note, who, events, tally)
        elif roll.status == "settled" and action == "no_roll":
            state = void_settled(session, table, roll, note, who, events, tally)
        else:
            state = _decide_held(session, table, roll, action, faces, note, who, events,
                                 tally)
        # The dealer is judged by the decided faces, in this transaction: a call left
        # compared with the camera's superseded read would show a right call as a mismatch.
        raised = recheck(session, roll, events, tally)
        session.flush()
        stamp_raised(raised, audit.append(session, events))
        view = roll_view(roll)
    remember(table, state)
    tally.commit()
    return view


def _decide_held(session: Session, table: Table, roll: Roll, action: str,
                 faces: list[int] | None, note: str, who: str,
                 events: list[audit.Pending], tally: Tally) -> Any:
    """Settles or voids a held roll, then the rolls queued behind it; returns the state."""
    if roll.status != "held":
        voided = voided_refusal(roll, table.game, action)
        if voided is not None:
            raise voided
        raise ApiError(409, "not_held", f"roll {roll.roll_id} is {roll.status}, not held for "
                       "review", "623a.9(c)")
    _refuse_if_earlier_held(session, roll)
    # Rolls queued before this one settle first. Since every review drains up to the next
    # held roll there are none, except on a table reviewed before that rule (an earlier
    # review left them queued behind this roll).
    state = drain(session, table, load_state(table), events, tally)
    session.flush()
    _refuse_if_earlier_held(session, roll)  # one of them the engine refused is held now
    decided = faces if action == "correct" else json.loads(roll.faces_json)
    roll.review_json = json.dumps({"action": action, "faces": faces, "note": note,
                                   "by": who, "at": now()})
    events.append(audit.Pending(table.id, "review", {"roll_id": roll.roll_id,
                                                     "action": action, "faces": decided,
                                                     "by": who}))
    # Confirming the camera confirms its call: a no roll held only because it arrived out
    # of order (sequence_reordered) must not settle the faces of the die it voided.
    if action == "no_roll" or (action == "confirm" and roll.verdict == "no_roll"):
        roll.status = "no_roll"
    else:
        try:
            state = settle_roll(session, table, state, roll, decided, events, tally)
        except RollRefused as exc:
            raise ApiError(422, exc.code, exc.message, exc.section) from None
    table.held_rolls -= 1
    session.flush()  # the drain reads the rolls: this one is no longer held
    return drain(session, table, state, events, tally)


def _refuse_if_earlier_held(session: Session, roll: Roll) -> None:
    """409 `earlier_roll_held` naming the table's first held roll that arrived before
    `roll`: the dispute of the earlier throw is decided first (623a.9(c))."""
    earlier = session.scalars(select(Roll.roll_id).where(
        Roll.table_id == roll.table_id, Roll.status == "held",
        Roll.arrival < roll.arrival).order_by(Roll.arrival).limit(1)).first()
    if earlier is not None:
        raise ApiError(409, "earlier_roll_held", f"roll {earlier} arrived before roll "
                       f"{roll.roll_id} and is still held: review it first, the rolls of a "
                       "table settle in the order they were thrown", "623a.9(c)")
