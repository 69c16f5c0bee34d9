"""What the console shows: the table grid, a table's roll history, and open alerts.

Read-only queries over the service's tables; the views reuse `roll_view` so the console
shows exactly what the API answers, plus the evidence hashes to draw the frames.
"""

from __future__ import annotations

import json
import time
from typing import Any

from sqlalchemy import func, or_, select

from ..db.console_models import AlertAction
from ..db.models import DealerCall, DiceSet, Roll, Table
from ..db.session import Database
from ..services.correct import latest_change_refusal
from ..services.dice_due import dice_due
from ..services.settle import roll_view
from ..services.state import read_table


def console_roll(roll: Roll) -> dict[str, Any]:
    """`roll_view` plus evidence hashes and whether the JPEGs were stored."""
    view = roll_view(roll)
    detail = json.loads(roll.detail_json)
    view["evidence"] = detail.get("evidence")
    view["confidences"] = detail.get("confidences") or []
    view["arrival"] = roll.arrival
    return view


def grid(db: Database, max_age_hours: float = 24.0, warn_hours: float = 1.0
         ) -> list[dict[str, Any]]:
    """Every table with its last roll (by arrival), its count of open alerts and when its
    dice must be changed (`dice`, services/dice_due.py)."""
    at = time.time()
    with db.read() as session:
        since = dict(session.execute(select(DiceSet.table_id, DiceSet.put_in_service_at)
                                     .where(DiceSet.retired_at.is_(None))).all())
        tables = session.scalars(select(Table).order_by(Table.name)).all()
        mismatches = session.execute(select(DealerCall.table_id, DealerCall.id,
                                            DealerCall.mismatch_raised_at)
                                     .where(DealerCall.matches.is_(False))).all()
        acted = _last_actions(session)
        out = []
        for t in tables:
            last = session.scalars(select(Roll).where(Roll.table_id == t.id)
                                   .order_by(Roll.arrival.desc()).limit(1)).first()
            open_alerts = t.held_rolls + sum(
                1 for tid, cid, raised in mismatches
                if tid == t.id and call_open(False, raised, acted.get(str(cid))))
            out.append({"id": t.id, "name": t.name, "game": t.game, "round": t.round_no,
                        "betting_open": t.betting_open, "held_rolls": t.held_rolls,
                        "open_alerts": open_alerts,
                        "dice": dice_due(t.game, since.get(t.id), at, max_age_hours,
                                         warn_hours),
                        "last_roll": console_roll(last) if last is not None else None})
    return out


def _matches(view: dict[str, Any], q: str) -> bool:
    """A free-text search: roll id prefix, status, verdict, reason code or faces "3,4"."""
    q = q.strip().lower()
    if not q:
        return True
    faces = ",".join(str(f) for f in (view["final_faces"] or view["faces"]))
    words = [view["roll_id"], view["status"], view["verdict"], faces,
             *(r["code"] for r in view["reasons"])]
    if view["review"]:
        words.append(f"reviewed {view['review'].get('action', '')}")
    return any(w.lower().startswith(q) or q in w.lower() for w in words)


def history(db: Database, table_id: str, start: float | None, end: float | None, q: str,
            limit: int) -> dict[str, Any]:
    """A table's rolls between `start` and `end` (Unix s, default the last shift), newest
    first, filtered by `q`."""
    with db.read() as session:
        table = read_table(session, table_id)
        stmt = select(Roll).where(Roll.table_id == table_id)
        if start is not None:
            stmt = stmt.where(Roll.received_at >= start)
        if end is not None:
            stmt = stmt.where(Roll.received_at < end)
        rows = session.scalars(stmt.order_by(Roll.arrival.desc()).limit(5000)).all()
        views = [console_roll(r) for r in rows]
        total = session.scalar(select(func.count()).select_from(Roll)
                               .where(Roll.table_id == table_id))
    found = [v for v in views if _matches(v, q)]
    return {"table": {"id": table.id, "name": table.name, "game": table.game},
            "start": start, "end": end, "total_rolls": total, "matched": len(found),
            "rolls": found[:limit]}


