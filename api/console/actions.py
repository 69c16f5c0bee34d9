"""Surveillance acting on an alert: acknowledge it, confirm the camera, or correct the faces.

A roll still held (needs review, or a dealer call on a held roll) is decided through the
service's review (623a.9(c)): confirm settles the camera's faces, correct settles the
corrected faces, both through the engine, and the review event goes to the audit chain.
A roll that already settled (typically a dealer-call mismatch where the camera was wrong)
can be corrected or voided while it is still the table's latest change: the same review
puts the table back to the state it settled against and re-settles it or settles nothing
(services/correct.py); after a later roll or wager it is refused 409 `superseded` and the
person handles it at the table. A roll a review voided after it settled cannot be corrected
or voided again (409 `roll_voided`: the dice were rethrown); any other roll neither held nor
settled (the camera's no roll) cannot be either (409 `already_settled`); confirm and
acknowledge are recorded.
Every action is stored (`alert_actions`) and appended to the audit chain as `alert_action`.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from .. import audit
from ..db.console_models import AlertAction
from ..db.models import DealerCall, Roll, Table
from ..db.session import Database
from ..errors import ApiError
from ..services import review as review_svc
from ..services.correct import voided_refusal
from ..services.state import now
from .queries import console_roll

KINDS = ("dealer_call", "needs_review")
ACTIONS = ("acknowledge", "confirm", "correct", "no_roll")


def _target(db: Database, kind: str, ref: str) -> tuple[str, str]:
    """(roll id, table id) an alert refers to."""
    with db.read() as session:
        if kind == "dealer_call":
            # ASCII digits only ("²".isdigit() is true) and within a BIGINT id.
            numeric = ref.isascii() and ref.isdigit() and len(ref) <= 18
            call = session.get(DealerCall, int(ref)) if numeric else None
            # A call that agreed when made and still agrees raised no alert; one that
            # a review since made agree (or disagree) still has its alert to act on.
            if call is None or (call.matches and call.original_matches is not False):
                raise ApiError(404, "unknown_alert", f"no dealer-call alert {ref!r}")
            return call.roll_id, call.table_id
        roll = session.get(Roll, ref)
        if roll is None:
            raise ApiError(404, "unknown_alert", f"no roll {ref!r}")
        return roll.roll_id, roll.table_id


def act(db: Database, kind: str, ref: str, action: str, faces: list[int] | None, note: str,
        who: str) -> dict[str, Any]:
    """Applies one surveillance action; returns the roll's view after it.

    Raises:
        ApiError: 404 unknown alert; 409 correcting or voiding a roll that is not held
            and no longer (or never was) the table's latest settled change (`roll_voided`
            when a review voided it after it settled); 422 when the
            engine refuses the corrected faces (nothing changes).
    """
    if kind not in KINDS or action not in ACTIONS:
        raise ApiError(422, "bad_action", f"kind must be one of {KINDS}, action one of "
                       f"{ACTIONS}")
    if (action == "correct") != (faces is not None):
        raise ApiError(422, "bad_action", "faces are given with action 'correct', and only "
                       "then")
    roll_id, table_id = _target(db, kind, ref)
    with db.read() as session:
        roll = session.get(Roll, roll_id)
        status = roll.status
        voided = voided_refusal(roll, session.get(Table, table_id).game, action)
    view = None
    if (action != "acknowledge" and status == "held") or (action in ("correct", "no_roll")
                                                          and status == "settled"):
        view = review_svc.review(db, roll_id, action, faces, note, who)
    elif action in ("correct", "no_roll") and voided is not None:
        raise voided
    elif action in ("correct", "no_roll"):
        raise ApiError(409, "already_settled", f"roll {roll_id} is {status}: it cannot be "
                       f"{'voided' if action == 'no_roll' else 'corrected'} here; "
                       "acknowledge the alert and settle the dispute at the table",
                       "623a.9(c)")
    with db.write() as session:
        row = AlertAction(kind=kind, ref=ref, table_id=table_id, action=action, note=note,
                          by=who, created_at=now())
        session.add(row)
        session.flush()
        audit.append(session, [audit.Pending(table_id, "alert_action", {
            "kind": kind, "ref": ref, "roll_id": roll_id, "action": action,
            "faces": faces, "note": note, "by": who, "action_id": row.id})])
        if view is None:
            view = console_roll(session.scalars(select(Roll).where(
                Roll.roll_id == roll_id)).one())
    return view
