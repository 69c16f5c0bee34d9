"""The tiled look at a large photo (vision/tiles.py): windows that cover the frame, dice cut
by a tile dropped, one set from the whole frame and the tiles, and the committed models
finding dice that are small in a big photo."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dicecall.vision.config import ReaderConfig
from dicecall.vision.images import load_image
from dicecall.vision.reader import DiceReader
from dicecall.vision.scoring import match
from dicecall.vision.tiles import inner_edge_cut, merge_tiles, tile_windows

FRAMES = Path(__file__).resolve().parent.parent / "data" / "frames"


@pytest.mark.parametrize("shape", [(3024, 4032), (4032, 3024), (1440, 1920), (961, 1281),
                                   (700, 12000)])
def test_tiles_cover_the_frame_with_overlap(shape):
    wins = tile_windows(shape, 3.0, 320, 0.25)
    side = -(-max(shape) // 3)
    assert wins and all(x1 - x0 <= side and y1 - y0 <= side for x0, y0, x1, y1 in wins)
    assert all(0 <= x0 < x1 <= shape[1] and 0 <= y0 < y1 <= shape[0] for x0, y0, x1, y1 in wins)
    covered = np.zeros(shape, np.int32)
    for x0, y0, x1, y1 in wins:
        covered[y0:y1, x0:x1] += 1
    assert covered.min() >= 1
    # A die up to a quarter tile wide lies whole in some tile wherever it is.
    d = min(side // 4, min(shape) // 2)
    rng = np.random.default_rng(0)
    for _ in range(200):
        x, y = rng.integers(0, shape[1] - d), rng.integers(0, shape[0] - d)
        assert any(x0 <= x and x + d <= x1 and y0 <= y and y + d <= y1
                   for x0, y0, x1, y1 in wins)


@pytest.mark.parametrize("shape, zoom", [((480, 640), 3.0), ((900, 940), 3.0),
                                         ((3024, 4032), 0.0)])
def test_no_tiles_for_a_frame_the_detector_already_sees_at_its_size(shape, zoom):
    # A tile under the detector's 320 px would only enlarge pixels; zoom 0 is off.
    assert tile_windows(shape, zoom, 320, 0.25) == []


def test_a_die_cut_by_an_inner_tile_edge_is_dropped_one_at_the_frame_edge_is_not():
    boxes = np.array([[0, 10, 20, 30],      # at the frame's left edge: whole
                      [90, 10, 100, 30],    # reaches the tile's right edge, inside the frame
                      [40, 40, 60, 60]], np.float32)
    cut = inner_edge_cut(boxes, (0, 0, 100, 100), (200, 200), 1.0)
    assert cut.tolist() == [False, True, False]


def _set(*rows):
    a = np.array(rows, np.float32).reshape(-1, 5)
    boxes = a[:, :4]
    return (boxes[:, :2] + boxes[:, 2:]) / 2, boxes, a[:, 4]


EMPTY = _set()


def test_merge_keeps_big_whole_frame_dice_and_small_tile_dice():
    scale = 0.1  # whole-frame detector pixels per frame pixel; split 10 -> 100 px
    big = _set([0, 0, 200, 200, 0.9])           # a die 20 detector px in the whole frame
    tiled = [_set([1000, 1000, 1040, 1040, 0.8],    # small: only the tiles see it
                  [1002, 1001, 1041, 1042, 0.7],    # the same die from the next tile
                  [50, 50, 70, 70, 0.9],            # a pip of the big die...
                  [0, 0, 200, 200, 0.6],            # ...which the tile boxed too
                  [500, 500, 650, 650, 0.9])]       # big: the whole frame's to find
    _, b, s = merge_tiles(big, tiled, scale, 10.0, 0.5, 100)
    assert b.tolist() == [[0, 0, 200, 200], [1000, 1000, 1040, 1040]]
    assert s.tolist() == pytest.approx([0.9, 0.8])


def test_a_whole_frame_box_around_tile_dice_was_those_dice():
    merged = _set([0, 0, 300, 300, 0.9])
    tiled = [_set([10, 10, 50, 50, 0.8], [200, 200, 240, 240, 0.8])]
    b = merge_tiles(merged, tiled, 0.1, 10.0, 0.5, 100)[1]
    assert b.tolist() == [[10, 10, 50, 50], [200, 200, 240, 240]]


def test_a_tile_die_boxing_a_whole_frame_die_again_is_not_added():
    whole = _set([0, 0, 100, 100, 0.9])
    b = merge_tiles(whole, [_set([5, 5, 95, 95, 0.95])], 0.1, 5.0, 0.5, 100)[1]
    assert b.tolist() == [[0, 0, 100, 100]]
    assert merge_tiles(whole, [EMPTY], 0.1, 5.0, 0.5, 100)[1].tolist() == [[0, 0, 100, 100]]


def test_merge_keeps_at_most_the_limit_strongest_first():
    tiled = [_set(*[[i * 100, 0, i * 100 + 40, 40, 0.1 + i / 100] for i in range(20)])]
    c, _, s = merge_tiles(EMPTY, tiled, 0.1, 10.0, 0.5, 5)
    assert len(c) == 5 and s.tolist() == sorted(s.tolist(), reverse=True)


@pytest.fixture(scope="module")
def mosaic():
    """4 x 4 copies of a committed throw box frame (2560 x 1920, 80 dice): its 40-60 px dice
    are 5-7 detector pixels in the whole frame, under what one look finds."""
    rec = json.loads((FRAMES / "throwbox_0000005.json").read_text())
    frame = load_image(FRAMES / rec["image"])
    h, w = frame.shape[:2]
    big = np.tile(frame, (4, 4, 1))
    boxes, faces = [], []
    for i in range(4):
        for j in range(4):
            for d in rec["dice"]:
                x0, y0, x1, y1 = d["box"]
                boxes.append([x0 + j * w, y0 + i * h, x1 + j * w, y1 + i * h])
                faces.append(d["face"])
    return np.ascontiguousarray(big), np.array(boxes, np.float32), faces


def test_the_tiles_find_and_read_the_small_dice_of_a_big_photo(mosaic):
    big, boxes, faces = mosaic
    one_look = DiceReader(ReaderConfig()).read(big)
    assert len(match(one_look.centers, boxes)) < 40  # why the tiles exist
    dice = DiceReader(ReaderConfig(tile_zoom=3.0)).read(big)
    pairs = match(dice.centers, boxes)
    right = sum(int(dice.face[p]) == faces[g] for p, g in pairs)
    # Measured (22518cc): 80 of 80 found and read right, nothing else called a die; 24 found
    # without tiles.
    assert right >= 78 and len(dice) == len(pairs)


def test_a_frame_of_the_table_is_read_the_same_with_tiles_on():
    # 640 x 480: no tile, so the runtime's reading is untouched whatever the setting.
    frame = load_image(FRAMES / "craps_0000004.jpg")
    a = DiceReader(ReaderConfig()).read(frame)
    b = DiceReader(ReaderConfig(tile_zoom=3.0)).read(frame)
    assert np.array_equal(a.centers, b.centers) and np.array_equal(a.face, b.face)
