"""Placing, reducing and removing wagers: the engine decides, the service records.

The service adds what the engine cannot see: a roll already thrown but held or queued for
review. Its dice are on the layout, so no wager is made until it settles (623a.4(a),
668a.2(a), 675a.2(a)), and none that it can decide is reduced or removed (623a.4(c),(d)):
even a wager removable "at any time" (a Don't Pass, 623a.4(d); a Six Eight Shake,
668a.1(b)(5)) is removable only before the roll that decides it. In Craps a wager that
none of the pending rolls can decide, whatever faces the review gives them, still comes
down, as it may after "no more bets" (an inactive Place Bet on a held come out roll).

623a.4(d)'s "at any time" frees a Don't bet from the lock a point puts on a Pass or Come
Bet (623a.4(c)(1),(2)); it does not let one come down once the dice that may decide it
are thrown: that would be past-posting, as a held roll would be.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .. import audit
from ..db.models import Roll, Table
from ..db.session import Database
from ..errors import ApiError
from ..games import craps
from ..games.model import Wager
from ..games.registry import get
from .state import load_state, locked_table, new_id, read_table, remember, save_state
from .tables import CRAPS_GAMES

# Craps has no "no more bets" in the engine: the service refuses new wagers itself. Its
# "no more bets" marks the throw; a wager is removed or reduced only before a roll that
# decides it (623a.4(c),(d)), so after the throw only one the roll cannot decide (an
# inactive Place Bet on the come out) comes down. Props & Hops and High Roll refuse them in
# the engine (668a.2(a), 675a.2(a)).
CRAPS_CLOSED = "623a.4(a)"
CRAPS_FIXED = "623a.4(a),(c),(d)"
MARKER_CLOSED = "623a.4(a),(c), 623a.3(a)(5)-(10),(41),(42)"

# Where each game says wagers are made (and so changed) before the dice are thrown.
THROWN_SECTION = {"craps": CRAPS_FIXED, "mini-craps": CRAPS_FIXED,
                  "props-and-hops": "668a.2(a)", "high-roll-dice": "675a.2(a)",
                  "high-roll-dice-6": "675a.2(a)"}


def _pending_rolls(session: Session, table: Table) -> list[str]:
    """The table's rolls held or queued for review, in arrival (throw) order."""
    if not table.held_rolls:  # a queued roll waits only behind a held one
        return []
    return list(session.scalars(select(Roll.roll_id).where(
        Roll.table_id == table.id, Roll.status.in_(("held", "queued")))
        .order_by(Roll.arrival)))


def _roll_pending(table: Table, pending: list[str]) -> ApiError:
    """409 `roll_pending` naming the table's first roll held or queued for review."""
    return ApiError(409, "roll_pending", f"roll {pending[0]} has been thrown and waits for "
                    "review: wagers are made, reduced or removed only before the dice "
                    "are thrown, until it settles", THROWN_SECTION[table.game])


def wager_view(w: Wager) -> dict[str, Any]:
    return {"id": w.id, "name": w.name, "amount": w.amount, "seat": w.seat,
            "params": w.params_dict, "working": w.working, "point": w.point}


def place(db: Database, table_id: str, body: dict[str, Any], who: str) -> dict:
    """Places one wager; an engine refusal propagates as WagerRefused (409/422)."""
    wager = Wager.of(body.get("id") or new_id(), body["name"], body["amount"],
                     body.get("seat", 0), **body.get("params", {}))
    with db.write() as session:
        table = locked_table(db, session, table_id)
        pending = _pending_rolls(session, table)
        if pending:
            raise _roll_pending(table, pending)
        if not table.betting_open and table.game in CRAPS_GAMES:
            raise ApiError(409, "bet_closed", "no more bets: wagers are made before the "
                           "dice are thrown", CRAPS_CLOSED)
        placement = get(table.game).place(load_state(table), wager)
        save_state(table, placement.state)
        audit.append(session, [audit.Pending(table.id, "wager_placed", {
            **wager_view(placement.wager), "fee": placement.fee, "round": table.round_no,
            "by": who})])
    remember(table, placement.state)
    return {"wager": wager_view(placement.wager), "fee": placement.fee,
            "round": table.round_no}


