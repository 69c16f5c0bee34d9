"""Dice fairness per table over a shift or a date range (603a.13 dice inspection).

The faces counted are those each roll settled with (after any review), from settled rolls;
no-rolls and held rolls are left out. Served to the console (session cookie) and to
integrations (`GET /v1/tables/{id}/fairness`, bearer token of surveillance or admin).
"""

from __future__ import annotations

import json
import time
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.responses import Response
from pydantic import Field
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from ..console.auth import Person, person
from ..console.queries import shift_start
from ..db.models import Roll, Table
from ..db.session import Database
from ..deps import DbDep, Principal, SettingsDep, require
from ..errors import ApiError
from ..schemas.common import Out, errors
from ..services.fairness import fairness
from ..services.fairness_svg import fairness_svg
from ..services.state import read_table
from .tables import TableId

router = APIRouter(tags=["fairness"])


class FaceTestOut(Out):
    label: str = Field(description="\"die k\" (k-th die as read) or \"all dice\".")
    counts: list[int] = Field(description="Throws showing faces 1..6.")
    n: int
    chi2: float | None = Field(description="Chi-square statistic; null below 30 throws.")
    p_value: float | None
    biased: bool = Field(description="p_value < alpha.")


class FairnessOut(Out):
    table_id: str
    table: str
    game: str
    start: float
    end: float | None
    rolls: int = Field(description="Settled rolls counted.")
    alpha: float
    section: str
    tests: list[FaceTestOut]
    alert: bool
    biased: list[str]
    svg: str = Field(description="The plot, an SVG document.")


Start = Annotated[float | None, Query(ge=0, le=1e11, allow_inf_nan=False,
                                      description="Unix s; default: one shift ago.")]
End = Annotated[float | None, Query(ge=0, le=1e11, allow_inf_nan=False,
                                    description="Unix s; default: now.")]


def report(db: Database, table_id: str, start: float, end: float | None,
           alpha: float) -> dict:
    """The fairness report of one table's settled rolls received in [start, end)."""
    if end is not None and end <= start:
        raise ApiError(422, "bad_range", "end must be after start")
    with db.read() as session:
        table = read_table(session, table_id)
        stmt = select(Roll.final_faces_json).where(Roll.table_id == table_id,
                                                   Roll.status == "settled",
                                                   Roll.received_at >= start)
        if end is not None:
            stmt = stmt.where(Roll.received_at < end)
        rolls = [json.loads(f) for f in session.scalars(stmt).all() if f]
    out = fairness(rolls, alpha)
    out.update({"table_id": table.id, "table": table.name, "game": table.game,
                "start": start, "end": end, "rolls": len(rolls)})
    out["svg"] = fairness_svg(out)
    return out


_SWEEP_TTL_S = 60.0
_sweeps: dict[str, tuple[float, list[dict]]] = {}


def sweep(db: Database, start: float, alpha: float) -> list[dict]:
    """The tables whose dice look biased since `start`: the fairness alerts of the shift."""
    with db.read() as session:
        ids = session.scalars(select(Table.id).order_by(Table.name)).all()
    out = []
    for table_id in ids:
        r = report(db, table_id, start, None, alpha)
        if r["alert"]:
            out.append({"table_id": table_id, "table": r["table"], "rolls": r["rolls"],
                        "alpha": alpha, "section": r["section"], "start": start,
                        "biased": [{"label": t["label"], "p_value": t["p_value"]}
                                   for t in r["tests"] if t["biased"]]})
    return out


async def _run(db, settings, table_id, start, end) -> dict:
    start = shift_start(settings.shift_hours) if start is None else start
    return await run_in_threadpool(report, db, table_id, start, end,
                                   settings.fairness_alpha)


@router.get("/v1/tables/{table_id}/fairness", response_model=FairnessOut,
            responses=errors(401, 403, 404, 422))
async def v1_fairness(table_id: TableId, db: DbDep, settings: SettingsDep,
                      _: Annotated[Principal, Depends(require("surveillance"))],
                      start: Start = None, end: End = None) -> dict:
    """Face counts per die, chi-square p-values, `alert` when one is under the configured
    alpha (DICECALL_FAIRNESS_ALPHA), and the plot as SVG text."""
    return await _run(db, settings, table_id, start, end)


@router.get("/console/api/fairness-alerts", include_in_schema=False)
async def fairness_alerts(db: DbDep, settings: SettingsDep,
                          _: Annotated[Person, Depends(person("surveillance"))]) -> list[dict]:
    """Biased dice over the current shift, every table; recomputed at most once a minute
    per process (it reads the whole shift's rolls)."""
    hit = _sweeps.get(db.url)
    if hit is not None and hit[0] > time.monotonic():
        return hit[1]
    found = await run_in_threadpool(sweep, db, shift_start(settings.shift_hours),
                                    settings.fairness_alpha)
    _sweeps[db.url] = (time.monotonic() + _SWEEP_TTL_S, found)
    return found


@router.get("/console/api/fairness/{table_id}.svg", include_in_schema=False)
async def console_svg(table_id: str, db: DbDep, settings: SettingsDep,
                      _: Annotated[Person, Depends(person("surveillance"))],
                      start: Start = None, end: End = None) -> Response:
    out = await _run(db, settings, table_id, start, end)
    return Response(out["svg"], media_type="image/svg+xml")


@router.get("/console/api/fairness/{table_id}", include_in_schema=False)
async def console_fairness(table_id: str, db: DbDep, settings: SettingsDep,
                           _: Annotated[Person, Depends(person("surveillance"))],
                           start: Start = None, end: End = None) -> dict:
    return await _run(db, settings, table_id, start, end)
