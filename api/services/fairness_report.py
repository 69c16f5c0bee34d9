"""The dice fairness report of a table over a shift or a date range, one test per dice set.

Dice that fail inspection are removed from use (603a.13), so the question a report answers
is "are these dice fair?", asked of each set apart: faces of two sets pooled into one
chi-square would hide a loaded die behind a fair one, or blame the new set for the old
one's bias. Rolls are matched to the set in service when they were thrown by a range join
here (services/dice_sets.py says why not at intake). Rolls thrown while the table had no
set recorded form a group of their own.

The faces counted are those each roll settled with (after any review), from settled rolls;
no-rolls and held rolls are left out.
"""

from __future__ import annotations

import json
from collections import defaultdict

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from ..db.models import DiceSet, Roll, Table
from ..db.session import Database
from ..errors import ApiError
from .dice_sets import get_set, overlapping, view
from .fairness import SECTION, fairness
from .fairness_svg import report_svg
from .state import read_table

# When the dice were thrown; rolls stored before revision 0004 have only their arrival.
_thrown = func.coalesce(Roll.captured_at, Roll.received_at)


def _earlier(a: float | None, b: float | None) -> float | None:
    """The earlier of two ends, None meaning "still open"."""
    return b if a is None else a if b is None else min(a, b)


def _faces_by_set(session: Session, table_id: str, start: float, end: float | None
                  ) -> dict[str | None, list[list[int]]]:
    """Faces of the settled rolls thrown in [start, end), keyed by the dice set in service
    at that moment (None: no set recorded). Sets never overlap, so each roll joins one."""
    in_service = and_(DiceSet.table_id == Roll.table_id, DiceSet.put_in_service_at <= _thrown,
                      or_(DiceSet.retired_at.is_(None), DiceSet.retired_at > _thrown))
    stmt = (select(Roll.final_faces_json, DiceSet.id).outerjoin(DiceSet, in_service)
            .where(Roll.table_id == table_id, Roll.status == "settled", _thrown >= start))
    if end is not None:
        stmt = stmt.where(_thrown < end)
    out: dict[str | None, list[list[int]]] = defaultdict(list)
    for faces, set_id in session.execute(stmt):
        if faces:
            out[set_id].append(json.loads(faces))
    return out


def _group(dice_set: DiceSet | None, start: float, end: float | None,
           rolls: list[list[int]], alpha: float) -> dict:
    tested = fairness(rolls, alpha)
    return {"dice_set": view(dice_set) if dice_set is not None else None, "start": start,
            "end": end, "rolls": len(rolls), "tests": tested["tests"],
            "alert": tested["alert"], "biased": tested["biased"]}


def _groups(session: Session, table_id: str, start: float, end: float | None,
            dice_set_id: str | None, alpha: float) -> tuple[float, float | None, list[dict]]:
    if dice_set_id is not None:
        ds = get_set(session, table_id, dice_set_id)
        # No range given: the set's whole time in service.
        lo = ds.put_in_service_at if start is None else max(start, ds.put_in_service_at)
        hi = _earlier(end, ds.retired_at)
        if hi is not None and hi <= lo:
            raise ApiError(422, "bad_range", f"dice set {ds.label!r} was not in service "
                           "between start and end", SECTION)
        rolls = _faces_by_set(session, table_id, lo, hi).get(ds.id, [])
        return lo, hi, [_group(ds, lo, hi, rolls, alpha)]
    if start is None:
        raise ValueError("start is required without a dice set")
    if end is not None and end <= start:
        raise ApiError(422, "bad_range", "end must be after start")
    by_set = _faces_by_set(session, table_id, start, end)
    sets = overlapping(session, table_id, start, end)
    groups = []
    loose = by_set.pop(None, [])
    if loose or not sets:
        groups.append(_group(None, start, end, loose, alpha))
    for ds in sets:
        groups.append(_group(ds, max(start, ds.put_in_service_at),
                             _earlier(end, ds.retired_at), by_set.get(ds.id, []), alpha))
    return start, end, groups


def report(db: Database, table_id: str, start: float | None, end: float | None,
           alpha: float, dice_set_id: str | None = None) -> dict:
    """The fairness report of one table's settled rolls thrown in [start, end).

    With `dice_set_id`, only that set's rolls, in [start, end) intersected with its time in
    service (all of it when start and end are None). Without, one group per set in service
    at some time in the range. `start` may be None only with a dice set.
    """
    with db.read() as session:
        table = read_table(session, table_id)
        lo, hi, groups = _groups(session, table_id, start, end, dice_set_id, alpha)
    out = {"table_id": table.id, "table": table.name, "game": table.game,
           "dice_set_id": dice_set_id, "start": lo, "end": hi,
           "rolls": sum(g["rolls"] for g in groups), "alpha": alpha, "section": SECTION,
           "sets": groups, "alert": any(g["alert"] for g in groups)}
    out["svg"] = report_svg(out)
    return out


def sweep(db: Database, start: float, alpha: float) -> list[dict]:
    """Every dice set whose faces look biased since `start`: the fairness alerts of the
    shift, one per table and set."""
    with db.read() as session:
        ids = session.scalars(select(Table.id).order_by(Table.name)).all()
    out = []
    for table_id in ids:
        r = report(db, table_id, start, None, alpha)
        for g in r["sets"]:
            if g["alert"]:
                ds = g["dice_set"]
                out.append({"table_id": table_id, "table": r["table"], "rolls": g["rolls"],
                            "dice_set": {"id": ds["id"], "label": ds["label"]} if ds
                            else None, "alpha": alpha, "section": r["section"],
                            "start": g["start"],
                            "biased": [{"label": t["label"], "p_value": t["p_value"]}
                                       for t in g["tests"] if t["biased"]]})
    return out
