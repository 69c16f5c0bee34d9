"""Places that are not dice, for the reader's die-or-not head.

The detector works on a 320-pixel view, where a casino chip's edge, the stick, a d20 or a
shadow can look like a die's blob. The reader sees the same place from the full-resolution
frame and can tell. It learns that from two kinds of negatives per training image:

- mined: the detector's own peaks, at a low threshold, that lie on no die. These are the
  hard cases the runtime will meet.
- random: a few places away from every die, at the frame's die size, for variety.

A place on a die the labels leave out (synthetic dice less than 30 % visible, under another
die or behind the shaker's wall) is neither: it is skipped. Real photos are not labelled so
completely: epanemu leaves some six-sided dice without a box. So on a real photo a mined
place that a reader reads as a face, with its pips agreeing, is skipped too (`looks_like_d6`).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np

from dicecall.models.data import Sample, read_rgb
from dicecall.vision.preprocess import die_geometry

MINE_THRESHOLD = 0.1  # well under the runtime's detector threshold: the cascade's range
MINED_AWAY = 0.6  # a mined peak farther than this x the die size from every die centre
RANDOM_AWAY = 0.9  # random places farther than this x the die size from every die centre
RANDOM_PER_IMAGE = 1
MAX_MINED_PER_IMAGE = 8  # epanemu's busy photos would otherwise dominate

Detect = Callable[[np.ndarray], np.ndarray]  # RGB frame -> [M, 5] cx, cy, w, h, score
# RGB frame, [M, 3] cx, cy, size -> [M] bool: the place looks like a labelled die would
LooksLikeDie = Callable[[np.ndarray, np.ndarray], np.ndarray]


def all_dice(sample: Sample) -> tuple[np.ndarray, np.ndarray]:
    """Centres [K, 2] and sizes [K] of every die in the image, hidden ones included."""
    centres, sizes = sample.centres, np.maximum(sample.boxes[:, 2] - sample.boxes[:, 0],
                                                sample.boxes[:, 3] - sample.boxes[:, 1])
    scene = sample.image.with_suffix(".json")
    if sample.source.startswith("synthetic") and scene.is_file():
        dice = json.loads(scene.read_text()).get("dice", [])
        if dice:
            b = np.array([d["box"] for d in dice], np.float32).reshape(-1, 4)
            centres = (b[:, :2] + b[:, 2:]) / 2
            sizes = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
    return np.asarray(centres, np.float32).reshape(-1, 2), np.asarray(sizes, np.float32)


def geometry(sample: Sample, places: np.ndarray, shape: tuple) -> np.ndarray:
    """[M, 3] `die_geometry` of each place, taken against the sample's labelled dice, as the
    runtime takes a false detection's against the real dice found with it."""
    from dicecall.models.crops import die_size

    out = np.zeros((len(places), 3), np.float32)
    for j, (cx, cy, size) in enumerate(places):
        out[j] = die_geometry(np.vstack([sample.centres, [[cx, cy]]]),
                              np.append(die_size(sample), size), shape, sample.view)[-1]
    return out


def _away(points: np.ndarray, centres: np.ndarray, sizes: np.ndarray, frac: float
          ) -> np.ndarray:
    """[M] bool: each point is farther than frac x size from every die centre."""
    if len(centres) == 0 or len(points) == 0:
        return np.ones(len(points), bool)
    d = np.linalg.norm(points[:, None, :] - centres[None, :, :], axis=2)
    return (d > frac * np.maximum(sizes, 4.0)[None, :]).all(axis=1)


def image_negatives(sample: Sample, frame: np.ndarray, detect: Detect,
                    rng: np.random.Generator, looks_like_die: LooksLikeDie | None = None
                    ) -> np.ndarray:
    """[M, 3] float32 cx, cy, size (frame pixels) of one image's negatives."""
    centres, sizes = all_dice(sample)
    found = detect(frame)
    mined = found[_away(found[:, :2], centres, sizes, MINED_AWAY)][:MAX_MINED_PER_IMAGE]
    mined = np.column_stack([mined[:, :2], np.maximum(mined[:, 2], mined[:, 3])])
    if looks_like_die is not None and not sample.source.startswith("synthetic") and len(mined):
        mined = mined[~looks_like_die(frame, mined)]
    rows = [mined]
    h, w = frame.shape[:2]
    typical = float(np.median(sizes)) if len(sizes) else 0.06 * max(h, w)
    for _ in range(RANDOM_PER_IMAGE):
        size = typical * float(np.exp(rng.uniform(-0.3, 0.3)))
        p = rng.uniform([size / 2, size / 2], [max(w - size / 2, size), max(h - size / 2, size)])
        if _away(p[None], centres, sizes, RANDOM_AWAY)[0]:
            rows.append(np.array([[p[0], p[1], size]]))
    return np.concatenate(rows).astype(np.float32).reshape(-1, 3)


def mine(samples: list[Sample], detect: Detect, seed: int,
         looks_like_die: LooksLikeDie | None = None) -> list[np.ndarray]:
    """Each sample's negatives, [M, 3] cx, cy, size; reproducible from `seed`."""
    rng = np.random.default_rng([seed, 7717])
    return [image_negatives(s, read_rgb(s.image), detect, rng, looks_like_die)
            for s in samples]


def looks_like_d6(path, confidence: float = 0.5) -> LooksLikeDie:
    """A reader ONNX as a `LooksLikeDie`: its face probability reaches `confidence` and its
    pip count names the same face, two readings agreeing on a six-sided die."""
    from dicecall.models.contract import CROP_SCALE, crop_die, crops_to_input, die_geometry
    from dicecall.models.evaluate import recipe_count_pips
    from dicecall.models.pipeline import session
    from dicecall.vision.decode import softmax
    from dicecall.vision.reader import reader_feeds

    reader = session(path)

    def check(frame: np.ndarray, places: np.ndarray) -> np.ndarray:
        crops = np.stack([crop_die(frame, x, y, CROP_SCALE * z) for x, y, z in places])
        geom = die_geometry(places[:, :2], places[:, 2], frame.shape)
        logits, heat = reader.run(["face_logits", "pip_heatmap"],
                                  reader_feeds(reader, crops_to_input(crops), geom))
        p = softmax(logits)
        return (p.max(1) >= confidence) & (recipe_count_pips(heat) == p.argmax(1) + 1)

    return check


def onnx_detector(path, threshold: float = MINE_THRESHOLD) -> Detect:
    """The committed (or any exported) detector as a `Detect`, on onnxruntime."""
    from dicecall.models.contract import letterbox
    from dicecall.models.evaluate import decode
    from dicecall.models.pipeline import session

    det = session(path)

    def detect(frame: np.ndarray) -> np.ndarray:
        x, scale = letterbox(frame)
        heat, wh, off = det.run(["heatmap", "wh", "offset"], {"image": x})
        return decode(heat[0, 0], wh[0], off[0], scale, threshold)

    return detect
