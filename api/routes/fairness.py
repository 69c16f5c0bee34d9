"""Dice fairness per table and dice set over a shift or a date range (603a.13 inspection).

Served to the console (session cookie) and to integrations (`GET /v1/tables/{id}/fairness`,
bearer token of surveillance or admin). The report itself is services/fairness_report.py.
"""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.responses import Response
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from ..console.auth import Person, person
from ..console.queries import shift_start
from ..deps import DbDep, Principal, SettingsDep, require
from ..schemas.common import UUID_PATTERN, Out, errors
from ..schemas.dice_sets import DiceSetOut
from ..services.fairness_report import report, sweep
from .tables import TableId

router = APIRouter(tags=["fairness"])


class FaceTestOut(Out):
    label: str = Field(description="\"die k\" (k-th die as read) or \"all dice\".")
    counts: list[int] = Field(description="Throws showing faces 1..6.")
    n: int
    chi2: float | None = Field(description="Chi-square statistic; null below 30 throws.")
    p_value: float | None
    biased: bool = Field(description="p_value < alpha.")


class SetFairnessOut(Out):
    """The test of one dice set's rolls (or of rolls thrown with no set recorded)."""

    dice_set: DiceSetOut | None = Field(description="null: rolls thrown while the table "
                                        "had no dice set recorded.")
    start: float = Field(description="Unix s: the range's start or the set's put in "
                         "service, whichever is later.")
    end: float | None = Field(description="Unix s: the range's end or the set's "
                              "retirement, whichever is earlier; null: still open.")
    rolls: int = Field(description="Settled rolls counted for this set.")
    tests: list[FaceTestOut]
    alert: bool
    biased: list[str] = Field(description="Labels of the biased tests.")


class FairnessOut(Out):
    table_id: str
    table: str
    game: str
    dice_set_id: str | None = Field(description="The set asked for; null: every set.")
    start: float
    end: float | None
    rolls: int = Field(description="Settled rolls counted, all sets.")
    alpha: float
    section: str
    sets: list[SetFairnessOut] = Field(description="One test per dice set in service in "
                                       "the range, oldest first: sets are never pooled.")
    alert: bool = Field(description="Some set has a biased die.")
    svg: str = Field(description="The plot, an SVG document: a row of panels per set.")

    model_config = Out.model_config | {"json_schema_extra": {"examples": [{
        "table_id": "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f", "table": "Craps 3",
        "game": "craps", "dice_set_id": None, "start": 1767196800.0, "end": None,
        "rolls": 60, "alpha": 0.001, "section": "603a.13", "alert": True, "svg": "<svg ...>",
        "sets": [{"dice_set": {"id": "0b7f6f3e-54a1-4c52-9a8e-3d2f1c0a9b11",
                               "table_id": "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f",
                               "label": "PA-2291 / PA-2292",
                               "put_in_service_at": 1767196800.0,
                               "put_in_service_by": "floor surveillance",
                               "retired_at": None, "retired_by": None,
                               "in_service": True},
                  "start": 1767196800.0, "end": None, "rolls": 60, "alert": True,
                  "biased": ["die 1", "all dice"],
                  "tests": [{"label": "die 1", "counts": [0, 0, 0, 0, 0, 60], "n": 60,
                             "chi2": 300.0, "p_value": 6.9e-63, "biased": True}]}]}]}}


Start = Annotated[float | None, Query(ge=0, le=1e11, allow_inf_nan=False,
                                      description="Unix s; default: one shift ago, or "
                                      "the dice set's put in service.")]
End = Annotated[float | None, Query(ge=0, le=1e11, allow_inf_nan=False,
                                    description="Unix s; default: now, or the dice set's "
                                    "retirement.")]
DiceSetQ = Annotated[str | None, Query(pattern=UUID_PATTERN, description="Only this dice "
                                       "set's rolls, in its time in service.")]


async def _run(db, settings, table_id, start, end, dice_set) -> dict:
    if start is None and dice_set is None:
        start = shift_start(settings.shift_hours)
    return await run_in_threadpool(report, db, table_id, start, end,
                                   settings.fairness_alpha, dice_set)


@router.get("/v1/tables/{table_id}/fairness", response_model=FairnessOut,
            responses=errors(401, 403, 404, 422))
async def v1_fairness(table_id: TableId, db: DbDep, settings: SettingsDep,
                      _: Annotated[Principal, Depends(require("surveillance"))],
                      start: Start = None, end: End = None,
                      dice_set: DiceSetQ = None) -> dict:
    """Face counts per die and dice set, chi-square p-values, `alert` when one is under
    the configured alpha (DICECALL_FAIRNESS_ALPHA), and the plot as SVG text. A range
    spanning a change of dice gives one test per set."""
    return await _run(db, settings, table_id, start, end, dice_set)


_SWEEP_TTL_S = 60.0
_sweeps: dict[str, tuple[float, list[dict]]] = {}


@router.get("/console/api/fairness-alerts", include_in_schema=False)
async def fairness_alerts(db: DbDep, settings: SettingsDep,
                          _: Annotated[Person, Depends(person("surveillance"))]) -> list[dict]:
    """Biased dice over the current shift, every table and set; recomputed at most once a
    minute per process (it reads the whole shift's rolls)."""
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
                      start: Start = None, end: End = None,
                      dice_set: DiceSetQ = None) -> Response:
    out = await _run(db, settings, table_id, start, end, dice_set)
    return Response(out["svg"], media_type="image/svg+xml")


@router.get("/console/api/fairness/{table_id}", include_in_schema=False)
async def console_fairness(table_id: str, db: DbDep, settings: SettingsDep,
                           _: Annotated[Person, Depends(person("surveillance"))],
                           start: Start = None, end: End = None,
                           dice_set: DiceSetQ = None) -> dict:
    return await _run(db, settings, table_id, start, end, dice_set)
