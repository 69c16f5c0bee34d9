"""Several views of each die's crop, read one view at a time and averaged (test-time augmentation).

The crop reader was trained on crops turned any way and mirrored (`models/crops.py`), with
the die's offset in the frame (`geom`) turned with them. So a quarter turn or a mirror image
of a crop, with its `geom` turned alike, is as valid a view of the same die, and each view
errs a little differently. Averaging the raw outputs of V views steadies the face, the pip
heatmap and the flags: on the verdict tuning suite (seeds 9200-9202) four views called 36.7 %
of the good rolls valid against 26.5 % for one, with unsafe rolls caught as often (99.25 %);
docs/verdicts-history.md (session 8) has the figures.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

MAX_VIEWS = 8  # four quarter turns, then the same four mirrored


def _turn_geom(geom: np.ndarray, k: int, mirror: bool) -> np.ndarray:
    """`geom` (dx, dy, log size) as the frame would give it, turned like the crop.

    np.rot90 turns an image a quarter anticlockwise on screen: a point at (x, y) from the
    centre, y down, goes to (y, -x). A mirror left to right sends x to -x, first.
    """
    g = geom.copy()
    if mirror:
        g[:, 0] = -g[:, 0]
    for _ in range(k):
        g[:, 0], g[:, 1] = g[:, 1].copy(), -g[:, 0]
    return g


def turn(batch: np.ndarray, geom: np.ndarray, v: int) -> tuple[np.ndarray, np.ndarray]:
    """View v of every crop, with its geometry turned alike.

    Args:
        batch: (N, 3, S, S) float32 crops.
        geom: (N, 3) float32 `preprocess.die_geometry` of the crops' dice.
        v: 0-7: quarter turns 0-3, then views 4-7 mirror turns 0-3.

    Returns:
        (N, 3, S, S) crops and (N, 3) geometry.
    """
    k, mirror = v % 4, v >= 4
    b = batch[:, :, :, ::-1] if mirror else batch
    return (np.ascontiguousarray(np.rot90(b, k, axes=(2, 3)), np.float32),
            _turn_geom(np.asarray(geom, np.float32), k, mirror))


def turn_back(maps: np.ndarray, v: int) -> np.ndarray:
    """(N, C, h, w) maps of view v, in the first view's frame."""
    back = np.rot90(maps, -(v % 4), axes=(2, 3))
    return back[:, :, :, ::-1] if v >= 4 else back


def sum_views(run: Callable[[np.ndarray, np.ndarray], dict[str, np.ndarray]],
              batch: np.ndarray, geom: np.ndarray, views: range) -> dict[str, np.ndarray]:
    """The reader's outputs for the views `views` of every crop, summed (float64).

    One run per view rather than one batch of all: the batch of all views of ten dice
    raised the edge's peak memory by about 37 MB, and per crop it was barely faster.
    Maps (4-D, like `pip_heatmap`) are turned back before they are summed; vectors
    (logits) are summed as they are.

    Args:
        run: reads (crops, geom) and returns the reader's named outputs, N rows each.
        batch, geom: as `turn`'s.
        views: view numbers, each 0-7.
    """
    if not views or min(views) < 0 or max(views) >= MAX_VIEWS:
        raise ValueError(f"view numbers must be 0-{MAX_VIEWS - 1}, at least one, got "
                         f"{list(views)}")
    total: dict[str, np.ndarray] = {}
    for v in views:
        outs = run(*turn(batch, geom, v)) if v else run(batch, geom)
        for name, value in outs.items():
            value = np.asarray(value, np.float32)
            if value.shape[0] != len(batch):
                raise ValueError(f"{name}: expected {len(batch)} rows, got {value.shape[0]}")
            value = turn_back(value, v) if value.ndim == 4 else value
            total[name] = value.astype(np.float64) + total.get(name, 0.0)
    return total


def average_views(run: Callable[[np.ndarray, np.ndarray], dict[str, np.ndarray]],
                  batch: np.ndarray, geom: np.ndarray, views: int) -> dict[str, np.ndarray]:
    """The reader's outputs averaged over the first `views` views (1-8) of every crop
    (`sum_views`)."""
    if not 1 <= views <= MAX_VIEWS:
        raise ValueError(f"views must be 1-{MAX_VIEWS}, got {views}")
    total = sum_views(run, batch, geom, range(views))
    return {name: (value / views).astype(np.float32) for name, value in total.items()}
