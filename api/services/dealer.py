"""The dealer's call of a roll, compared with what the camera read.

A disagreement raises an alert: the call is stored with `matches = false` and a
`dealer_call_mismatch` event goes to the audit chain and the live stream. The camera does
not overrule the settlement by itself; surveillance follows up on the alert. When a review
then decides other faces or voids the roll (623a.9(c)), `recheck` compares each call with
that decision in the review's transaction (`dealer_call_rechecked` on the chain), so the
dealer is judged by the final result; the first comparison stays in `original_*`. A call
the review turns from a match into a mismatch raises the alert a fresh mismatch raises (the
`dealer_call_mismatch` event, the counter) and stores the event's time in
`mismatch_raised_at`, so a console action taken before it no longer handles the alert; one
it turns into a match leaves the alerts. `audit verify` holds the column to that event.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from .. import audit
from ..db.models import DealerCall, Roll
from ..db.session import Database
from ..errors import ApiError
from ..metrics import MISMATCHES, Tally
from .state import now


def camera_call(roll: Roll) -> str:
    """`no_roll` when the camera called one: recorded as such, or held with that verdict
    and not decided yet (a no roll that arrived out of order is held, sequence_reordered,
    though the camera's call stands until surveillance reviews it, 623a.8, 623a.9(c)).
    A review decides otherwise: a no roll corrected to faces has settled."""
    if roll.status == "no_roll" or (roll.status == "held" and roll.verdict == "no_roll"):
        return "no_roll"
    return roll.status


# Who the call is compared with: the camera's read, or a review's decision that differs.
_WORDS = {False: ("the camera", "read"), True: ("the review", "decided")}


def compare(status: str, camera: list[int] | None, call: dict[str, Any],
            reviewed: bool = False) -> tuple[bool, str]:
    """(matches, explanation) of a call against the camera's faces or no-roll (or, when
    `reviewed`, the faces or no roll a review decided)."""
    who, saw = _WORDS[reviewed]
    if call.get("no_roll"):
        if status == "no_roll":
            return True, "both called no roll"
        return False, f"dealer called no roll, {who} {saw} {camera}"
    if status == "no_roll" or not camera:
        return False, f"{who} called no roll"
    if call.get("faces") is not None and sorted(call["faces"]) != sorted(camera):
        return False, f"dealer called faces {call['faces']}, {who} {saw} {camera}"
    if call.get("total") is not None and call["total"] != sum(camera):
        return False, f"dealer called {call['total']}, {who} {saw} {sum(camera)}"
    return True, f"matches {who} ({camera}, total {sum(camera)})"


def _decided(roll: Roll) -> tuple[str, list[int] | None, bool]:
    """(status, faces, whether a review decided otherwise than the camera) to compare a
    call with: a review that confirms the camera's call keeps the camera's wording."""
    status = camera_call(roll)
    faces = json.loads(roll.final_faces_json or roll.faces_json) or None
    camera = json.loads(roll.faces_json) or None
    reviewed = (status == "no_roll", faces) != (roll.verdict == "no_roll", camera)
    return status, faces, reviewed


def recheck(session: Session, roll: Roll, events: list[audit.Pending], tally: Tally
            ) -> list[DealerCall]:
    """Compares every dealer call of `roll` again with what its review decided; a changed
    comparison is stored and chained (`dealer_call_rechecked`, the row check's latest word
    on the call: audit_rows). A call that matched and no longer does is a new mismatch,
    alerted and counted once (a later review that keeps it a mismatch raises nothing more).
    Runs in the review's transaction, after it.

    Returns:
        The calls raised again: `stamp_raised` gives them their event's time once appended,
        and the console's alert is open again.
    """
    calls = session.scalars(select(DealerCall).where(DealerCall.roll_id == roll.roll_id)
                            .order_by(DealerCall.id)).all()
    status, faces, reviewed = _decided(roll)
    raised = []
    for row in calls:
        matches, detail = compare(status, faces, json.loads(row.call_json), reviewed)
        if (matches, detail) == (row.matches, row.detail):
            continue
        events.append(audit.Pending(roll.table_id, "dealer_call_rechecked", {
            "call_id": row.id, "roll_id": roll.roll_id, "from_matches": row.matches,
            "matches": matches, "detail": detail,
            "faces": None if status == "no_roll" else faces}))
        if row.matches and not matches:
            # Surveillance hears of it as of a call that disagreed when made: the console's
            # toast and the stream follow the event, the counter the disagreements.
            events.append(audit.Pending(roll.table_id, "dealer_call_mismatch", {
                "roll_id": roll.roll_id, "call": json.loads(row.call_json),
                "camera_faces": None if status == "no_roll" else faces,
                "matches": False, "detail": detail, "by": row.caller, "call_id": row.id,
                "rechecked": True}))
            tally.inc(MISMATCHES)
            raised.append(row)
        row.matches, row.detail = matches, detail
    return raised


def stamp_raised(calls: list[DealerCall], appended: list[dict]) -> None:
    """Stores in each call the time of the `dealer_call_mismatch` event just appended for
    it: `audit verify` checks the column against that event (audit_rows), and the console
    opens the alert again from it."""
    at = {json.loads(e["payload"])["call_id"]: e["created_at"] for e in appended
          if e["kind"] == "dealer_call_mismatch"}
    for row in calls:
        row.mismatch_raised_at = at[row.id]


def dealer_call(db: Database, roll_id: str, call: dict[str, Any], who: str) -> dict:
    with db.write() as session:
        roll = session.get(Roll, roll_id)
        if roll is None:
            raise ApiError(404, "unknown_roll", f"no roll {roll_id!r}")
        status, camera, reviewed = _decided(roll)
        matches, detail = compare(status, camera, call, reviewed)
        at = now()
        row = DealerCall(roll_id=roll_id, table_id=roll.table_id,
                         call_json=audit.canonical(call), matches=matches, detail=detail,
                         original_matches=matches, original_detail=detail,
                         caller=who, created_at=at)
        session.add(row)
        session.flush()
        payload = {"roll_id": roll_id, "call": call, "camera_faces": camera,
                   "matches": matches, "detail": detail, "by": who, "call_id": row.id}
        events = [audit.Pending(roll.table_id, "dealer_call", payload)]
        if not matches:
            events.append(audit.Pending(roll.table_id, "dealer_call_mismatch", payload))
        appended = audit.append(session, events)
        if not matches:
            stamp_raised([row], appended)
    if not matches:
        MISMATCHES.inc()
    return {"id": row.id, "roll_id": roll_id, "table_id": row.table_id, "matches": matches,
            "detail": detail, "original_matches": matches, "original_detail": detail,
            "call": call, "camera_faces": camera, "created_at": row.created_at,
            "raised_at": row.mismatch_raised_at}


def alerts(db: Database, table_id: str | None, limit: int) -> list[dict]:
    """Dealer calls that disagree with the roll as decided, the latest raised first: a call
    a review made disagree again is news, and must not fall past the limit because its id
    is older (as in the console's list)."""
    stmt = select(DealerCall).where(DealerCall.matches.is_(False))
    if table_id:
        stmt = stmt.where(DealerCall.table_id == table_id)
    with db.read() as session:
        raised = func.coalesce(DealerCall.mismatch_raised_at, DealerCall.created_at)
        rows = session.scalars(stmt.order_by(raised.desc(), DealerCall.id.desc())
                               .limit(limit)).all()
    return [_view(r) for r in rows]


def calls_of(session: Session, roll_id: str) -> list[dict]:
    """The dealer calls of one roll in the order they were made (the roll's detail)."""
    rows = session.scalars(select(DealerCall).where(DealerCall.roll_id == roll_id)
                           .order_by(DealerCall.id)).all()
    return [_view(r) for r in rows]


def _view(row: DealerCall) -> dict:
    """A stored call as `DealerCallOut`: the camera's faces at the time are not kept."""
    return {"id": row.id, "roll_id": row.roll_id, "table_id": row.table_id,
            "matches": row.matches, "detail": row.detail,
            "original_matches": row.original_matches,
            "original_detail": row.original_detail, "call": json.loads(row.call_json),
            "camera_faces": None, "created_at": row.created_at,
            "raised_at": row.mismatch_raised_at}

