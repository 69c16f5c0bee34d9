"""Decoding the detector's maps and scoring readings by centre matching (numpy only).

Scoring follows DESIGN.md "Judging the reader": a predicted die matches a labelled die when
the predicted centre lies inside the labelled box, one-to-one, nearest centre first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from dicecall.models.contract import DET_STRIDE
from dicecall.models.data import Sample, read_rgb
from dicecall.vision.config import ReaderConfig
from dicecall.vision.decode import count_pips as vision_count_pips
from dicecall.vision.decode import suppress_near as near_free
from dicecall.vision.scoring import match  # the one centre-matching rule (real-dev README)

DET_THRESHOLD = ReaderConfig().det_threshold  # the runtime's defaults (models/reader.md)
DIE_THRESHOLD = ReaderConfig().die_threshold
NMS_FRAC = 0.5  # a weaker peak nearer than this x the die size to a stronger one is dropped
PIP_THRESHOLD = ReaderConfig().pip_threshold  # the runtime's defaults (models/reader.md)
PIP_RADIUS = ReaderConfig().pip_radius


def decode(
    heat: np.ndarray,
    wh: np.ndarray,
    offset: np.ndarray,
    scale: float,
    threshold: float = DET_THRESHOLD,
    max_dice: int = 100,
    nms_frac: float = NMS_FRAC,
) -> np.ndarray:
    """Turns detector maps into dice.

    Args:
        heat: [80, 80] centre probability.
        wh: [2, 80, 80] box width, height, detector input pixels.
        offset: [2, 80, 80] centre offset in cells (x, y).
        scale: the letterbox scale s; frame pixel = input pixel / s.
        threshold: minimum peak probability.
        max_dice: keep at most this many, highest first.
        nms_frac: see `suppress_near`; 0 keeps every 3x3 peak.

    Returns:
        [M, 5] float32 cx, cy, w, h (frame pixels) and score, highest score first.
    """
    peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= threshold)
    ys, xs = np.nonzero(peaks)
    order = np.argsort(-heat[ys, xs], kind="stable")[:max_dice]
    ys, xs = ys[order], xs[order]
    cx = (xs + offset[0, ys, xs]) * DET_STRIDE / scale
    cy = (ys + offset[1, ys, xs]) * DET_STRIDE / scale
    out = np.stack([cx, cy, wh[0, ys, xs] / scale, wh[1, ys, xs] / scale, heat[ys, xs]], 1)
    return suppress_near(out.astype(np.float32).reshape(-1, 5), nms_frac)


def suppress_near(dice: np.ndarray, frac: float = NMS_FRAC) -> np.ndarray:
    """Drops a peak whose centre lies within `frac` x the size of a stronger die's box.

    A large die can leave two 3x3 local maxima on its flat-topped heatmap peak; both are
    the same die, and the second would count as a false detection.

    Args:
        dice: [M, 5] cx, cy, w, h, score, highest score first.
        frac: radius as a fraction of the stronger die's min(w, h).

    Returns:
        [K, 5] the kept rows, same order.
    """
    return dice[near_free(dice[:, 0], dice[:, 1], dice[:, 2], dice[:, 3], frac)]


@dataclass
class Score:
    """Counts over one dataset; `confusion[true - 1, read - 1]` counts matched dice."""

    images: int = 0
    labelled: int = 0
    found: int = 0
    face_right: int = 0
    false_dets: int = 0
    pips_right: int = 0
    confusion: np.ndarray = field(default_factory=lambda: np.zeros((6, 6), np.int64))
    failures: list[dict] = field(default_factory=list)

    def summary(self) -> dict:
        """Rates as fractions, plus the raw counts."""
        n = max(1, self.labelled)
        return {
            "images": self.images,
            "labelled": self.labelled,
            "found": self.found,
            "face_right": self.face_right,
            "false_dets": self.false_dets,
            "pips_right": self.pips_right,
            "found_rate": self.found / n,
            "face_rate": self.face_right / n,
            "pip_count_rate": self.pips_right / n,
            "false_per_image": self.false_dets / max(1, self.images),
        }


Predictor = Callable[[np.ndarray, Sample], tuple[np.ndarray, np.ndarray, np.ndarray]]


def count_pips(pip_heatmap: np.ndarray, threshold: float = PIP_THRESHOLD) -> np.ndarray:
    """Pip count per crop exactly as the runtime counts it (`vision.decode.count_pips`)."""
    return vision_count_pips(pip_heatmap, threshold, PIP_RADIUS)


# The pip count of the training recipe (the negatives' screen and the best-epoch metric):
# the runtime's until session 10, kept when the runtime's moved to 0.4 / 0.5, so that the
# committed reader's command still trains what it trained.
RECIPE_PIP_THRESHOLD, RECIPE_PIP_RADIUS = 0.5, 0.45


def recipe_count_pips(pip_heatmap: np.ndarray) -> np.ndarray:
    """Pip count per crop as the training recipe counts it."""
    return vision_count_pips(pip_heatmap, RECIPE_PIP_THRESHOLD, RECIPE_PIP_RADIUS)


def score_samples(samples: list[Sample], predict: Predictor) -> Score:
    """Runs `predict(frame_rgb, sample) -> (dice [M, 5], faces [M], pip counts [M])` on each
    sample and scores it; a predictor that is not an oracle ignores the sample's labels."""
    sc = Score()
    for s in samples:
        dets, faces, pips = predict(read_rgb(s.image), s)
        pairs = match(dets[:, :2], s.boxes)
        sc.images += 1
        sc.labelled += len(s.faces)
        sc.found += len(pairs)
        sc.false_dets += len(dets) - len(pairs)
        for i, j in pairs:
            sc.confusion[s.faces[j] - 1, faces[i] - 1] += 1
            sc.face_right += int(faces[i] == s.faces[j])
            sc.pips_right += int(pips[i] == s.faces[j])
        missed = len(s.faces) - len(pairs)
        wrong = sum(int(faces[i] != s.faces[j]) for i, j in pairs)
        if missed or wrong or len(dets) > len(pairs):
            sc.failures.append(
                {
                    "image": str(s.image),
                    "missed": missed,
                    "wrong_face": wrong,
                    "false": len(dets) - len(pairs),
                }
            )
    return sc


