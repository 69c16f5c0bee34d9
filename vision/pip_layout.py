"""The pip reading as a fit of the six pip layouts to the pip heatmap (`ReaderConfig.pip_reading`
"layout"), instead of counting its peaks.

Why: counting peaks over a fixed line reads a blurred or dim die's weak pip as missing and a
neighbour's stray mark as one more (6 read 5, 3 read 2 or 4, 5 read 4 or 6), and each such
count holds a good roll for review (`readings_disagree`). A face's pips are alike in
strength, so the fit asks which layout, at one common strength free to be low, explains the
heatmap best: a pip much weaker than its fellows counts as absent, a faint map whose pips
are all weak still reads. Every layout is point-symmetric about the face's centre, so the
map is first centred on its own mass. It never looks at the face classifier: the two
readings stay independent (DESIGN.md, the reader's output contract).

On the label boxes of the tuning suite's flat dice (seeds 9200-9202, 9,165 dice; docs in
models/reader.md, "Session 47") the fit read 99.5-99.6 % of the counts right against
97.9-98.3 % for the peaks.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

# Pip centres per face in face units, the outer pips at +-1 (as `datasets.dice.PIP_LAYOUT`,
# which the runtime must not import: the generator is not installed on the edge).
LAYOUTS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (-1, 1), (1, -1), (1, 1)),
    5: ((-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}
# The outer pips' offset from the face centre, x the die side: dice in use put them at 0.15-
# 0.38 side (the generator's styles draw 0.3-0.75 of the half side).
SPREADS = np.geomspace(0.15, 0.42, 7)
# 15 degrees and 7 spreads read as well as 7.5 and 9 on the tuning suite's dice (99.54 against
# 99.53 % of one view's maps) at 0.4 of the templates: 0.35 ms for ten dice.
ANGLE_STEP_DEG = 15.0
SHIFTS = (-1.0, 0.0, 1.0)  # cells, around the map's centre of mass
PIP_SIGMA = 1.0  # cells: the trained target's Gaussian (models/crops.py)
ONE_SIGMAS = (1.0, 1.5, 2.0, 2.5)  # a lone pip is often painted large
CENTRE_FLOOR = 0.1  # heat under this does not pull the centre
# The centre of mass looks this x side past the fit's radius: a wide die's corner pip just
# outside the radius of an off-centre crop is pulled in, not left out (same reads on the
# tuning suite at 0.5, 0.55, 0.6 and 0.65).
CENTRE_REACH = 0.1


@lru_cache(maxsize=8)
def _bank(h: int, w: int, side: float, radius: float) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray, np.ndarray]:
    """Layout templates: (T, norms, faces, inside) with T (M, cells within `radius` x side
    of the centre) float32, norms (M,) over the whole map, faces (M,) 1-6, inside (h, w)."""
    yy, xx = np.mgrid[0:h, 0:w]
    cx, cy = xx + 0.5 - w / 2, yy + 0.5 - h / 2
    inside = np.hypot(cx, cy) <= radius * side
    px, py = cx.ravel(), cy.ravel()
    rows, faces = [], []
    for face, pips in LAYOUTS.items():
        pts = np.array(pips, np.float64)
        # 4 and 5 repeat every 90 degrees, 2, 3 and 6 every 180; 1 not at all.
        turn = {1: 1e-9, 4: 90.0, 5: 90.0}.get(face, 180.0)
        for angle in np.arange(0.0, turn, ANGLE_STEP_DEG):
            r = np.deg2rad(angle)
            rot = np.array([[np.cos(r), -np.sin(r)], [np.sin(r), np.cos(r)]])
            for spread in (SPREADS * side if face > 1 else (0.0,)):
                for sigma in (ONE_SIGMAS if face == 1 else (PIP_SIGMA,)):
                    at = pts @ rot.T * spread
                    for dx in SHIFTS:
                        for dy in SHIFTS:
                            d2 = (px[:, None] - at[:, 0] - dx) ** 2 + \
                                 (py[:, None] - at[:, 1] - dy) ** 2
                            rows.append(np.exp(-d2 / (2 * sigma ** 2)).sum(1))
                            faces.append(face)
    t = np.array(rows, np.float64)
    # Each template less its mean within the radius: the fit is A x template + a constant,
    # so a map evenly faint or evenly bright (no pips, a glare) explains nothing.
    t_in = t[:, inside.ravel()]
    t_in = t_in - t_in.mean(axis=1, keepdims=True)
    # The norm counts the template's pips outside the radius too: a layout too wide for the
    # die, most of its pips out of reach, must not pass for the few it keeps inside.
    norms = (t_in * t_in).sum(1) + (t[:, ~inside.ravel()] ** 2).sum(1)
    return (np.ascontiguousarray(t_in, np.float32), norms.astype(np.float32),
            np.array(faces, np.int8), inside)


def _centred(maps: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """Each map moved so its centre of mass within `inside` (heat over CENTRE_FLOOR,
    squared, so strong pips lead) sits at the map's centre."""
    n, h, w = maps.shape
    yy, xx = np.mgrid[0:h, 0:w]
    cx, cy = xx + 0.5 - w / 2, yy + 0.5 - h / 2
    weight = np.clip(maps - CENTRE_FLOOR, 0.0, None) ** 2 * inside
    total = weight.sum(axis=(1, 2))
    safe = np.maximum(total, 1e-12)
    dx = np.where(total > 0, (weight * cx).sum(axis=(1, 2)) / safe, 0.0)
    dy = np.where(total > 0, (weight * cy).sum(axis=(1, 2)) / safe, 0.0)
    out = np.empty_like(maps)
    for i in range(n):
        m = np.array([[1, 0, -dx[i]], [0, 1, -dy[i]]], np.float32)
        out[i] = cv2.warpAffine(maps[i], m, (w, h), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return out


def fit_pips(pip_heatmap: np.ndarray, radius: float = 0.5, crop_scale: float = 1.5,
             min_strength: float = 0.2) -> np.ndarray:
    """The pip reading: the face 1-6 whose layout best explains each crop's heatmap.

    Each layout template t (unit pips, every turn, spread and small shift), less its mean,
    is scaled to the map H by least squares, A = <H, t> / <t, t>, leaving the residual
    |H - mean H|^2 - <H, t>^2 / <t, t>: the best template is the one with the largest
    <H, t>^2 / <t, t> (A > 0). Only cells within `radius` x the die side of the centre take
    part, as in `count_pips`.

    Args:
        pip_heatmap: (N, 1, h, w) sigmoid pip-centre probabilities; the crop spans
            `crop_scale` die sides.
        min_strength: the best template's strength A must reach this, else the map shows
            no pips to read.

    Returns:
        (N,) int8 face 1-6, or 0 where no pips show (not a valid reading).
    """
    n, _, h, w = pip_heatmap.shape
    if n == 0:
        return np.zeros(0, np.int8)
    side = float(w / crop_scale)
    t, norms, faces, inside = _bank(h, w, side, float(radius))
    yy, xx = np.mgrid[0:h, 0:w]
    reach = np.hypot(xx + 0.5 - w / 2, yy + 0.5 - h / 2) <= (radius + CENTRE_REACH) * side
    maps = _centred(np.asarray(pip_heatmap, np.float32).reshape(n, h, w), reach)
    dots = maps[:, inside] @ t.T
    score = np.where(dots > 0, dots * dots / norms, 0.0)
    best = score.argmax(axis=1)
    strength = dots[np.arange(n), best] / norms[best]
    return np.where(strength >= min_strength, faces[best], 0).astype(np.int8)
