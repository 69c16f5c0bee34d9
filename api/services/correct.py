"""Surveillance corrects the faces of a roll that already settled, or voids it (623a.9(c)).

The typical case is a dealer call that disagrees with the camera and the camera was wrong.
623a.9(c) lets the boxperson (floorperson at Mini-Craps) "determine which face is uppermost
or ... order the throw be void and the dice be rethrown": `correct` and `no_roll`. As at the
table, the dispute is decided before the game moves on: either is only allowed while the
roll is the table's latest change. No roll may have settled, been held or queued after it,
and the table's version must still be the one its settlement produced (a wager placed or
changed, "no more bets", a new shooter all bump it). Then the state the roll settled against
is restored and the corrected faces settle through the engine, or nothing settles; the
replaced settlement stays on record in the review, its hash in the `correction` event.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .. import audit
from ..db.models import Event, Roll, Table
from ..errors import ApiError
from ..games import serialize
from ..games.errors import RollRefused
from ..metrics import CORRECTIONS, Tally
from .rolls_batch import CALL_SECTION
from .settle import settle_roll
from .state import now


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _refuse_unless_latest(session: Session, table: Table, roll: Roll) -> None:
    refusal = latest_change_refusal(session, table, roll)
    if refusal is not None:
        raise refusal


def latest_change_refusal(session: Session, table: Table, roll: Roll) -> ApiError | None:
    """None while the settled `roll` can still be corrected or voided; else the 409
    (`superseded` naming what came after the roll, or `not_correctable`). The console
    asks it to offer the buttons, the review to decide."""
    if roll.state_before_json is None or roll.settled_version is None:
        return ApiError(409, "not_correctable", f"roll {roll.roll_id} settled before the "
                        "service kept the state it settled against; settle the dispute at "
                        "the table", CALL_SECTION[table.game])
    later = session.scalars(select(Roll).where(
        Roll.table_id == table.id, Roll.arrival > roll.arrival,
        Roll.status.in_(("settled", "held", "queued"))).order_by(Roll.arrival)).first()
    if later is not None:
        return ApiError(409, "superseded", f"roll {later.roll_id} ({later.status}) came after "
                        f"roll {roll.roll_id}; only the table's latest roll can be corrected, "
                        "settle the dispute at the table", CALL_SECTION[table.game])
    if table.version != roll.settled_version:
        return ApiError(409, "superseded", f"the table changed after roll {roll.roll_id} "
                        f"settled ({table.version - roll.settled_version} change(s): a wager "
                        "placed, reduced or removed, no more bets or a new shooter); only the "
                        "table's latest change can be corrected, settle the dispute at the "
                        "table", CALL_SECTION[table.game])
    return None


def voided_refusal(roll: Roll, game: str, action: str) -> ApiError | None:
    """409 `roll_voided` when a review voided `roll` after it settled, else None. Its throw
    was ordered void and the dice rethrown (623a.9(c)): the decision is final, and the roll
    is neither held nor settled, which `not_held` or `already_settled` would leave unsaid."""
    if roll.status != "no_roll" or not roll.review_json:
        return None
    review = json.loads(roll.review_json)
    if review.get("action") != "no_roll" or not review.get("after_settlement"):
        return None
    verb = {"correct": "corrected", "no_roll": "voided again", "confirm": "confirmed"}.get(
        action, "reviewed")
    return ApiError(409, "roll_voided", f"roll {roll.roll_id} was voided after it settled "
                    f"(by {review.get('by')}) and the dice rethrown: it cannot be {verb}; "
                    "settle the dispute at the table", CALL_SECTION[game])


def _undo(session: Session, table: Table, roll: Roll) -> dict[str, Any]:
    """Puts the table back as it stood before the settled `roll`: its state and its round
    (the settlement opened the next one; nothing happened since, the version says so).
    Returns what the review keeps of the replaced settlement; raises 409 (nothing changed)."""
    _refuse_unless_latest(session, table, roll)
    old = roll.settlement_json
    table.state_json = roll.state_before_json
    table.round_no -= 1
    return {"faces": json.loads(roll.final_faces_json), "settlement": json.loads(old),
            "settlement_sha256": _sha(old),
            "review": json.loads(roll.review_json) if roll.review_json else None}


def correct_settled(session: Session, table: Table, roll: Roll, faces: list[int], note: str,
                    who: str, events: list[audit.Pending], tally: Tally) -> Any:
    """Re-settles the settled `roll` with `faces`; returns the table's new state.

    Runs in the caller's transaction with the table row locked.

    Raises:
        ApiError: 409 `no_change` (the faces it settled with), `superseded` /
            `not_correctable` (nothing changed); 422 when the engine refuses the faces (the
            caller's transaction rolls back).
    """
    # The same faces in the same die order would settle the same money and only add a
    # correction that corrected nothing to the chain; the die order itself is a change
    # (the fairness report counts faces per die position).
    if roll.final_faces_json is not None and list(faces) == json.loads(roll.final_faces_json):
        raise ApiError(409, "no_change", f"roll {roll.roll_id} already settled with faces "
                       f"{list(faces)}: nothing to correct, its settlement stands")
    replaced = _undo(session, table, roll)
    settled: list[audit.Pending] = []
    try:
        # The roll and its lines were counted when it first settled: the re-settlement's
        # own increments are dropped and the correction is counted as one.
        state = settle_roll(session, table, serialize.loads(roll.state_before_json), roll,
                            faces, settled, Tally())
    except RollRefused as exc:
        raise ApiError(422, exc.code, exc.message, exc.section) from None
    roll.review_json = json.dumps({
        "action": "correct", "faces": faces, "note": note, "by": who, "at": now(),
        "after_settlement": True, "corrected_from": replaced})
    events.append(audit.Pending(table.id, "correction", {
        "roll_id": roll.roll_id, "action": "correct", "from_faces": replaced["faces"],
        "faces": list(faces), "from_settlement_sha256": replaced["settlement_sha256"],
        "settlement_sha256": _sha(roll.settlement_json), "note": note, "by": who}))
    events.extend(settled)
    tally.inc(CORRECTIONS, table.game)
    return state


def void_settled(session: Session, table: Table, roll: Roll, note: str, who: str,
                 events: list[audit.Pending], tally: Tally) -> Any:
    """Voids the settled `roll`: the table goes back to the state it settled against, the
    dice are rethrown and nothing settles. Returns that state; raises as `correct_settled`.
    """
    replaced = _undo(session, table, roll)
    state = serialize.loads(roll.state_before_json)
    table.version += 1  # the stored text is the state's own: no second serialization
    table.betting_open = _betting_open_before(session, table, state)
    roll.status, roll.final_faces_json, roll.settlement_json = "no_roll", None, None
    roll.settled_at = roll.settled_version = None
    roll.review_json = json.dumps({
        "action": "no_roll", "faces": None, "note": note, "by": who, "at": now(),
        "after_settlement": True, "corrected_from": replaced})
    # No settlement hash: the chain's row check then expects none stored (audit_rows).
    events.append(audit.Pending(table.id, "correction", {
        "roll_id": roll.roll_id, "action": "no_roll", "from_faces": replaced["faces"],
        "faces": None, "from_settlement_sha256": replaced["settlement_sha256"],
        "settlement_sha256": None, "note": note, "by": who}))
    tally.inc(CORRECTIONS, table.game)
    return state


def _betting_open_before(session: Session, table: Table, state: Any) -> bool:
    """Whether betting was open when the roll was thrown, in the round it was thrown in."""
    if hasattr(state, "betting_open"):  # Props & Hops, High Roll: the engine keeps it
        return state.betting_open
    # Craps has only the service's mark: closed if that round had "no more bets".
    last = session.scalars(select(Event.payload).where(
        Event.table_id == table.id, Event.kind == "betting_closed")
        .order_by(Event.id.desc()).limit(1)).first()
    return last is None or json.loads(last).get("round") != table.round_no
