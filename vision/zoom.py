"""The detector's second, zoomed look at a cluster of small dice.

The detector sees the frame shrunk to 320 pixels, 4 pixels to a heatmap cell. Ten dice thrown
into a High Roll throw box land in a tight cluster, often 20 px wide each in a 640x480 frame:
10 px in the detector's view, two and a half cells. Two touching dice then give one peak, or
their peaks fall within `near_peaks` of each other and one is dropped. On the held-out
synthetic throw box scenes most missed dice that were fully in view were such neighbours
(models/detector.md, "The zoomed second look"). The detector was trained at zooms of 0.6-2.2x
around the letterbox scale, so it reads the same cluster cut from the full-resolution frame
and enlarged, where each die spans more cells. Pure geometry here; the reader runs it.
"""

from __future__ import annotations

import numpy as np


def zoom_window(boxes: np.ndarray, frame_shape: tuple, det_size: int, scale: float,
                below: float, target: float, margin: float, min_gain: float
                ) -> tuple[int, int, int, int] | None:
    """The frame window to look at again, or None when a second look would not help.

    Args:
        boxes: (K, 4) first-look boxes (x0, y0, x1, y1) in frame pixels.
        frame_shape: the frame's (H, W, ...).
        det_size: the detector's input side.
        scale: the first look's letterbox scale (detector pixels per frame pixel).
        below: look again only when the median die's side in the first look is under this
            many detector pixels.
        target: the enlargement is capped where the median die would reach this side.
        margin: the window reaches this many median die sides past the outermost dice.
        min_gain: look again only when the window enlarges the dice at least this much.

    Returns:
        (x0, y0, x1, y1) integer frame pixels, inside the frame.
    """
    if len(boxes) == 0 or below <= 0:
        return None
    side = float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
    if side <= 0 or side * scale >= below:
        return None
    h, w = frame_shape[:2]
    x0, y0 = boxes[:, 0].min() - margin * side, boxes[:, 1].min() - margin * side
    x1, y1 = boxes[:, 2].max() + margin * side, boxes[:, 3].max() + margin * side
    # A square window: the letterbox fills all of it, so no detector cell is spent on grey.
    reach = max(x1 - x0, y1 - y0, det_size * side / target)
    reach = min(reach, max(h, w))
    if det_size / reach < min_gain * scale:
        return None
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    span = round(float(reach))
    left = int(np.clip(round(cx - reach / 2), 0, max(0, w - reach)))
    top = int(np.clip(round(cy - reach / 2), 0, max(0, h - reach)))
    return left, top, min(w, left + span), min(h, top + span)


def zoom_windows(boxes: np.ndarray, scores: np.ndarray, frame_shape: tuple, det_size: int,
                 scale: float, below: float, target: float, margin: float, min_gain: float,
                 clusters: int, gap: float) -> list[tuple[int, int, int, int]]:
    """The windows to look at again: one per cluster of dice, strongest cluster first.

    One window around every die cannot enlarge two dice that lie far apart, nor a pair of
    touching dice when a chip far away also gave a (false) peak: the window is then most of
    the frame. Craps' two dice usually lie so (models/detector.md, "The zoomed second look").
    Dice whose centres lie within `gap` median die sides of each other, through any chain of
    neighbours, are one cluster; each gets `zoom_window`. With `clusters` 1 this is one
    window around every die, the runtime before session 23.

    Args:
        scores: (K,) first-look scores; the clusters with the strongest die come first.
        clusters: at most this many windows.
        gap: the link between two dice of one cluster, in median die sides.
        The rest as `zoom_window`.
    """
    if clusters <= 1 or len(boxes) < 2:
        win = zoom_window(boxes, frame_shape, det_size, scale, below, target, margin,
                          min_gain)
        return [] if win is None else [win]
    side = float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    dist = np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1))
    label = np.arange(len(boxes))
    near_pairs = np.nonzero(dist < gap * side)
    for i, j in zip(*near_pairs, strict=True):  # single link: j's cluster joins i's
        label[label == label[j]] = label[i]
    groups = sorted((np.nonzero(label == k)[0] for k in np.unique(label)),
                    key=lambda idx: -float(scores[idx].max()))
    wins = (zoom_window(boxes[idx], frame_shape, det_size, scale, below, target, margin,
                        min_gain) for idx in groups[:clusters])
    return [w for w in wins if w is not None]


def merge_looks(first: tuple, second: tuple, keep_apart: float, limit: int,
                prefer_first: bool = False) -> tuple:
    """One set of dice from the two looks.

    A first-look die with no second-look die near it stays: the second look missed it. One
    with two or more near it was a pair of touching dice under one peak, and they replace it.
    One with exactly one is the same die seen twice, and the surer look's detection is kept:
    an enlarged lone die is sometimes given a tighter box and a lower score (a real photo,
    matteop65 valid_13, lost its only die that way).

    Args:
        first, second: (centers (K, 2), boxes (K, 4), scores (K,)) in frame pixels.
        keep_apart: a second-look die is near a first-look one when closer than this many
            of the first-look die's sides.
        limit: the most dice kept, strongest first (each look alone keeps as many).
        prefer_first: a die both looks found keeps the first look's box whatever the
            scores: the reader's flags were trained behind first-look boxes, and an
            enlarged look boxes a die differently.
    """
    c1, b1, s1 = first
    c2, b2, s2 = second
    if len(c2) == 0 or len(c1) == 0:
        return second if len(c2) else first  # each look is already within the limit
    side = np.maximum(b1[:, 2] - b1[:, 0], b1[:, 3] - b1[:, 1])
    dist = np.hypot(c1[:, None, 0] - c2[None, :, 0], c1[:, None, 1] - c2[None, :, 1])
    near = dist < keep_apart * side[:, None]
    keep1 = near.sum(1) == 0
    keep2 = np.ones(len(c2), bool)
    for i in np.nonzero(near.sum(1) == 1)[0]:
        j = int(np.argmax(near[i]))
        if near[:, j].sum() == 1 and (prefer_first or s1[i] > s2[j]):
            keep1[i], keep2[j] = True, False
    centers = np.concatenate([c2[keep2], c1[keep1]]).astype(np.float32)
    boxes = np.concatenate([b2[keep2], b1[keep1]]).astype(np.float32)
    scores = np.concatenate([s2[keep2], s1[keep1]]).astype(np.float32)
    order = np.argsort(-scores, kind="stable")[:limit]
    return centers[order], boxes[order], scores[order]


def box_overlap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(A, B): the area boxes a and b share over the smaller box's area."""
    w = np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0])
    h = np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1])
    area = lambda x: (x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])  # noqa: E731
    small = np.minimum(area(a)[:, None], area(b)[None, :])
    return np.clip(w, 0, None) * np.clip(h, 0, None) / np.maximum(small, 1e-6)
