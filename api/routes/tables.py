"""Tables: create (admin), list, read."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from ..db.models import Table
from ..deps import DbDep, Principal, require
from ..schemas.common import errors
from ..schemas.tables import TableIn, TableOut
from ..services import tables as svc
from ..services.state import read_table

router = APIRouter(tags=["tables"])
TableId = Annotated[str, Path(max_length=64, description="The table's id.")]
Reader = Annotated[Principal, Depends(require("integration", "surveillance"))]


@router.post("/tables", status_code=201, response_model=TableOut,
             responses=errors(401, 403, 422))
def create_table(body: TableIn, db: DbDep,
                 _: Annotated[Principal, Depends(require("admin"))]) -> dict:
    """Creates a table for a game with house options (validated by the engine)."""
    return svc.create_table(db, body.game, body.name, body.options)


def _list(db, limit: int, offset: int) -> list[dict]:
    with db.read() as session:
        rows = session.scalars(select(Table).order_by(Table.created_at).limit(limit)
                               .offset(offset)).all()
        return [svc.table_view(t, svc.devices_of(session, t.id)) for t in rows]


@router.get("/tables", response_model=list[TableOut], responses=errors(401, 403, 422))
async def list_tables(db: DbDep, _: Reader,
                      limit: Annotated[int, Query(ge=1, le=500)] = 100,
                      offset: Annotated[int, Query(ge=0, le=10**9)] = 0) -> list[dict]:
    """Tables in the order they were created."""
    return await run_in_threadpool(_list, db, limit, offset)


def _one(db, table_id: str) -> dict:
    with db.read() as session:
        table = read_table(session, table_id)
        return svc.table_view(table, svc.devices_of(session, table_id))


@router.get("/tables/{table_id}", response_model=TableOut, responses=errors(401, 403, 404))
async def get_table(table_id: TableId, db: DbDep, _: Reader) -> dict:
    """A table: game, options, current round, engine state summary, devices."""
    return await run_in_threadpool(_one, db, table_id)
