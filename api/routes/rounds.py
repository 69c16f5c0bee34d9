"""The current round of a table, "no more bets", and a new shooter."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from starlette.concurrency import run_in_threadpool

from ..deps import DbDep, Principal, require
from ..schemas.common import errors
from ..schemas.tables import NoMoreBetsIn, RoundOut, ShooterOut
from ..services import tables as svc
from ..services.state import load_state, read_table
from .tables import Reader, TableId

router = APIRouter(tags=["rounds"])
Operator = Annotated[Principal, Depends(require("integration"))]


def _current(db, table_id: str) -> dict:
    with db.read() as session:
        table = read_table(session, table_id)
        return svc.round_view(table, load_state(table))


@router.get("/tables/{table_id}/rounds/current", response_model=RoundOut,
            responses=errors(401, 403, 404))
async def current_round(table_id: TableId, db: DbDep, _: Reader) -> dict:
    """The round open for wagers (or closed by "no more bets"), and the shooter."""
    return await run_in_threadpool(_current, db, table_id)


@router.post("/tables/{table_id}/rounds/current/no-more-bets", response_model=RoundOut,
             responses=errors(401, 403, 404, 409, 422))
def no_more_bets(table_id: TableId, db: DbDep, who: Operator,
                 body: NoMoreBetsIn | None = None) -> dict:
    """The dealer announces "no more bets": new wagers are refused until the roll.

    Props & Hops 668a.3(e) and High Roll 675a.4(a) in the engine; Craps 623a.4(a) (wagers
    are made before the dice are thrown) in the service. Calling it twice is harmless.
    """
    return svc.no_more_bets(db, table_id, body.round if body else None, who.name)


@router.post("/tables/{table_id}/shooters", status_code=201, response_model=ShooterOut,
             responses=errors(401, 403, 404, 409))
def new_shooter(table_id: TableId, db: DbDep, who: Operator) -> dict:
    """The shooter passes the dice without a loser 7 (623a.10(a)); Craps and Mini-Craps."""
    return svc.new_shooter(db, table_id, who.name)