def reduce(db: Database, table_id: str, wager_id: str, amount: int, who: str) -> dict:
    """Reduces a wager to `amount` cents, or removes it (0), where the rules allow it."""
    with db.write() as session:
        table = locked_table(db, session, table_id)
        state = load_state(table)
        pending, thrown = _thrown(session, table)
        if pending and table.game not in CRAPS_GAMES:
            raise _roll_pending(table, pending)
        if thrown and craps.decided_by_next_roll(state, wager_id, thrown):
            if pending:
                raise _roll_pending(table, pending)
            raise ApiError(409, "not_removable", "no more bets: the dice thrown can decide "
                           "this wager, and a wager is removed or reduced only before the "
                           "roll that decides it", CRAPS_FIXED)
        change = get(table.game).reduce(state, wager_id, amount)
        save_state(table, change.state)
        section = change.line.section if change.line else ""
        # The lay odds behind a Don't bet come down with it (623a.6(b),(d),(e)).
        also = [{"wager_id": x.wager_id, "amount": _left(change.state, x.wager_id),
                 "returned": x.returned, "section": x.section} for x in change.also]
        audit.append(session, [audit.Pending(table.id, "wager_reduced", {
            "wager_id": wager_id, "amount": amount, "returned": change.returned,
            "section": section, "round": table.round_no, "by": who,
            **({"also": also} if also else {})})])
    remember(table, change.state)
    return {"wager_id": wager_id, "amount": amount, "returned": change.returned,
            "section": section, "also": also}


def _left(state: Any, wager_id: str) -> int:
    w = state.wager(wager_id)
    return w.amount if w is not None else 0


def set_working(db: Database, table_id: str, wager_id: str, working: bool | None,
                who: str) -> dict:
    """Places (True: "on", False: "off") or lifts (None) a wager's on/off marker, in Craps
    (623a.3(a)(5)-(10),(41),(42)).

    Calling a wager on or off after the throw would choose, dice in sight, whether the roll
    decides it: once the dice are thrown (623a.4(a),(c)) the marker changes only if that
    roll cannot decide the wager either way.
    """
    with db.write() as session:
        table = locked_table(db, session, table_id)
        if table.game not in CRAPS_GAMES:
            raise ApiError(409, "not_supported", f"{table.game} has no on/off marker: "
                           "its wagers work on every roll", get(table.game).chapter)
        state = load_state(table)
        after = craps.set_working(state, wager_id, working)
        pending, thrown = _thrown(session, table)
        if thrown and (craps.decided_by_next_roll(state, wager_id, thrown)
                       or craps.decided_by_next_roll(after, wager_id, thrown)):
            if pending:
                raise _roll_pending(table, pending)
            raise ApiError(409, "bet_closed", "no more bets: the dice thrown can decide this "
                           "wager with the marker or without it; it is turned on or off "
                           "only before the roll", MARKER_CLOSED)
        save_state(table, after)
        audit.append(session, [audit.Pending(table.id, "wager_marker", {
            "wager_id": wager_id, "working": working, "round": table.round_no,
            "by": who})])
    remember(table, after)
    return {"wager": wager_view(after.wager(wager_id)), "round": table.round_no}


def _thrown(session: Session, table: Table) -> tuple[list[str], int]:
    """The table's pending rolls, and how many thrown rolls may decide a Craps wager now:
    the pending ones, which are every throw since the table's state ("no more bets" marks
    the first, and the table opens again once they settle, settle.py), else the one
    "no more bets" announced, else none."""
    pending = _pending_rolls(session, table)
    return pending, len(pending) or int(table.game in CRAPS_GAMES and not table.betting_open)


def listing(db: Database, table_id: str, seat: int | None) -> list[dict]:
    """Wagers on the layout now, in the order they were placed."""
    with db.read() as session:
        table = read_table(session, table_id)
        state = load_state(table)
    return [wager_view(w) for w in state.wagers if seat is None or w.seat == seat]
