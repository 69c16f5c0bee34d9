"""Surveillance corrects the faces of a roll that already settled (623a.9(c)).

The typical case is a dealer call that disagrees with the camera and the camera was wrong.
As at the table, the dispute is decided before the game moves on: the correction is only
allowed while the roll is the table's latest change. No roll may have settled, been held or
queued after it, and the table's version must still be the one its settlement produced (a
wager placed or changed, "no more bets", a new shooter all bump it). Then the state the
roll settled against is restored, the corrected faces settle through the engine, and both
settlements stay on record: the first in the review, both hashes in the `correction` event.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .. import audit
from ..db.models import Roll, Table
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
    """409 `superseded` naming what came after the roll, or `not_correctable`."""
    if roll.state_before_json is None or roll.settled_version is None:
        raise ApiError(409, "not_correctable", f"roll {roll.roll_id} settled before the "
                       "service kept the state it settled against; settle the dispute at "
                       "the table", CALL_SECTION[table.game])
    later = session.scalars(select(Roll).where(
        Roll.table_id == table.id, Roll.arrival > roll.arrival,
        Roll.status.in_(("settled", "held", "queued"))).order_by(Roll.arrival)).first()
    if later is not None:
        raise ApiError(409, "superseded", f"roll {later.roll_id} ({later.status}) came after "
                       f"roll {roll.roll_id}; only the table's latest roll can be corrected, "
                       "settle the dispute at the table", CALL_SECTION[table.game])
    if table.version != roll.settled_version:
        raise ApiError(409, "superseded", f"the table changed after roll {roll.roll_id} "
                       f"settled ({table.version - roll.settled_version} change(s): a wager "
                       "placed, reduced or removed, no more bets or a new shooter); only the "
                       "table's latest change can be corrected, settle the dispute at the "
                       "table", CALL_SECTION[table.game])


def correct_settled(session: Session, table: Table, roll: Roll, faces: list[int], note: str,
                    who: str, events: list[audit.Pending], tally: Tally) -> Any:
    """Re-settles the settled `roll` with `faces`; returns the table's new state.

    Runs in the caller's transaction with the table row locked.

    Raises:
        ApiError: 409 `superseded` / `not_correctable` (nothing changed); 422 when the
            engine refuses the faces (the caller's transaction rolls back).
    """
    _refuse_unless_latest(session, table, roll)
    old_faces = json.loads(roll.final_faces_json)
    old_settlement = roll.settlement_json
    previous_review = json.loads(roll.review_json) if roll.review_json else None
    # Back to the table as it stood before the roll: its state and its round (the
    # settlement opened the next one; nothing happened since, the version says so).
    table.state_json = roll.state_before_json
    table.round_no -= 1
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
        "after_settlement": True,
        "corrected_from": {"faces": old_faces, "settlement": json.loads(old_settlement),
                           "settlement_sha256": _sha(old_settlement),
                           "review": previous_review}})
    events.append(audit.Pending(table.id, "correction", {
        "roll_id": roll.roll_id, "from_faces": old_faces, "faces": list(faces),
        "from_settlement_sha256": _sha(old_settlement),
        "settlement_sha256": _sha(roll.settlement_json), "note": note, "by": who}))
    events.extend(settled)
    tally.inc(CORRECTIONS, table.game)
    return state
