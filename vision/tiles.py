"""The detector's tiled look at a large photo, for dice small in it.

The detector sees the whole frame shrunk to 320 pixels and finds dice down to about 8 of
those pixels: 100 px in a 4032x3024 photo. A photo of a tray taken from higher up, or a
mosaic of real photos at their own size, holds dice of 30-60 px there; the first look finds
none of them, and the zoomed second look (`zoom.py`) only looks again where the first found
dice. Here the frame is cut into overlapping square tiles, each read at the detector's size,
so a die spans as many detector pixels as it would in a tile-sized photo. On 3x3 and 5x5
mosaics of the real-dev photos at their own size the untiled reader found 63 % and 16 % of
the dice it finds in the photos alone (92 %) (models/reader.md, "The tiled look").

Pure geometry and merging; the reader runs the looks.
"""

from __future__ import annotations

import math

import numpy as np

from .decode import suppress_near
from .dice import Dice


def tile_side(frame_shape: tuple, zoom: float) -> int:
    """A tile's side for a frame: `zoom` times smaller than its long side (0: no tiles)."""
    return math.ceil(max(frame_shape[:2]) / zoom) if zoom > 0 else 0


def tile_windows(frame_shape: tuple, zoom: float, det_size: int, overlap: float,
                 enlarge: float = 1.0) -> list[tuple[int, int, int, int]]:
    """Square windows covering the frame, each `zoom` times smaller than its long side (so
    the detector sees it `zoom` times enlarged against the whole-frame look), neighbours
    sharing `overlap` of a side; none when the detector would see a tile enlarged more than
    `enlarge` times (a tile under det_size / enlarge pixels) or `zoom` is 0.

    Returns:
        (x0, y0, x1, y1) integer frame pixels, inside the frame.
    """
    h, w = frame_shape[:2]
    side = tile_side(frame_shape, zoom)
    if side == 0 or side * enlarge < det_size:
        return []

    def starts(length: int) -> list[int]:
        if length <= side:
            return [0]
        step = side * (1.0 - overlap)
        n = math.ceil((length - side) / step) + 1
        return [round(i * (length - side) / (n - 1)) for i in range(n)]

    return [(x, y, min(w, x + side), min(h, y + side)) for y in starts(h) for x in starts(w)]


def inner_edge_cut(boxes: np.ndarray, win: tuple[int, int, int, int], frame_shape: tuple,
                   tol: float) -> np.ndarray:
    """(K,) whether each box (frame pixels) reaches an edge of `win` that is not the
    frame's own: a die cut by the tile, whose whole lies in a neighbouring tile."""
    h, w = frame_shape[:2]
    x0, y0, x1, y1 = win
    cut = np.zeros(len(boxes), bool)
    if x0 > 0:
        cut |= boxes[:, 0] <= x0 + tol
    if y0 > 0:
        cut |= boxes[:, 1] <= y0 + tol
    if x1 < w:
        cut |= boxes[:, 2] >= x1 - tol
    if y1 < h:
        cut |= boxes[:, 3] >= y1 - tol
    return cut


def merge_tiles(found: tuple, tiled: list[tuple], scale: float, split: float, near: float,
                limit: int) -> tuple:
    """One set of dice from the whole-frame looks and the tiles, each kept where it sees
    dice best.

    A die spanning `split` or more detector pixels in the whole-frame look (`scale`) is the
    whole-frame look's: the tiles cut it, or enlarge it past the sizes the detector was
    trained on, where a pip can pass for a small die. A smaller die is the tiles': the
    whole frame shrinks it to a few pixels, where neighbours merge into one false box: a
    whole-frame box holding two or more of the tiles' dice is dropped for them, and a tile
    die alone in one is that die boxed again (the zoomed look boxes a small die loosely).
    A tile die inside another twice its side is a pip. Dice two tiles both saw are kept once
    (`decode.suppress_near` at `near`).

    Args:
        found: (centers (K, 2), boxes (K, 4), scores (K,)) of the whole-frame looks.
        tiled: the same per tile, in frame pixels, cut dice already dropped.
        scale: the whole-frame look's detector pixels per frame pixel.
        split: the die side, in those detector pixels, from which the whole frame decides.
        limit: the most dice kept, strongest first.
    """
    c0, b0, s0 = found
    big = _side(b0) * scale >= split
    c0, b0, s0 = c0[big], b0[big], s0[big]
    parts = [t for t in tiled if len(t[0])]
    c = np.concatenate([np.zeros((0, 2))] + [t[0] for t in parts]).astype(np.float32)
    b = np.concatenate([np.zeros((0, 4))] + [t[1] for t in parts]).astype(np.float32)
    s = np.concatenate([np.zeros(0)] + [t[2] for t in parts]).astype(np.float32)
    order = np.argsort(-s, kind="stable")
    c, b, s = c[order], b[order], s[order]
    kept = suppress_near(c[:, 0], c[:, 1], b[:, 2] - b[:, 0], b[:, 3] - b[:, 1], near)
    c, b, s = c[kept], b[kept], s[kept]
    side = _side(b)
    # A die inside a tile die twice its side is one of its pips, enlarged.
    pip = (inside(c, b) & (side[None, :] >= 2.0 * side[:, None])).any(1)
    keep = ~pip & (side * scale < split)
    c, b, s = c[keep], b[keep], s[keep]
    if len(b0) and len(c):
        held = inside(c, b0)
        # A whole-frame box around two or more of the tiles' dice was those dice, merged;
        # a tile die in one holding no other is that die boxed again.
        merged = held.sum(0) >= 2
        again = held[:, ~merged].any(1)
        c0, b0, s0 = c0[~merged], b0[~merged], s0[~merged]
        c, b, s = c[~again], b[~again], s[~again]
    centers = np.concatenate([c0, c]).astype(np.float32)
    boxes = np.concatenate([b0, b]).astype(np.float32)
    scores = np.concatenate([s0, s]).astype(np.float32)
    order = np.argsort(-scores, kind="stable")[:limit]
    return centers[order], boxes[order], scores[order]


