"""Several views of each die's crop, read in one batch and averaged (test-time augmentation).

The crop reader was trained on crops turned any way and mirrored (`models/crops.py`), with
the die's offset in the frame (`geom`) turned with them. So a quarter turn or a mirror image
of a crop, with its `geom` turned alike, is as valid a view of the same die, and each view
errs a little differently. Averaging the raw outputs of V views steadies the face, the pip
heatmap and the flags: on the verdict tuning suite (seeds 9200-9202) four views called 36.7 %
of the good rolls valid against 26.5 % for one, with unsafe rolls caught as often (99.25 %);
docs/verdicts.md has the figures.
"""

from __future__ import annotations

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


def expand(batch: np.ndarray, geom: np.ndarray, views: int) -> tuple[np.ndarray, np.ndarray]:
    """Stacks V views of every crop, view-major.

    Args:
        batch: (N, 3, S, S) float32 crops.
        geom: (N, 3) float32 `preprocess.die_geometry` of the crops' dice.
        views: V, 1-8: quarter turns 0-3, then views 4-7 mirror turns 0-3.

    Returns:
        (V * N, 3, S, S) crops and (V * N, 3) geometry; rows k * N .. k * N + N - 1 are view k.
    """
    if not 1 <= views <= MAX_VIEWS:
        raise ValueError(f"views must be 1-{MAX_VIEWS}, got {views}")
    if views == 1:
        return batch, geom
    crops, geoms = [], []
    for v in range(views):
        k, mirror = v % 4, v >= 4
        b = batch[:, :, :, ::-1] if mirror else batch
        crops.append(np.rot90(b, k, axes=(2, 3)))
        geoms.append(_turn_geom(geom, k, mirror))
    return (np.ascontiguousarray(np.concatenate(crops), np.float32),
            np.concatenate(geoms).astype(np.float32))


def merge(outs: dict[str, np.ndarray], n: int, views: int) -> dict[str, np.ndarray]:
    """Averages the reader's outputs over the views of `expand`, per die.

    Maps (2-D per die, like `pip_heatmap` (V * N, 1, h, w)) are turned back to the first
    view's frame before they are averaged; vectors (logits) are averaged as they are.

    Returns:
        The same names, with N rows each.
    """
    if views == 1:
        return outs
    merged = {}
    for name, value in outs.items():
        value = np.asarray(value, np.float32)
        if value.shape[0] != n * views:
            raise ValueError(f"{name}: expected {n * views} rows for {views} views of {n} "
                             f"crops, got {value.shape[0]}")
        parts = value.reshape(views, n, *value.shape[1:])
        if value.ndim == 4:
            back = [np.rot90(parts[v], -(v % 4), axes=(2, 3)) for v in range(views)]
            parts = np.stack([b[:, :, :, ::-1] if v >= 4 else b for v, b in enumerate(back)])
        merged[name] = parts.mean(axis=0).astype(np.float32)
    return merged
