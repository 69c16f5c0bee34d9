"""The reader's crop cache and its augmented training crops.

Each labelled die is cut once from its full-resolution image, as a square of CACHE_SPAN
times the die's size resized to CACHE_SIZE pixels, and kept in one uint8 array. Training
crops are then cheap affine warps of the cached squares: a side of 1.5x the die size times
a random factor, the centre moved as a detector's error would move it, any rotation.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from dicecall.models.augment import photometric
from dicecall.models.contract import (
    CROP_SCALE,
    CROP_SIZE,
    PIP_GRID,
    PIP_STRIDE,
    crop_die,
    die_geometry,
)
from dicecall.models.data import TOP_FACE_WIDEN, Sample, read_rgb
from dicecall.models.negatives import geometry as negatives_geometry
from dicecall.vision.preprocess import SOFTEN_BELOW

CACHE_SIZE = 112  # cached square side, pixels
CACHE_SPAN = 3.0  # cached square side / die size
MAX_PIPS = 6


@dataclass
class CropCache:
    """Parallel arrays, one row per die.

    Attributes:
        images: [D, 112, 112, 3] uint8 RGB squares centred on the labelled centre.
        faces: [D] int64 1-6.
        tilt, stacked: [D] float32 0/1, NaN = unknown.
        pips: [D, 6, 2] float32 pip centres in cache pixels, NaN-padded; all NaN = unknown.
        real: [D] bool, from a real photo.
        geom: [D, 3] float32 where the die sits in its frame (`contract.die_geometry`).
        is_die: [D] float32 1 = a labelled die, 0 = a place that is not one
            (`negatives.py`); a negative's face, flags and pips are masked.
        margin: [D] float32 up margin in degrees (`Sample.margin`), NaN = unknown.
        px: [D] float32 the die's size in its own frame's pixels, which says how far down the
            runtime would scale its crop (`random_crop`'s `soften`); None = not kept.
    """

    images: np.ndarray
    faces: np.ndarray
    tilt: np.ndarray
    stacked: np.ndarray
    pips: np.ndarray
    real: np.ndarray
    geom: np.ndarray
    is_die: np.ndarray
    margin: np.ndarray
    px: np.ndarray | None = None


def die_size(sample: Sample) -> np.ndarray:
    """[K] whole-die size in pixels, max(w, h), widened for top-face-only boxes."""
    b = sample.boxes
    size = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
    return size if sample.whole_box else size * TOP_FACE_WIDEN


def build_cache(samples: list[Sample], negatives: list[np.ndarray] | None = None) -> CropCache:
    """Cuts every die of every sample into the cache, then each sample's negatives
    ([M, 3] cx, cy, size per sample, `negatives.mine`) when given."""
    ims, faces, tilt, stacked, pips, real, geom, is_die = [], [], [], [], [], [], [], []
    margin, px = [], []
    for i, s in enumerate(samples):
        neg = np.zeros((0, 3), np.float32) if negatives is None else negatives[i]
        if len(s.faces) == 0 and len(neg) == 0:
            continue
        frame = read_rgb(s.image)
        centres = np.concatenate([s.centres, neg[:, :2]])
        sizes = np.concatenate([die_size(s), neg[:, 2]])
        px.append(sizes.astype(np.float32))
        for k, ((cx, cy), size) in enumerate(zip(centres, sizes, strict=True)):
            span = CACHE_SPAN * max(float(size), 4.0)
            ims.append(crop_die(frame, cx, cy, span, CACHE_SIZE))
            p = np.full((MAX_PIPS, 2), np.nan, np.float32)
            if k < len(s.faces) and s.pips[k] is not None:
                q = (s.pips[k][:MAX_PIPS] - [cx - span / 2, cy - span / 2]) * CACHE_SIZE / span
                p[: len(q)] = q
            pips.append(p)
        unknown = np.full(len(neg), np.nan, np.float32)
        faces.append(np.concatenate([s.faces, np.ones(len(neg), np.int64)]))
        geom.append(np.concatenate([die_geometry(s.centres, die_size(s), frame.shape, s.view),
                                    negatives_geometry(s, neg, frame.shape)]))
        tilt.append(np.concatenate([s.tilt, unknown]))
        stacked.append(np.concatenate([s.stacked, unknown]))
        known = (s.margin if s.margin is not None
                 else np.full(len(s.faces), np.nan, np.float32))
        margin.append(np.concatenate([known, unknown]))
        real.append(np.full(len(centres), not s.source.startswith("synthetic")))
        is_die.append(np.concatenate([np.ones(len(s.faces)), np.zeros(len(neg))]))
    return CropCache(np.stack(ims), np.concatenate(faces), np.concatenate(tilt),
                     np.concatenate(stacked), np.stack(pips), np.concatenate(real),
                     np.concatenate(geom), np.concatenate(is_die).astype(np.float32),
                     np.concatenate(margin).astype(np.float32), np.concatenate(px))


def random_crop(cache: CropCache, i: int, rng: np.random.Generator, duotone: float = 0.0,
                soften: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One augmented 64x64 crop of die i, its pip heatmap target and its geometry;
    `duotone`: `augment.photometric`'s. `soften`: the runtime's `ReaderConfig.soften_sigma`;
    a crop the runtime would cut from the die's frame at a scale under `SOFTEN_BELOW` is
    blurred as the runtime blurs it, so a reader trained on large renders learns the crops
    it will be given (rule 52 softens them at run time; models/reader.md, session 53).

    Returns:
        (crop, pip_heat, geom): [64, 64, 3] uint8 RGB; [32, 32] float32 in [0, 1], or all -1
        when the die's pips are unknown (the loss masks it); [3] float32, the direction to
        the frame's centre turned and mirrored with the crop, so perspective stays consistent.
    """
    unit = CACHE_SIZE / CACHE_SPAN  # cache pixels per die size
    side = CROP_SCALE * unit * np.exp(rng.uniform(np.log(0.8), np.log(1.6)))
    centre = CACHE_SIZE / 2 + rng.uniform(-0.15, 0.15, 2) * unit
    angle = rng.uniform(0, 360) if rng.random() < 0.5 else rng.choice([0, 90, 180, 270])
    k = CROP_SIZE / side
    m = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), float(angle), k)
    m[:, 2] += CROP_SIZE / 2 - centre
    if rng.random() < 0.5:  # mirror: a mirrored face has the same number of pips
        m = np.array([[-1, 0, CROP_SIZE], [0, 1, 0]]) @ np.vstack([m, [0, 0, 1]])
    src = cache.images[i]
    if k < 0.8:
        src = cv2.GaussianBlur(src, (0, 0), 0.4 / k)  # anti-alias, as INTER_AREA would
    crop = cv2.warpAffine(src, m, (CROP_SIZE, CROP_SIZE), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
    # `side` is in cache pixels; the same crop in the die's own frame is px/unit larger.
    if soften > 0 and cache.px is not None and \
            CROP_SIZE / (side * float(cache.px[i]) / unit) < SOFTEN_BELOW:
        crop = cv2.GaussianBlur(crop, (0, 0), soften)
    crop = photometric(crop, rng, duotone=duotone)
    geom = cache.geom[i].copy()
    geom[:2] = (m[:, :2] / k) @ geom[:2]
    # The detector's box size is off by a few percent; so is the size ratio it feeds.
    geom[2] += rng.normal(0.0, 0.03)
    return crop, _pip_heat(cache.pips[i], m), geom


def _pip_heat(pips: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Gaussian peaks (sigma 1 cell) at the warped pip centres on the 32x32 grid."""
    ok = ~np.isnan(pips[:, 0])
    if not ok.any():
        return np.full((PIP_GRID, PIP_GRID), -1.0, np.float32)
    q = (pips[ok] @ m[:, :2].T + m[:, 2]) / PIP_STRIDE
    yy, xx = np.mgrid[0:PIP_GRID, 0:PIP_GRID].astype(np.float32)
    heat = np.zeros((PIP_GRID, PIP_GRID), np.float32)
    for x, y in q:
        ix, iy = int(np.floor(x)), int(np.floor(y))
        heat = np.maximum(heat, np.exp(-((xx - ix) ** 2 + (yy - iy) ** 2) / 2.0))
        if 0 <= ix < PIP_GRID and 0 <= iy < PIP_GRID:
            heat[iy, ix] = 1.0
    return heat
