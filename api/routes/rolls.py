"""Rolls: posted by a table's edge device (signed), read, reviewed by surveillance."""

from __future__ import annotations

import asyncio
import time
from functools import partial
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Response
from fastapi.exceptions import RequestValidationError
from pydantic import AfterValidator, ValidationError
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from ..db.models import Roll
from ..db.session import Database
from ..deps import BrokerDep, DbDep, Principal, SettingsDep, SignedDevice, require, signed_device
from ..errors import ApiError
from ..events import Broker
from ..metrics import INTAKE_LATENCY, INTAKES
from ..schemas.common import UUID_PATTERN, errors
from ..schemas.rolls import ReviewIn, RollDetailOut, RollIn, RollOut
from ..services import dealer as dealer_svc
from ..services import review as review_svc
from ..services import rolls as svc
from ..services.intake_writer import writer_for
from ..services.settle import roll_view
from ..services.state import read_table
from ..settings import Settings
from .openapi import request_body
from .tables import Reader, TableId

router = APIRouter(tags=["rolls"])
# Rolls are keyed by the lower-case spelling of their UUID (schemas/rolls.py).
RollId = Annotated[str, Path(pattern=UUID_PATTERN, description="The roll's UUID."),
                   AfterValidator(str.lower)]


@router.post("/tables/{table_id}/rolls", status_code=201, response_model=RollOut,
             responses={200: {"model": RollOut, "description": "A repeated roll_id: the "
                              "original response, nothing settled again"},
                        **errors(401, 403, 404, 409, 413, 422)},
             openapi_extra=request_body(RollIn))
async def post_roll(table_id: TableId, db: DbDep, settings: SettingsDep,
                    broker: BrokerDep,
                    device: Annotated[SignedDevice, Depends(signed_device)]) -> Response:
    """Intake of one roll read by the table's edge device (signed, idempotent on roll_id).

    valid: settled through the engine; no_roll: recorded, nothing settled; needs_review:
    held until `POST /v1/rolls/{roll_id}/review`. Sequence gaps and reordering are
    reported in `sequence`, stored, and streamed as `sequence_gap` events.
    """
    try:
        roll = RollIn.model_validate_json(device.body)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_url=False)) from None
    result = await accept(db, settings, broker, device.device_id, table_id, roll)
    headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
    return Response(result.body, result.status_code, headers=headers,
                    media_type="application/json")


async def accept(db: Database, settings: Settings, broker: Broker, device_id: str,
                 table_id: str, roll: RollIn) -> svc.Intake:
    """Applies a verified roll (also called by api/fastpath.py, which skips the framework)."""
    started = time.perf_counter()
    try:
        ev = roll.evidence
        if ev.clean_jpeg_b64 is None and ev.annotated_jpeg_b64 is None:
            post = svc.prepare(settings, device_id, table_id, roll)  # no file I/O
        else:
            post = await run_in_threadpool(svc.prepare, settings, device_id, table_id, roll)
        # Applied by the process's writer thread, batched with other rolls (group commit).
        # Shielded: a request cancelled while queued is still applied (intake_writer.py),
        # so it is still counted, as new, when the writer answers; its retry is a replay.
        pending = writer_for(db).submit(post)
        try:
            result = await asyncio.shield(pending)
        except asyncio.CancelledError:
            pending.add_done_callback(partial(_count_late, roll.verdict, broker))
            raise
    except ApiError as exc:
        INTAKES.labels(roll.verdict, _refusal(exc)).inc()
        raise
    _count(roll.verdict, result, broker)
    INTAKE_LATENCY.observe(time.perf_counter() - started)
    return result


def _refusal(exc: ApiError) -> str:
    return "conflict" if exc.status == 409 else "refused"


def _count(verdict: str, result: svc.Intake, broker: Broker) -> None:
    INTAKES.labels(verdict, "replay" if result.replayed else "new").inc()
    if not result.replayed:
        broker.notify()


def _count_late(verdict: str, broker: Broker, done: asyncio.Future) -> None:
    """Counts the answer to a request whose client stopped waiting for it."""
    if done.cancelled():
        return
    exc = done.exception()
    if exc is None:
        _count(verdict, done.result(), broker)
    elif isinstance(exc, ApiError):
        INTAKES.labels(verdict, _refusal(exc)).inc()


def _rolls(db, table_id: str, after: int, limit: int) -> list[dict]:
    with db.read() as session:
        read_table(session, table_id)
        rows = session.scalars(select(Roll).where(Roll.table_id == table_id,
                                                  Roll.arrival > after)
                               .order_by(Roll.arrival).limit(limit)).all()
        return [roll_view(r) for r in rows]


@router.get("/tables/{table_id}/rolls", response_model=list[RollOut],
            responses=errors(401, 403, 404, 422))
async def list_rolls(table_id: TableId, db: DbDep, _: Reader,
                     # rolls.arrival is an INTEGER: PostgreSQL refuses a larger operand.
                     after: Annotated[int, Query(ge=0, le=2**31 - 1, description="Arrival "
                                                 "number to start after (paging).")] = 0,
                     limit: Annotated[int, Query(ge=1, le=500)] = 100) -> list[dict]:
    """The table's rolls in arrival order, each with its settlement."""
    return await run_in_threadpool(_rolls, db, table_id, after, limit)


def _roll(db, roll_id: str) -> dict:
    with db.read() as session:
        row = session.get(Roll, roll_id)
        if row is None:
            raise ApiError(404, "unknown_roll", f"no roll {roll_id!r}")
        # Read in the same transaction: the calls match the roll as shown.
        return {**roll_view(row), "dealer_calls": dealer_svc.calls_of(session, row.roll_id)}


@router.get("/rolls/{roll_id}", response_model=RollDetailOut,
            responses=errors(401, 403, 404, 422))
async def get_roll(roll_id: RollId, db: DbDep, _: Reader) -> dict:
    """One roll as it stands now: status, settlement per wager, review, and the dealer's
    calls of it (each compared with the roll as decided and with the camera's first read)."""
    return await run_in_threadpool(_roll, db, roll_id)


@router.post("/rolls/{roll_id}/review", response_model=RollOut,
             responses=errors(401, 403, 404, 409, 422))
def review_roll(roll_id: RollId, body: ReviewIn, db: DbDep, broker: BrokerDep,
                who: Annotated[Principal, Depends(require("surveillance"))]) -> dict:
    """Surveillance confirms, corrects or voids a held roll; it then settles (623a.9(c)).

    Held rolls are decided in arrival order (the order the dice were thrown): while an
    earlier roll of the table is held, 409 `earlier_roll_held` names it. After a review the
    rolls queued behind settle, in arrival order, up to the next held roll.

    `correct` and `no_roll` also apply to a settled roll while it is the table's latest
    change (no roll settled, held or queued after it, no wager or round change since): the
    table goes back to the state the roll settled against, and it settles again with the
    corrected faces or, voided, not at all; otherwise 409 `superseded`. A roll voided so is
    final: any review of it is 409 `roll_voided`.
    """
    view = review_svc.review(db, roll_id, body.action, body.faces, body.note, who.name)
    broker.notify()
    return view