def alerts(db: Database, include_handled: bool = False, limit: int = 200) -> list[dict]:
    """Dealer-call mismatches and rolls held for review, newest first, with what
    surveillance did about each."""
    with db.read() as session:
        # A call a review made agree stays listed (handled) with the comparison it raised.
        # Newest raise first: an old call a review made disagree again is news, and must
        # not fall behind the limit because of its id.
        raised = func.coalesce(DealerCall.mismatch_raised_at, DealerCall.created_at)
        calls = session.scalars(select(DealerCall).where(or_(
            DealerCall.matches.is_(False), DealerCall.original_matches.is_(False)))
            .order_by(raised.desc(), DealerCall.id.desc()).limit(limit)).all()
        held = session.scalars(select(Roll).where(Roll.status == "held")
                               .order_by(Roll.received_at.desc()).limit(limit)).all()
        refs = [str(c.id) for c in calls] + [r.roll_id for r in held]
        actions: dict[str, list[dict]] = {}
        for a in session.scalars(select(AlertAction).where(AlertAction.ref.in_(refs))
                                 .order_by(AlertAction.id)).all():
            actions.setdefault(a.ref, []).append({"action": a.action, "by": a.by,
                                                  "note": a.note, "at": a.created_at})
        rolls = {r.roll_id: r for r in held}
        for c in calls:
            if c.roll_id not in rolls:
                rolls[c.roll_id] = session.get(Roll, c.roll_id)
        names = dict(session.execute(select(Table.id, Table.name)).all())
        out = []
        for c in calls:
            out.append({"kind": "dealer_call", "ref": str(c.id), "table_id": c.table_id,
                        "table": names.get(c.table_id), "at": c.created_at,
                        "detail": c.detail, "call": json.loads(c.call_json),
                        "matches": c.matches, "original_matches": c.original_matches,
                        "original_detail": c.original_detail,
                        "raised_at": c.mismatch_raised_at,
                        "roll": console_roll(rolls[c.roll_id]),
                        "actions": actions.get(str(c.id), [])})
        for r in held:
            out.append({"kind": "needs_review", "ref": r.roll_id, "table_id": r.table_id,
                        "table": names.get(r.table_id), "at": r.received_at,
                        "detail": ", ".join(dict.fromkeys(
                            x["code"] for x in json.loads(r.detail_json)["reasons"])),
                        "call": None, "roll": console_roll(r),
                        "actions": actions.get(r.roll_id, [])})
        for a in out:
            # Open: a held roll, or a mismatch the decision did not settle and nobody acted
            # on since it was last raised.
            last = max((x["at"] for x in a["actions"]), default=None)
            a["open"] = a["roll"]["status"] == "held" or (
                a["kind"] == "dealer_call"
                and call_open(a["matches"], a["raised_at"], last))
            a["correctable"] = _correctable(session, rolls[a["roll"]["roll_id"]])
    if not include_handled:
        out = [a for a in out if a["open"]]
    out.sort(key=lambda a: a.get("raised_at") or a["at"], reverse=True)
    return out[:limit]


def call_open(matches: bool, raised_at: float | None, acted_at: float | None) -> bool:
    """Whether a dealer-call alert is open: the call disagrees with the roll as decided and
    no console action on it is as recent as its mismatch's last raise (a review can make it
    agree, then disagree again after surveillance handled it). An action at the raise's
    own instant or later handles it: a correction pressed on the alert reviews first,
    then records the action."""
    if matches is not False:
        return False
    if acted_at is None:
        return True
    return raised_at is not None and acted_at < raised_at


def _last_actions(session) -> dict[str, float]:
    """Each dealer-call alert's latest console action time, by ref."""
    return dict(session.execute(select(AlertAction.ref, func.max(AlertAction.created_at))
                                .where(AlertAction.kind == "dealer_call")
                                .group_by(AlertAction.ref)).all())


def _correctable(session, roll: Roll) -> bool:
    """Whether the console offers Correct and No roll: a held roll, or a settled one while
    it is the table's latest change (623a.9(c)). The review decides again when pressed."""
    if roll.status == "held":
        return True
    return roll.status == "settled" and latest_change_refusal(
        session, session.get(Table, roll.table_id), roll) is None


def shift_start(hours: float) -> float:
    return time.time() - hours * 3600.0
