"""Dealer calls compared with the camera, and the alerts raised when they disagree."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query
from starlette.concurrency import run_in_threadpool

from ..deps import BrokerDep, DbDep, Principal, require
from ..schemas.common import errors
from ..schemas.rolls import DealerCallIn, DealerCallOut
from ..services import dealer as svc
from .rolls import RollId
from .tables import Reader

router = APIRouter(tags=["dealer calls"])


@router.post("/rolls/{roll_id}/dealer-call", status_code=201, response_model=DealerCallOut,
             responses=errors(401, 403, 404, 422))
def dealer_call(roll_id: RollId, body: DealerCallIn, db: DbDep, broker: BrokerDep,
                who: Annotated[Principal, Depends(require("integration", "surveillance"))]
                ) -> dict:
    """Records the dealer's announced faces, total or no roll; a mismatch with the camera
    is stored as an alert and streamed as `dealer_call_mismatch`."""
    out = svc.dealer_call(db, roll_id, body.model_dump(exclude_none=True), who.name)
    broker.notify()
    return out


@router.get("/alerts", response_model=list[DealerCallOut], responses=errors(401, 403, 422))
async def alerts(db: DbDep, _: Reader,
                 table: Annotated[str | None, Query(max_length=64)] = None,
                 limit: Annotated[int, Query(ge=1, le=500)] = 100) -> list[dict]:
    """Dealer calls that disagree with the roll as decided (the camera's read, or a
    review's decision), the latest raised first: a call a review made disagree again counts
    as of that review, so newer calls do not push it past `limit`."""
    return await run_in_threadpool(svc.alerts, db, table, limit)
