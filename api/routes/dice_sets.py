"""Dice sets of a table: put a new set in service (surveillance, admin) and list them.

Served to integrations under /v1 (bearer token) and to the console (session cookie, CSRF
on the change). Every change is on the audit chain (services/dice_sets.py).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from starlette.concurrency import run_in_threadpool

from ..console.auth import Person, person
from ..deps import DbDep, Principal, SettingsDep, require
from ..schemas.common import errors
from ..schemas.dice_sets import DiceSetChange, DiceSetIn, DiceSetListed
from ..services import dice_sets as svc
from .tables import TableId

router = APIRouter(tags=["dice sets"])
Surveillance = Annotated[Principal, Depends(require("surveillance"))]
Watcher = Annotated[Person, Depends(person("surveillance"))]


@router.post("/v1/tables/{table_id}/dice-sets", status_code=201,
             response_model=DiceSetChange, responses=errors(401, 403, 404, 422))
def put_in_service(table_id: TableId, body: DiceSetIn, db: DbDep,
                   who: Surveillance) -> dict:
    """Puts a new set of dice in service on the table (after its inspection, 603a.13).

    The set in service, if any, is retired at the same instant: a table has one set in
    play at a time, and each roll counts for the set in service when it was thrown. Both
    changes are appended to the audit chain."""
    return svc.put_in_service(db, table_id, body.label, who.name)


@router.get("/v1/tables/{table_id}/dice-sets", response_model=list[DiceSetListed],
            responses=errors(401, 403, 404, 422))
async def list_sets(table_id: TableId, db: DbDep, settings: SettingsDep,
                    _: Surveillance) -> list[dict]:
    """The table's dice sets, newest (the one in service) first; the one in service has
    `due`: its change deadline and whether it is overdue (623a.7(d), 668a.3(b)(1),
    675a.3(b)(1))."""
    return await run_in_threadpool(svc.list_sets, db, table_id,
                                   settings.dice_max_age_hours, settings.dice_warn_hours)


@router.post("/console/api/tables/{table_id}/dice-sets", status_code=201,
             include_in_schema=False)
def console_put(table_id: TableId, body: DiceSetIn, db: DbDep, who: Watcher) -> dict:
    return svc.put_in_service(db, table_id, body.label, who.name)


@router.get("/console/api/tables/{table_id}/dice-sets", include_in_schema=False)
async def console_list(table_id: TableId, db: DbDep, settings: SettingsDep,
                       _: Watcher) -> list[dict]:
    return await run_in_threadpool(svc.list_sets, db, table_id,
                                   settings.dice_max_age_hours, settings.dice_warn_hours)
