"""Liveness and readiness (`/healthz`) and Prometheus metrics (`/metrics`)."""

from __future__ import annotations

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from sqlalchemy import text
from starlette.concurrency import run_in_threadpool

from ..deps import DbDep
from ..schemas.common import Out

router = APIRouter(tags=["health"])


class Health(Out):
    status: str
    database: str


def _ping(db) -> str:
    try:
        with db.read() as session:
            session.execute(text("SELECT 1"))
        return "ok"
    except Exception as exc:  # reported, not raised: health must answer
        return f"error: {type(exc).__name__}"


@router.get("/healthz", response_model=Health, responses={503: {"model": Health}})
async def healthz(db: DbDep, response: Response) -> Health:
    """200 when the database answers, 503 otherwise."""
    database = await run_in_threadpool(_ping, db)
    if database != "ok":
        response.status_code = 503
    return Health(status="ok" if database == "ok" else "degraded", database=database)


@router.get("/metrics", response_class=Response,
            responses={200: {"content": {"text/plain": {}}, "description": "Prometheus "
                                                                           "text format"}})
def metrics() -> Response:
    """Roll intakes, settlements, intake latency, dealer-call mismatches, sequence gaps."""
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
