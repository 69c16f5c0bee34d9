"""Evidence for every call: the clean frame and an annotated frame, as JPEG with sha256."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import cv2
import numpy as np

from .verdict import NO_ROLL, REVIEW, RollVerdict

_COLOURS = {"valid": (60, 200, 60), NO_ROLL: (40, 40, 230), REVIEW: (0, 190, 255)}


@dataclass(frozen=True)
class Evidence:
    """JPEG bytes of the clean and annotated frames and their sha256 (hex)."""

    clean_jpeg: bytes
    annotated_jpeg: bytes
    clean_sha256: str
    annotated_sha256: str


def annotate(frame: np.ndarray, v: RollVerdict) -> np.ndarray:
    """Draws boxes, faces, tilt/stacked flags and the reasons on a copy of `frame` (BGR)."""
    out = frame.copy()
    scale = max(out.shape[:2]) / 800
    flagged = {i for r in v.reasons for i in r.dice}
    for i in range(len(v.dice)):
        x0, y0, x1, y1 = (round(float(c)) for c in v.dice.boxes[i])
        colour = _COLOURS[v.status] if i in flagged else (200, 200, 200)
        cv2.rectangle(out, (x0, y0), (x1, y1), colour, max(1, int(2 * scale)))
        label = f"{int(v.dice.face[i])} {v.dice.confidence[i]:.2f}"
        if v.dice.tilt[i] >= 0.5:
            label += " cocked"
        if v.dice.stacked[i] >= 0.5:
            label += " stacked"
        cv2.putText(out, label, (x0, max(12, y0 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale,
                    colour, max(1, int(scale)), cv2.LINE_AA)
    lines = [f"{v.status.upper()}  faces {' '.join(map(str, v.faces)) or '-'}"]
    lines += [f"{r.code} ({r.section})" for r in v.reasons]
    for k, text in enumerate(lines):
        y = int((22 + 22 * k) * scale)
        cv2.putText(out, text, (8, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale, (0, 0, 0),
                    max(2, int(3 * scale)), cv2.LINE_AA)
        cv2.putText(out, text, (8, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale,
                    _COLOURS[v.status] if k == 0 else (255, 255, 255), max(1, int(scale)),
                    cv2.LINE_AA)
    return out


def encode(image: np.ndarray, quality: int = 90) -> bytes:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return buf.tobytes()


def evidence(frame: np.ndarray, v: RollVerdict, quality: int = 90) -> Evidence:
    """The clean frame exactly as read, and the annotated one, ready for the outbox."""
    clean = encode(frame, quality)
    annotated = encode(annotate(frame, v), quality)
    return Evidence(clean, annotated, hashlib.sha256(clean).hexdigest(),
                    hashlib.sha256(annotated).hexdigest())
