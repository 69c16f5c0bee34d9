"""Scoring the reader on our synthetic JSON scenes, with cocked and stacked recall by band."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .evaluate import Result
from .images import ImageError, load_image
from .scoring import Score, match

TILT_BANDS = ((0, 5), (5, 15), (15, 30), (30, 90))  # degrees; 5 is the labels' cocked line


def evaluate_synthetic(reader, folder: Path, tilt_threshold: float | None = None,
                       stacked_threshold: float | None = None) -> Result:
    """Face and detection score, plus recall of cocked / stacked dice by tilt band.

    A die counts as flagged at the verdict's thresholds (`VerdictConfig` defaults unless
    given), so the recall is the one the no-roll rules get.
    """
    from dicecall.datasets.schema import MIN_VISIBLE, load_folder

    from .verdict import VerdictConfig

    defaults = VerdictConfig()
    tilt_threshold = defaults.tilt_threshold if tilt_threshold is None else tilt_threshold
    stacked_threshold = (defaults.stacked_threshold if stacked_threshold is None
                         else stacked_threshold)

    score = Score()
    bands = {f"{lo}-{hi}": [0, 0] for lo, hi in TILT_BANDS}
    stacked = [0, 0]
    for path, rec in load_folder(folder):
        try:
            frame = load_image(path.parent / rec.image)
        except ImageError:
            score.errors += 1
            continue
        dice = reader.read(frame)
        boxes = np.array([d.box for d in rec.dice], np.float32).reshape(-1, 4)
        faces = np.array([d.face for d in rec.dice], np.int64)
        seen = np.array([d.visible >= MIN_VISIBLE for d in rec.dice], bool)
        pairs = match(dice.centers, boxes)
        on_hidden = {p for p, g in pairs if not seen[g]}
        keep = np.array([p not in on_hidden for p in range(len(dice.face))], bool)
        score.add(rec.image, dice.centers[keep], dice.face[keep], boxes[seen], faces[seen])
        score.hidden += int((~seen).sum())
        for p, g in pairs:
            if not seen[g]:
                continue
            label = rec.dice[g]
            if label.tilt_deg is not None and label.cocked:
                band = next(f"{lo}-{hi}" for lo, hi in TILT_BANDS if lo <= label.tilt_deg < hi
                            or hi == 90)
                bands[band][0] += 1
                bands[band][1] += int(dice.tilt[p] >= tilt_threshold)
            if label.stacked:
                stacked[0] += 1
                stacked[1] += int(dice.stacked[p] >= stacked_threshold)
    by_band = {f"cocked {k} deg": {"labelled": n, "flagged": f, "recall": f / n if n else None}
               for k, (n, f) in bands.items()}
    by_band["stacked"] = {"labelled": stacked[0], "flagged": stacked[1],
                          "recall": stacked[1] / stacked[0] if stacked[0] else None}
    return Result(score, by_band)
