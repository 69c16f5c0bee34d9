"""Placing, reducing and removing wagers: the engine decides, the service records."""

from __future__ import annotations

from typing import Any

from .. import audit
from ..db.session import Database
from ..errors import ApiError
from ..games.model import Wager
from ..games.registry import get
from .state import load_state, locked_table, new_id, read_table, remember, save_state
from .tables import CRAPS_GAMES

# Craps has no "no more bets" in the engine: the service refuses new wagers itself.
CRAPS_CLOSED = "623a.4(a)"


def wager_view(w: Wager) -> dict[str, Any]:
    return {"id": w.id, "name": w.name, "amount": w.amount, "seat": w.seat,
            "params": w.params_dict, "working": w.working, "point": w.point}


def place(db: Database, table_id: str, body: dict[str, Any], who: str) -> dict:
    """Places one wager; an engine refusal propagates as WagerRefused (409/422)."""
    wager = Wager.of(body.get("id") or new_id(), body["name"], body["amount"],
                     body.get("seat", 0), **body.get("params", {}))
    with db.write() as session:
        table = locked_table(db, session, table_id)
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
        change = get(table.game).reduce(load_state(table), wager_id, amount)
        save_state(table, change.state)
        section = change.line.section if change.line else ""
        audit.append(session, [audit.Pending(table.id, "wager_reduced", {
            "wager_id": wager_id, "amount": amount, "returned": change.returned,
            "section": section, "round": table.round_no, "by": who})])
    remember(table, change.state)
    return {"wager_id": wager_id, "amount": amount, "returned": change.returned,
            "section": section}


def listing(db: Database, table_id: str, seat: int | None) -> list[dict]:
    """Wagers on the layout now, in the order they were placed."""
    with db.read() as session:
        table = read_table(session, table_id)
        state = load_state(table)
    return [wager_view(w) for w in state.wagers if seat is None or w.seat == seat]