Read = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def sweep_thresholds(
    samples: list[Sample], detect: Callable[[np.ndarray], np.ndarray], thresholds: list[float],
    read: Read | None = None, die_thresholds: tuple[float, ...] = (0.0,),
) -> list[dict]:
    """Found rate and false detections per image at each detector threshold, and with
    `read(frame_rgb, dice) -> (faces [M], die probability [M])` at each die-or-not
    threshold too, with the rate of dice read right.

    `detect(frame_rgb)` must return [M, 5] dice with scores, at a threshold at or below
    the smallest one swept. Each frame is detected and read once.
    """
    runs = []
    for s in samples:
        frame = read_rgb(s.image)
        d = detect(frame)
        faces, die = read(frame, d) if read is not None and len(d) else (
            np.zeros(len(d), np.int64), np.ones(len(d), np.float32))
        runs.append((d, faces, die, s))
    rows = []
    labelled = sum(len(s.faces) for *_, s in runs)
    for t in thresholds:
        for u in die_thresholds:
            found = false = right = 0
            for d, faces, die, s in runs:
                keep = (d[:, 4] >= t) & (die >= u)
                pairs = match(d[keep, :2], s.boxes)
                found, false = found + len(pairs), false + int(keep.sum()) - len(pairs)
                right += sum(int(faces[keep][i] == s.faces[j]) for i, j in pairs)
            rows.append({"threshold": t, "die_threshold": u,
                         "found_rate": found / max(1, labelled),
                         "read_rate": right / max(1, labelled) if read is not None else None,
                         "false_per_image": false / max(1, len(samples))})
    return rows


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """Chance a positive scores above a negative, ties counted half (the Mann-Whitney U over
    both counts, by ranks, so tens of thousands of scores cost no pairwise matrix). NaN when
    either side is empty."""
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    _, inverse, counts = np.unique(np.concatenate([pos, neg]), return_inverse=True,
                                   return_counts=True)
    ends = np.cumsum(counts)
    ranks = (ends - (counts - 1) / 2.0)[inverse]  # tied scores share their mean rank
    u = ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2.0
    return float(u / (len(pos) * len(neg)))
