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
models/reader.md, "Session 47") the fit read 99.64 % (one view) and 99.80 % (four views
averaged) of the faces right against 97.85 and 98.28 % for the peaks.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np
from threadpoolctl import ThreadpoolController

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
# 99.53 % of one view's maps, before the constant term) with 0.4 of the templates.
ANGLE_STEP_DEG = 15.0
SHIFTS = (-1.0, 0.0, 1.0)  # cells, around the map's centre of mass
PIP_SIGMA = 1.0  # cells: the trained target's Gaussian (models/crops.py)
ONE_SIGMAS = (1.0, 1.5, 2.0, 2.5)  # a lone pip is often painted large
CENTRE_FLOOR = 0.1  # heat under this does not pull the centre
# The centre of mass looks this x side past the fit's radius: a wide die's corner pip just
# outside the radius of an off-centre crop is pulled in, not left out (same reads on the
# tuning suite at 0.5, 0.55, 0.6 and 0.65).
CENTRE_REACH = 0.1


@lru_cache(maxsize=1)
def _blas() -> ThreadpoolController:
    """The process's BLAS libraries, found once (a lookup walks every loaded library)."""
    return ThreadpoolController()


def _template(cx: np.ndarray, cy: np.ndarray, at: np.ndarray, sigma: float) -> np.ndarray:
    """Unit Gaussians of `sigma` cells at the pips `at` (K, 2), summed, at cells (cx, cy)."""
    d2 = (cx[:, None] - at[:, 0]) ** 2 + (cy[:, None] - at[:, 1]) ** 2
    return np.exp(-d2 / (2 * sigma ** 2)).sum(1)


@lru_cache(maxsize=8)
def _bank(h: int, w: int, side: float, radius: float) -> tuple:
    """The layout templates, each stored once and shifted by moving the map instead.

    Returns (T, means, norms, faces, inside, near, centring): T (M, cells of `near`)
    float32, the unshifted templates over the cells within `radius` x side plus the largest
    shift; means and norms (len(SHIFTS)^2, M) float32 of each shifted template, its mean
    over the cells within the radius (`inside`) and its norm over the whole map, less that
    mean inside; faces (M,) 1-6; the (h, w) masks. Templates with their shifts in one
    float32 bank took 4.4 MB, and building it 70 MB more, of the edge's peak memory
    (bench_edge.py, session 47).
    """
    if any(float(d) != int(d) for d in SHIFTS):
        raise ValueError(f"pip layout shifts must be whole cells, got {SHIFTS}")
    yy, xx = np.mgrid[0:h, 0:w]
    cx, cy = (xx + 0.5 - w / 2).ravel(), (yy + 0.5 - h / 2).ravel()
    inner = np.hypot(cx, cy) <= radius * side
    reach = max(abs(d) for d in SHIFTS) * np.sqrt(2.0)
    near = np.hypot(cx, cy) <= radius * side + reach
    shifts = [(dx, dy) for dx in SHIFTS for dy in SHIFTS]
    rows, means, norms, faces = [], [], [], []
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
                    rows.append(_template(cx, cy, at, sigma)[near].astype(np.float32))
                    faces.append(face)
                    mean, norm = [], []
                    for dx, dy in shifts:
                        t = _template(cx - dx, cy - dy, at, sigma)
                        # Less its mean within the radius: the fit is A x template + a
                        # constant, so a map evenly faint or bright (no pips, a glare)
                        # explains nothing.
                        t_in = t[inner] - t[inner].mean()
                        mean.append(t[inner].mean())
                        # The norm counts the pips outside the radius too: a layout too
                        # wide for the die, most of its pips out of reach, must not pass
                        # for the few it keeps inside.
                        norm.append((t_in * t_in).sum() + (t[~inner] ** 2).sum())
                    means.append(mean)
                    norms.append(norm)
    # The cells the centre of mass is taken over (`CENTRE_REACH`), kept with the bank: the
    # reader calls the fit on every frame.
    centring = np.hypot(cx, cy) <= (radius + CENTRE_REACH) * side
    return (np.array(rows, np.float32), np.array(means, np.float32).T,
            np.array(norms, np.float32).T, np.array(faces, np.int8), inner.reshape(h, w),
            near.reshape(h, w), centring.reshape(h, w))


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
    t, means, norms, faces, inside, near, centring = _bank(h, w, side, float(radius))
    maps = _centred(np.asarray(pip_heatmap, np.float32).reshape(n, h, w), centring) * inside
    pad = int(max(abs(d) for d in SHIFTS))
    padded = np.pad(maps, ((0, 0), (pad, pad), (pad, pad)))
    mass = maps.sum(axis=(1, 2))[:, None]
    # <map, template shifted by (dx, dy)> = <map moved by (-dx, -dy), template>
    moved = np.stack([padded[:, pad + int(dy):pad + int(dy) + h, pad + int(dx):pad + int(dx) + w]
                      [:, near] for dx in SHIFTS for dy in SHIFTS])  # (shifts, N, cells)
    # One BLAS thread: numpy's BLAS splits even this small product over threads that must
    # wake, then spin on, the cores onnxruntime reads with. With both cores busy rendering
    # scenes a two-dice fit took a p50 of 36 ms on all threads and 0.64 ms on one, and a
    # two-dice read beside two spinning processes 40 ms against 25 (session 66,
    # `bench/bench_reader_load.py`). The sums differ from two threads' by rounding alone
    # (6e-6 at most over random maps of 1-39 crops).
    with _blas().limit(limits=1, user_api="blas"):
        dots = moved.reshape(-1, moved.shape[2]) @ t.T
    dots = dots.reshape(len(moved), n, -1) - means[:, None, :] * mass[None]
    score = np.where(dots > 0, dots * dots / norms[:, None, :], 0.0)  # (shifts, N, M)
    flat = score.transpose(1, 0, 2).reshape(n, -1)
    best = flat.argmax(axis=1)
    k, j = np.divmod(best, t.shape[0])
    strength = dots[k, np.arange(n), j] / norms[k, j]
    return np.where(strength >= min_strength, faces[j], 0).astype(np.int8)
