"""The labeling queue, per-die labels of evidence frames, and their storage.

Hard frames go to the queue: a die read below `label_min_confidence`, a roll held for
review or reviewed, a roll whose dealer call disagreed with the camera. A labeler gives
each die's box on the clean frame, its face, and whether it is cocked, stacked on another
die or outside the zone; saving replaces the roll's labels and appends `labels_saved` to
the audit chain. Only rolls whose clean JPEG was posted can be labelled.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, model_validator
from sqlalchemy import delete, or_, select

from .. import audit
from ..db.console_models import DieLabel
from ..db.models import DealerCall, Roll
from ..db.session import Database
from ..errors import ApiError
from ..schemas.common import Face, Strict
from ..services.evidence import path_for
from ..services.state import now
from .export import jpeg_size
from .queries import console_roll

_SCAN = 5000  # newest rolls looked at for the queue


class DieIn(Strict):
    """One die as the labeler sees it; box in pixels of the clean frame."""

    face: Face
    box: list[Annotated[float, Field(allow_inf_nan=False)]] = Field(
                             min_length=4, max_length=4,
                             description="x0, y0, x1, y1 in pixels of the clean frame.")
    cocked: bool = False
    stacked: bool = False
    outside: bool = Field(False, description="At rest outside the zone (off the table, on "
                          "the chips or rail, out of the shaker).")

    @model_validator(mode="after")
    def _check(self) -> DieIn:
        x0, y0, x1, y1 = self.box
        if min(self.box) < 0 or x1 <= x0 or y1 <= y0:
            raise ValueError("box must be x0 < x1, y0 < y1, all >= 0")
        return self


class LabelsIn(Strict):
    dice: list[DieIn] = Field(max_length=20, description="Every die in the frame.")


def _why(roll: Roll, detail: dict, mismatched: set[str], min_conf: float) -> list[str]:
    why = []
    confs = detail.get("confidences") or []
    if confs and min(confs) < min_conf:
        why.append(f"low confidence {min(confs):.2f}")
    if roll.verdict == "needs_review" or roll.status == "held":
        why.append("needs review")
    if roll.review_json and json.loads(roll.review_json).get("action") == "correct":
        why.append("corrected")
    if roll.roll_id in mismatched:
        why.append("dealer call mismatch")
    return why


def queue(db: Database, min_conf: float, limit: int, include_done: bool = False
          ) -> list[dict[str, Any]]:
    """Hard frames with a stored clean JPEG, newest first, unlabelled ones only by default."""
    with db.read() as session:
        # The camera's read disagreed with the dealer when the call came in: a hard frame
        # even after a review decided the dealer was right.
        mismatched = set(session.scalars(select(DealerCall.roll_id).where(or_(
            DealerCall.matches.is_(False), DealerCall.original_matches.is_(False)))).all())
        done = set(session.scalars(select(DieLabel.roll_id).distinct()).all())
        rows = session.scalars(select(Roll).order_by(Roll.received_at.desc())
                               .limit(_SCAN)).all()
        out = []
        for roll in rows:
            detail = json.loads(roll.detail_json)
            if not detail.get("evidence", {}).get("clean_stored"):
                continue
            why = _why(roll, detail, mismatched, min_conf)
            if not why or (roll.roll_id in done and not include_done):
                continue
            out.append({**console_roll(roll), "why": why,
                        "labelled": roll.roll_id in done})
            if len(out) >= limit:
                break
    return out


def labels_of(db: Database, roll_id: str) -> list[dict[str, Any]]:
    with db.read() as session:
        rows = session.scalars(select(DieLabel).where(DieLabel.roll_id == roll_id)
                               .order_by(DieLabel.die)).all()
    return [{"die": r.die, "face": r.face, "box": [r.x0, r.y0, r.x1, r.y1],
             "cocked": r.cocked, "stacked": r.stacked, "outside": r.outside,
             "labeler": r.labeler, "at": r.created_at} for r in rows]


def _check_in_frame(labels: LabelsIn, evidence_dir: Path, sha: str) -> None:
    """422 when a box reaches past the clean frame (its YOLO export would not be in 0-1)."""
    path = path_for(evidence_dir, sha)
    if not path.is_file():
        return  # the export names the missing frame (409 evidence_missing)
    width, height = jpeg_size(path.read_bytes())
    for k, d in enumerate(labels.dice):
        if d.box[2] > width or d.box[3] > height:
            raise ApiError(422, "box_outside_frame", f"die {k}: box {d.box} reaches past "
                           f"the {width}x{height} frame")


def save(db: Database, roll_id: str, labels: LabelsIn, who: str,
         evidence_dir: Path | None = None) -> list[dict[str, Any]]:
    """Replaces the roll's labels with `labels`; the audit event carries their sha256.

    With `evidence_dir`, every box must lie inside the clean frame (422 otherwise)."""
    with db.write() as session:
        roll = session.get(Roll, roll_id)
        if roll is None:
            raise ApiError(404, "unknown_roll", f"no roll {roll_id!r}")
        evidence = json.loads(roll.detail_json)["evidence"]
        if not evidence.get("clean_stored"):
            raise ApiError(409, "no_evidence", f"roll {roll_id} has no stored clean frame "
                           "to label")
        if evidence_dir is not None:
            _check_in_frame(labels, evidence_dir, evidence["clean_sha256"])
        session.execute(delete(DieLabel).where(DieLabel.roll_id == roll_id))
        at = now()
        for k, d in enumerate(labels.dice):
            x0, y0, x1, y1 = d.box
            session.add(DieLabel(roll_id=roll_id, die=k, face=d.face, cocked=d.cocked,
                                 stacked=d.stacked, outside=d.outside, x0=x0, y0=y0, x1=x1,
                                 y1=y1, labeler=who, created_at=at))
        session.flush()
        dumped = audit.canonical(labels.model_dump(mode="json"))
        audit.append(session, [audit.Pending(roll.table_id, "labels_saved", {
            "roll_id": roll_id, "dice": len(labels.dice), "by": who,
            "faces": [d.face for d in labels.dice],
            "labels_sha256": hashlib.sha256(dumped.encode()).hexdigest()})])
    return labels_of(db, roll_id)
