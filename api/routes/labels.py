"""The labeling queue: hard frames, per-die labels, and the YOLO + COCO export."""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response
from starlette.concurrency import run_in_threadpool

from ..console import export, labels
from ..console.auth import Person, person
from ..deps import BrokerDep, DbDep, SettingsDep

router = APIRouter(prefix="/console/api/labels", tags=["console"], include_in_schema=False)
Labeler = Annotated[Person, Depends(person("labeler"))]


@router.get("/queue")
async def queue(db: DbDep, settings: SettingsDep, _: Labeler,
                done: bool = False,
                limit: Annotated[int, Query(ge=1, le=500)] = 100) -> list[dict]:
    """Low-confidence, held, corrected and mismatched frames with a stored clean JPEG."""
    return await run_in_threadpool(labels.queue, db, settings.label_min_confidence, limit,
                                   done)


@router.get("/export.zip")
def export_zip(db: DbDep, settings: SettingsDep, _: Labeler) -> Response:
    """Every labelled frame: images/, labels/ (YOLO) and annotations.json (COCO)."""
    data = export.zip_bytes(export.collect(db, settings.evidence_dir))
    name = time.strftime("dicecall-labels-%Y%m%d-%H%M%S.zip", time.gmtime())
    return Response(data, media_type="application/zip",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@router.get("/{roll_id}")
async def get_labels(roll_id: str, db: DbDep, _: Labeler) -> list[dict]:
    return await run_in_threadpool(labels.labels_of, db, roll_id)


@router.put("/{roll_id}")
def put_labels(roll_id: str, body: labels.LabelsIn, db: DbDep, broker: BrokerDep,
               settings: SettingsDep, who: Labeler) -> list[dict]:
    """Replaces the roll's per-die labels (face, box, cocked, stacked, outside); every box
    finite and inside the clean frame (422 otherwise)."""
    out = labels.save(db, roll_id, body, who.name, settings.evidence_dir)
    broker.notify()
    return out
