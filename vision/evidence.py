"""Evidence for every call: the clean frame and an annotated frame, as JPEG with sha256."""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass
from pathlib import Path

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


def model_ids(detector: Path, reader: Path) -> dict[str, str]:
    """sha256 (hex) of the model files a table reads with, for the evidence: the detector and
    reader differ by game (vision/config.py `for_game`) and an integrator may name their own,
    so a stored roll must say which made the call."""
    return {name: hashlib.sha256(Path(path).read_bytes()).hexdigest()
            for name, path in (("detector", detector), ("reader", reader))}


def annotate(frame: np.ndarray, v: RollVerdict, models: dict[str, str] | None = None
             ) -> np.ndarray:
    """Draws boxes, faces, tilt/stacked flags, the lamps' tilt and the reasons on a copy of
    `frame` (BGR), and the first 12 hex digits of each model's sha256 at the foot
    (`model_ids`)."""
    out = frame.copy()
    scale = max(out.shape[:2]) / 800
    flagged = {i for r in v.reasons for i in r.dice}
    # Far outside the frame OpenCV's int coordinates overflow; a NaN box cannot be drawn.
    bound = 4 * max(out.shape[:2])
    for i in range(len(v.dice)):
        if not np.isfinite(v.dice.boxes[i]).all():
            continue  # the verdict and the reasons below still say what was read
        x0, y0, x1, y1 = (round(float(c)) for c in np.clip(v.dice.boxes[i], -bound, bound))
        colour = _COLOURS[v.status] if i in flagged else (200, 200, 200)
        cv2.rectangle(out, (x0, y0), (x1, y1), colour, max(1, int(2 * scale)))
        label = f"{int(v.dice.face[i])} {v.dice.confidence[i]:.2f}"
        if v.dice.tilt[i] >= 0.5:
            label += " cocked"
        if v.dice.stacked[i] >= 0.5:
            label += " stacked"
        if np.isfinite(v.dice.lamp_tilt[i]):  # the lamps' reading, where the table has them
            label += f" lamps {v.dice.lamp_tilt[i]:.1f}deg"
        cv2.putText(out, label, (x0, max(12, y0 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale,
                    colour, max(1, int(scale)), cv2.LINE_AA)
    lines = [f"{v.status.upper()}  faces {' '.join(map(str, v.faces)) or '-'}"]
    lines += [f"{code} ({section})" + (f" x{n}" if n > 1 else "")
              for (code, section), n in reason_counts(v).items()]
    room = max(2, int((out.shape[0] / scale - 40) / 22))  # lines above the models' footer
    if len(lines) > room:
        lines = [*lines[:room - 1], f"+{len(lines) - room + 1} more reasons"]
    for k, text in enumerate(lines):
        y = int((22 + 22 * k) * scale)
        cv2.putText(out, text, (8, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale, (0, 0, 0),
                    max(2, int(3 * scale)), cv2.LINE_AA)
        cv2.putText(out, text, (8, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale,
                    _COLOURS[v.status] if k == 0 else (255, 255, 255), max(1, int(scale)),
                    cv2.LINE_AA)
    if models:
        text = "  ".join(f"{name} {sha[:12]}" for name, sha in models.items())
        y = out.shape[0] - int(8 * scale)
        for colour, width in (((0, 0, 0), max(2, int(2 * scale))), ((255, 255, 255), 1)):
            cv2.putText(out, text, (8, y), cv2.FONT_HERSHEY_SIMPLEX, 0.4 * scale, colour,
                        width, cv2.LINE_AA)
    return out


def reason_counts(v: RollVerdict) -> dict[tuple[str, str], int]:
    """(code, section) -> how many findings, in the verdict's order (strictest first): ten
    doubtful dice are one line with a count, not ten."""
    counts: dict[tuple[str, str], int] = {}
    for r in v.reasons:
        counts[r.code, r.section] = counts.get((r.code, r.section), 0) + 1
    return counts


def encode(image: np.ndarray, quality: int = 90) -> bytes:
    if isinstance(quality, bool) or not isinstance(quality, int) or not 1 <= quality <= 100:
        raise ValueError(f"JPEG quality must be a whole number 1-100, got {quality!r}")
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return buf.tobytes()


def with_comment(jpeg: bytes, text: str) -> bytes:
    """`jpeg` with a COM segment holding `text` after its start marker, and after the JFIF
    APP0 segment when there is one (JFIF wants APP0 first); decoders skip it, any JPEG tool
    shows it."""
    data = text.encode()
    if jpeg[:2] != b"\xff\xd8" or len(data) > 65533:
        raise ValueError("not a JPEG, or a comment over 65,533 bytes")
    at = 2
    if jpeg[2:4] == b"\xff\xe0":
        at = 4 + struct.unpack(">H", jpeg[4:6])[0]
    return jpeg[:at] + b"\xff\xfe" + struct.pack(">H", len(data) + 2) + data + jpeg[at:]


def evidence(frame: np.ndarray, v: RollVerdict, quality: int = 90,
             models: dict[str, str] | None = None, clean: bytes | None = None) -> Evidence:
    """The clean frame exactly as read, and the annotated one, ready for the outbox. With
    `models` (`model_ids`) the annotated JPEG names the files that read the frame, drawn and
    in full in its comment ("dicecall models detector=SHA reader=SHA"), so its sha256, which
    the service stores with the roll, covers them. `clean`: `encode(frame, quality)` made
    already (the edge encodes it while the dice settle, off the path to the answer)."""
    clean = encode(frame, quality) if clean is None else clean
    annotated = encode(annotate(frame, v, models), quality)
    if models:
        annotated = with_comment(annotated, "dicecall models " + " ".join(
            f"{name}={sha}" for name, sha in models.items()))
    return Evidence(clean, annotated, hashlib.sha256(clean).hexdigest(),
                    hashlib.sha256(annotated).hexdigest())
