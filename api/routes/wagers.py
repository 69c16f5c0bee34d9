"""Wagers on a table: place, reduce or remove where the rules allow, the on/off marker,
list."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from starlette.concurrency import run_in_threadpool

from ..deps import DbDep
from ..schemas.common import errors
from ..schemas.wagers import (
    ChangedOut,
    MarkedOut,
    PlacedOut,
    ReduceIn,
    WagerIn,
    WagerOut,
    WorkingIn,
)
from ..services import wagers as svc
from .rounds import Operator
from .tables import Reader, TableId

router = APIRouter(tags=["wagers"])
WagerId = Annotated[str, Path(max_length=64)]


@router.post("/tables/{table_id}/wagers", status_code=201, response_model=PlacedOut,
             responses=errors(401, 403, 404, 409, 422))
def place_wager(table_id: TableId, body: WagerIn, db: DbDep, who: Operator) -> dict:
    """Places a wager; the engine refuses it with a code and the rule's section.

    409: the table's state forbids it now (e.g. `bet_closed` after "no more bets",
    623a.4(a); `roll_pending` while a thrown roll is held or queued for review); 422: the
    wager itself is wrong (unknown name, limits, units).
    """
    return svc.place(db, table_id, body.model_dump(), who.name)


@router.patch("/tables/{table_id}/wagers/{wager_id}", response_model=ChangedOut,
              responses=errors(401, 403, 404, 409, 422))
def reduce_wager(table_id: TableId, wager_id: WagerId, body: ReduceIn, db: DbDep,
                 who: Operator) -> dict:
    """Reduces a wager to `amount` cents (0 removes it), where the rules allow it.

    A Craps Don't Pass or Don't Come Bet comes down at any time (623a.4(d)) with the lay
    odds its new amount no longer supports (all of them when it is removed, 623a.6(b),(d),
    (e)): they are listed in `also`, and `returned` counts them.

    409 `roll_pending` while a thrown roll is held or queued for review (in Craps, only
    if those rolls can decide the wager); in Craps `not_removable` after "no more bets"
    when the roll can decide it (623a.4(c),(d)).
    """
    return svc.reduce(db, table_id, wager_id, body.amount, who.name)


@router.delete("/tables/{table_id}/wagers/{wager_id}", response_model=ChangedOut,
               responses=errors(401, 403, 404, 409))
def remove_wager(table_id: TableId, wager_id: WagerId, db: DbDep, who: Operator) -> dict:
    """Removes a wager, where the rules allow it (e.g. not a Pass Bet after the point);
    the same refusals as a reduction."""
    return svc.reduce(db, table_id, wager_id, 0, who.name)


@router.put("/tables/{table_id}/wagers/{wager_id}/working", response_model=MarkedOut,
            responses=errors(401, 403, 404, 409, 422))
def set_working(table_id: TableId, wager_id: WagerId, body: WorkingIn, db: DbDep,
                who: Operator) -> dict:
    """The player calls a Craps Place, Buy, Lay or Hardway Bet "on" or "off" (or Come Bet
    odds on the come out roll); null lifts the marker (623a.3(a)(5)-(10),(41),(42)).

    409 `no_marker` for a wager that takes none; after "no more bets" `bet_closed`, while
    a roll is held or queued `roll_pending`, when the thrown dice can decide the wager with
    the marker or without it (623a.4(a),(c)).
    """
    return svc.set_working(db, table_id, wager_id, body.working, who.name)


@router.get("/tables/{table_id}/wagers", response_model=list[WagerOut],
            responses=errors(401, 403, 404, 422))
async def list_wagers(table_id: TableId, db: DbDep, _: Reader,
                      seat: Annotated[int | None, Query(ge=0, le=20)] = None) -> list[dict]:
    """Wagers on the layout now, in the order they were placed."""
    return await run_in_threadpool(svc.listing, db, table_id, seat)