def sure_dice(dice: Dice) -> np.ndarray:
    """(N,) whether each die is read at p 0.9 or more with its pips agreeing."""
    if len(dice) == 0:
        return np.zeros(0, bool)
    return (dice.face_probs.max(1) >= 0.9) & (dice.pip_face == dice.face)


def worth_tiling(whole: Dice, scale: float, enlarged: bool, small_below: float) -> bool:
    """Whether to take the tiled look at all. Tiles of a photo of big dice, enlarged, find
    chips and clutter read sure (rule 37, models/reader.md): they are read only when the
    whole frame read no die or its dice span under `small_below` detector pixels (median;
    `scale`: detector pixels per frame pixel). Unenlarged tiles (a big photo) always are."""
    if not enlarged or len(whole) == 0:
        return True
    return float(np.median(_side(whole.boxes))) * scale < small_below


def choose(whole: Dice, tiled: Dice, found: np.ndarray, enlarged: bool, cfg
           ) -> np.ndarray | None:
    """Which of the tiled reading's dice to return in place of the whole frame's reading,
    or None to keep the whole frame's. The reading that explains more of the photo with sure
    dice wins: where the dice are small in it the tiles find many the whole frame missed;
    where they are not, the tiles cut them and see pips and clutter enlarged.

    Args:
        found: (M, 4) the whole-frame detector's boxes, before the die-or-not head.
        enlarged: the tiles were enlarged to the detector's size (a photo under about
            det_size x zoom pixels; taken only where `worth_tiling`).
        cfg: the `ReaderConfig`'s tile_* settings.
    """
    sure, before = sure_dice(tiled), int(sure_dice(whole).sum())
    if enlarged:
        keep = tiled_keep(tiled.centers, _side(tiled.boxes), sure, found, whole.boxes,
                          cfg.tile_size_ratio)
        need = max(cfg.tile_gain_enlarged, cfg.tile_gain_share * before)
    else:
        # A die only the tiles saw stays when it is sure: enlarged, a board's tokens and a
        # keyboard's keys pass for dice at lower confidence. A few more sure dice is what
        # clutter gives on a photo of big dice (1-3 on the real-dev photos enlarged 3x).
        keep = sure | inside(tiled.centers, found).any(1)
        need = max(cfg.tile_gain, cfg.tile_gain_share * before)
    return keep if int((sure & keep).sum()) - before >= need else None


def tiled_keep(centers: np.ndarray, sides: np.ndarray, sure: np.ndarray,
               found: np.ndarray, read: np.ndarray, size_ratio: float) -> np.ndarray:
    """(K,) which dice of a tiled reading of enlarged tiles to keep.

    Enlarged, a granite worktop's speckles, a board game's pieces and a keyboard's keys pass
    for small dice, some read sure; the dice of one photo are of one size, near enough. So
    a die only the tiles saw stays when it is read sure (`sure`) and is at least
    `size_ratio` of the median side of the sure dice the whole-frame detector also found
    (any size while there are none); an unsure die stays only where the whole-frame reading
    read a die.

    Args:
        centers, sides, sure: the tiled reading's dice (frame pixels).
        found: (M, 4) the whole-frame detector's boxes, before the die-or-not head.
        read: (N, 4) the boxes of the dice the whole-frame reading kept.
    """
    anchor = sure & inside(centers, found).any(1)
    big = (sides >= size_ratio * float(np.median(sides[anchor])) if anchor.any()
           else np.ones(len(centers), bool))
    return inside(centers, read).any(1) | (sure & big)


def inside(centers: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """(K, M): whether centre k lies in box m."""
    x, y = centers[:, None, 0], centers[:, None, 1]
    return ((x >= boxes[None, :, 0]) & (x <= boxes[None, :, 2])
            & (y >= boxes[None, :, 1]) & (y <= boxes[None, :, 3]))


def _side(boxes: np.ndarray) -> np.ndarray:
    return np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
