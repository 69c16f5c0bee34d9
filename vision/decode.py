"""Model outputs -> dice: peak finding on the centre heatmap and pip counting."""

from __future__ import annotations

import numpy as np

# The reader's margin_logit: sigmoid x this = the die's up margin in degrees, capped here. A
# flat die's margin is 90 (the next face points sideways); everything that matters to the
# void call lies far below, so the output spends its range there: any margin of 45 degrees
# or more (a die at most about 22 degrees off flat) is learnt, and read, as 45.
MARGIN_SPAN_DEG = 45.0


def _peaks(heat: np.ndarray, threshold: float) -> np.ndarray:
    """Local maxima over 3x3 neighbourhoods at or above `threshold`.

    Args:
        heat: (H, W) float32 heatmap.

    Returns:
        (K, 2) int64 (row, col) of each peak, strongest first.
    """
    rows, cols = np.nonzero(_is_peak(heat[None], np.float32(threshold))[0])
    order = np.argsort(-heat[rows, cols], kind="stable")
    return np.stack([rows[order], cols[order]], axis=1)


def _is_peak(maps: np.ndarray, threshold: np.ndarray) -> np.ndarray:
    """(N, H, W) bool: cells at or over their map's `threshold` (scalar or (N,)) that no
    cell of their 3x3 neighbourhood exceeds; outside the map counts as -inf.

    One pass over a batch of maps: the pip count of a ten-dice frame looked at each map on
    its own before (session 36)."""
    maps = np.asarray(maps, np.float32)
    n, h, w = maps.shape
    padded = np.full((n, h + 2, w + 2), -np.inf, np.float32)  # np.pad costs more than the rest
    padded[:, 1:-1, 1:-1] = maps
    neigh = maps
    for dy in range(3):
        for dx in range(3):
            neigh = np.maximum(neigh, padded[:, dy:dy + h, dx:dx + w])
    line = np.asarray(threshold, np.float32).reshape(-1, 1, 1)
    return (maps >= neigh) & (maps >= line)


def decode_centres(heatmap: np.ndarray, wh: np.ndarray, offset: np.ndarray, stride: int,
                   scale: float, threshold: float, max_dice: int, near: float = 0.5,
                   frame_size: tuple[int, int] | None = None):
    """Decodes CenterNet outputs into frame coordinates.

    Args:
        heatmap: (1, 1, h, w) sigmoid centre probabilities.
        wh: (1, 2, h, w) box width and height in detector-input pixels.
        offset: (1, 2, h, w) sub-cell offsets (x, y) in cells.
        stride: detector-input pixels per heatmap cell.
        scale: detector input = frame * scale (from `letterbox`).
        near: peaks closer than this x a stronger die's min(w, h) are dropped.
        frame_size: (W, H) of the frame; a peak whose box lies wholly outside it (in the
            letterbox's grey padding, at a low threshold) is dropped before `max_dice`.

    Returns:
        centers (K, 2), boxes (K, 4) in frame pixels, scores (K,), all float32.
    """
    heat = heatmap[0, 0]
    peaks = _peaks(heat, threshold)
    r, c = peaks[:, 0], peaks[:, 1]
    cx = (c + offset[0, 0, r, c]) * stride / scale
    cy = (r + offset[0, 1, r, c]) * stride / scale
    bw = np.maximum(wh[0, 0, r, c], 1.0) / scale
    bh = np.maximum(wh[0, 1, r, c], 1.0) / scale
    if frame_size is not None:
        fw, fh = frame_size
        seen = ((cx + bw / 2 > 0) & (cx - bw / 2 < fw) & (cy + bh / 2 > 0)
                & (cy - bh / 2 < fh))
        r, c, cx, cy, bw, bh = (a[seen] for a in (r, c, cx, cy, bw, bh))
    r, c, cx, cy, bw, bh = (a[:max_dice] for a in (r, c, cx, cy, bw, bh))
    keep = suppress_near(cx, cy, bw, bh, near)
    cx, cy, bw, bh = cx[keep], cy[keep], bw[keep], bh[keep]
    centers = np.stack([cx, cy], axis=1).astype(np.float32)
    boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], 1).astype(np.float32)
    return centers.reshape(-1, 2), boxes.reshape(-1, 4), heat[r, c][keep].astype(np.float32)


def suppress_near(cx, cy, bw, bh, frac: float) -> np.ndarray:
    """Indices of peaks kept: a peak closer than `frac` x min(w, h) of a stronger kept peak
    is the same die (a large die leaves two maxima on its flat-topped heatmap peak).

    Args:
        cx, cy, bw, bh: (K,) centres and sizes, strongest first.
    """
    keep: list[int] = []
    for i in range(len(cx)):
        if all(np.hypot(cx[i] - cx[j], cy[i] - cy[j]) >= frac * min(bw[j], bh[j])
               for j in keep):
            keep.append(i)
    return np.array(keep, np.int64)


def count_pips(pip_heatmap: np.ndarray, threshold: float, radius: float = 0.5,
               crop_scale: float = 1.5, relative: float = 0.0) -> np.ndarray:
    """The independent reading: pips counted on each crop's heatmap.

    Only peaks within `radius` x the die's side of the crop centre count: a crop spans
    `crop_scale` die sides, so a neighbouring die's pips show at its edges, while the top
    face's own pips lie within about 0.42 side of the centre even for a die turned 45 degrees.

    A peak must also reach `relative` x the strongest peak inside the radius (0: off), so a
    neighbour's faint pips do not add to a die whose own pips are clear.

    Args:
        pip_heatmap: (N, 1, h, w) sigmoid pip-centre probabilities.

    Returns:
        (N,) int8: the count when it is a face 1-6, else 0 (not a valid reading).
    """
    n, _, h, w = pip_heatmap.shape
    maps = np.asarray(pip_heatmap, np.float32).reshape(n, h, w)
    yy, xx = np.mgrid[0:h, 0:w]
    side = w / crop_scale
    inside = np.hypot(xx + 0.5 - w / 2, yy + 0.5 - h / 2) <= radius * side
    line = np.full(n, threshold, np.float32)
    if relative and n:
        line = np.maximum(threshold, relative * maps[:, inside].max(axis=1).astype(np.float64)
                          ).astype(np.float32)
    counts = (_is_peak(maps, line) & inside).sum(axis=(1, 2))
    return np.where((counts >= 1) & (counts <= 6), counts, 0).astype(np.int8)


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    z = logits / temperature
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def sigmoid(x: np.ndarray) -> np.ndarray:
    return (1 / (1 + np.exp(-x))).astype(np.float32)
