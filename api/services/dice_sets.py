"""Dice sets: the dice in play on a table, put in service by surveillance or an admin.

Dice are received, inspected before play and removed from use under 58 Pa. Code 603a.13
(cited by 668a.3(a) for Props & Hops and 675a.3(a) for High Roll); Craps dice are changed
at least every 24 hours and when they show signs of tampering (623a.7(d)), shaker dice stay
on a table no more than 24 hours (668a.3(b)(1), 675a.3(b)(1); `dice_due`). Each change is
recorded here so the fairness report can test every set apart. One set per table is in
service at a time: putting a new one in service retires the one before at the same instant,
in one transaction with the table row locked, and both changes go to the audit chain.

A roll belongs to the set in service when it was thrown (`Roll.captured_at`); that is
resolved by a range join when a report is asked for, not at intake, so the intake reads
nothing more and a roll the edge held back during an outage still counts for the dice it
was thrown with.
"""

from __future__ import annotations

import math

from sqlalchemy import desc, select
from sqlalchemy.orm import Session

from .. import audit
from ..db.models import DiceSet
from ..db.session import Database
from ..errors import ApiError
from .dice_due import dice_due
from .state import locked_table, new_id, now, read_table

SECTION = "603a.13"


def thrown_at(captured: float | None, received: float) -> float:
    """When a roll's dice were thrown, on the service's clock.

    The edge's `captured_at` is trusted up to its arrival: a device only gets a roll in
    while its clock is within the replay window of ours, so a capture stamped later than
    the arrival is that skew, clamped. A missing or non-finite stamp counts as the arrival.
    """
    if captured is None or not math.isfinite(captured) or captured < 0:
        return received
    return min(captured, received)


def view(row: DiceSet) -> dict:
    return {"id": row.id, "table_id": row.table_id, "label": row.label,
            "put_in_service_at": row.put_in_service_at,
            "put_in_service_by": row.put_in_service_by, "retired_at": row.retired_at,
            "retired_by": row.retired_by, "in_service": row.retired_at is None}


def in_service(session: Session, table_id: str) -> DiceSet | None:
    return session.scalars(select(DiceSet).where(DiceSet.table_id == table_id,
                                                 DiceSet.retired_at.is_(None))).one_or_none()


def put_in_service(db: Database, table_id: str, label: str, who: str) -> dict:
    """Puts a new set of dice in service on the table, retiring the one in service.

    Returns:
        {"dice_set": the new set, "retired": the set it replaced or None}.
    """
    label = label.strip()
    if not label:
        raise ApiError(422, "bad_label", "the label (e.g. the dice's serial numbers) is "
                       "empty", SECTION)
    with db.write() as session:
        locked_table(db, session, table_id)  # serializes changes of this table's dice
        current = in_service(session, table_id)
        at = now()
        events = []
        if current is not None:
            # A clock stepped back must not give the old set an interval ending before it
            # began: the new set starts no earlier than the old one did.
            at = max(at, current.put_in_service_at)
            current.retired_at, current.retired_by = at, who
            session.flush()  # before the insert: the in-service index allows one row
            events.append(audit.Pending(table_id, "dice_set_retired", {
                "dice_set_id": current.id, "label": current.label, "retired_at": at,
                "by": who}))
        new = DiceSet(id=new_id(), table_id=table_id, label=label, put_in_service_at=at,
                      put_in_service_by=who, retired_at=None, retired_by=None)
        session.add(new)
        session.flush()
        events.append(audit.Pending(table_id, "dice_set_in_service", {
            "dice_set_id": new.id, "label": label, "put_in_service_at": at, "by": who,
            "replaces": current.id if current is not None else None}))
        audit.append(session, events)
        return {"dice_set": view(new),
                "retired": view(current) if current is not None else None}


def list_sets(db: Database, table_id: str, max_age_hours: float = 24.0,
              warn_hours: float = 1.0) -> list[dict]:
    """The table's dice sets, the one in service (the newest) first.

    Each has `due`: for the set in service, when it must be changed (services/dice_due.py);
    None for a retired set.
    """
    at = now()
    with db.read() as session:
        table = read_table(session, table_id)
        rows = session.scalars(select(DiceSet).where(DiceSet.table_id == table_id)
                               .order_by(desc(DiceSet.put_in_service_at))).all()
        return [{**view(r), "due": dice_due(table.game, r.put_in_service_at, at,
                                            max_age_hours, warn_hours)
                 if r.retired_at is None else None} for r in rows]


def get_set(session: Session, table_id: str, dice_set_id: str) -> DiceSet:
    row = session.get(DiceSet, dice_set_id)
    if row is None or row.table_id != table_id:
        raise ApiError(404, "unknown_dice_set", f"no dice set {dice_set_id!r} on table "
                       f"{table_id!r}")
    return row


def overlapping(session: Session, table_id: str, start: float, end: float | None
                ) -> list[DiceSet]:
    """The table's sets in service at some time in [start, end), oldest first."""
    stmt = select(DiceSet).where(DiceSet.table_id == table_id,
                                 (DiceSet.retired_at.is_(None))
                                 | (DiceSet.retired_at > start))
    if end is not None:
        stmt = stmt.where(DiceSet.put_in_service_at < end)
    return list(session.scalars(stmt.order_by(DiceSet.put_in_service_at)))
