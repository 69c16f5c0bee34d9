"""The detector's second, zoomed look at a cluster of small dice (vision/zoom.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dicecall.vision.config import ReaderConfig
from dicecall.vision.zoom import merge_looks, zoom_window, zoom_windows

FRAME = (480, 640, 3)
ARGS = dict(det_size=320, scale=0.5, below=24.0, target=28.0, margin=1.5, min_gain=1.25)


def _boxes(centres, side):
    c = np.asarray(centres, np.float32)
    return np.concatenate([c - side / 2, c + side / 2], axis=1)


def test_a_cluster_of_small_dice_is_looked_at_again_enlarged():
    boxes = _boxes([[300, 220], [320, 220], [310, 240]], 20)  # 10 px in the detector's view
    x0, y0, x1, y1 = zoom_window(boxes, FRAME, **ARGS)
    assert x1 - x0 == y1 - y0, "a square window fills the letterbox"
    assert min(x0, y0) >= 0 and x1 <= 640 and y1 <= 480
    # every die with its margin of 1.5 sides is inside
    assert x0 <= 290 - 30 and y0 <= 210 - 30 and x1 >= 330 + 30 and y1 >= 250 + 30
    # enlarged to the target, not past it: 20 px dice in a 320-px look at 28 px each
    assert 320 / (x1 - x0) == pytest.approx(28 / 20, rel=0.02)


def test_no_second_look_for_dice_already_large_or_spread_across_the_frame():
    assert zoom_window(_boxes([[300, 220]], 60), FRAME, **ARGS) is None  # 30 px already
    spread = _boxes([[20, 20], [620, 460]], 20)
    assert zoom_window(spread, FRAME, **ARGS) is None  # the window would be the frame
    assert zoom_window(np.zeros((0, 4), np.float32), FRAME, **ARGS) is None
    assert zoom_window(_boxes([[300, 220]], 20), FRAME, **{**ARGS, "below": 0.0}) is None


def test_a_window_at_the_frame_edge_is_moved_inside_it():
    x0, y0, x1, y1 = zoom_window(_boxes([[8, 470]], 16), FRAME, **ARGS)
    assert (x0, y1) == (0, 480) and x1 > x0 and y1 > y0


WINDOWS = dict(**ARGS, gap=3.0)


def test_dice_far_apart_get_a_window_each_the_strongest_cluster_first():
    # Craps: a touching pair on the left, a lone die far right, a weak chip peak at the top.
    boxes = _boxes([[100, 300], [120, 300], [560, 200], [330, 20]], 20)
    scores = np.array([0.5, 0.4, 0.6, 0.25], np.float32)
    assert zoom_windows(boxes, scores, FRAME, **WINDOWS, clusters=1) == [], \
        "one window around every die would be the whole frame"
    wins = zoom_windows(boxes, scores, FRAME, **WINDOWS, clusters=2)
    assert len(wins) == 2
    (a0, b0, a1, _), (c0, _, c1, d1) = wins
    assert a0 <= 550 - 30 and a1 >= 570 + 30 and b0 <= 190 - 30, "the 0.6 die's first"
    assert c0 <= 90 - 30 and c1 >= 130 + 30 and d1 >= 310 + 30, "then the pair, both in it"
    assert 320 / (a1 - a0) == pytest.approx(28 / 20, rel=0.02)
    assert len(zoom_windows(boxes, scores, FRAME, **WINDOWS, clusters=3)) == 3


def test_one_cluster_gets_the_single_window_of_before():
    boxes = _boxes([[300, 220], [320, 220], [310, 240]], 20)
    scores = np.array([0.5, 0.4, 0.6], np.float32)
    one = zoom_window(boxes, FRAME, **ARGS)
    assert zoom_windows(boxes, scores, FRAME, **WINDOWS, clusters=3) == [one]
    assert zoom_windows(boxes, scores, FRAME, **WINDOWS, clusters=1) == [one]
    assert zoom_windows(boxes[:0], scores[:0], FRAME, **WINDOWS, clusters=2) == []


def _look(centres, side, scores):
    c = np.asarray(centres, np.float32)
    return c, _boxes(c, side), np.asarray(scores, np.float32)


def test_two_touching_dice_under_one_first_look_peak_replace_it():
    first = _look([[310, 220]], 20, [0.6])
    second = _look([[300, 220], [320, 220]], 20, [0.5, 0.45])
    centres, boxes, scores = merge_looks(first, second, 0.75, 100)
    assert centres.tolist() == [[300, 220], [320, 220]] and len(boxes) == 2
    assert scores.tolist() == pytest.approx([0.5, 0.45])


def test_the_merged_looks_keep_at_most_the_limit_strongest_first():
    first = _look([[100, 100], [300, 300]], 20, [0.9, 0.3])
    second = _look([[500, 100]], 20, [0.6])
    centres, _, scores = merge_looks(first, second, 0.75, 2)
    assert scores.tolist() == pytest.approx([0.9, 0.6])
    assert centres.tolist() == [[100, 100], [500, 100]]


def test_a_die_only_the_first_look_found_is_kept():
    first = _look([[300, 220], [500, 100]], 20, [0.6, 0.4])
    second = _look([[301, 221]], 20, [0.7])
    centres, _, _ = merge_looks(first, second, 0.75, 100)
    assert sorted(map(tuple, centres.tolist())) == [(301, 221), (500, 100)]


def test_the_same_die_seen_twice_is_kept_once_from_the_surer_look():
    first = _look([[300, 220]], 40, [0.53])
    second = _look([[302, 221]], 30, [0.42])
    centres, boxes, scores = merge_looks(first, second, 0.75, 100)
    assert centres.tolist() == [[300, 220]] and scores.tolist() == pytest.approx([0.53])
    assert boxes[0, 2] - boxes[0, 0] == 40
    centres, _, _ = merge_looks(first, _look([[302, 221]], 30, [0.9]), 0.75, 100)
    assert centres.tolist() == [[302, 221]]


def test_preferring_the_first_look_keeps_its_box_even_against_a_surer_second():
    first = _look([[300, 220]], 40, [0.53])
    centres, boxes, _ = merge_looks(first, _look([[302, 221]], 30, [0.9]), 0.75, 100,
                                    prefer_first=True)
    assert centres.tolist() == [[300, 220]] and boxes[0, 2] - boxes[0, 0] == 40
    pair = _look([[290, 220], [310, 220]], 20, [0.5, 0.45])  # a pair still replaces it
    assert len(merge_looks(first, pair, 0.75, 100, prefer_first=True)[0]) == 2


def test_an_empty_look_leaves_the_other():
    first = _look([[300, 220]], 20, [0.6])
    empty = _look(np.zeros((0, 2)), 20, np.zeros(0))
    assert merge_looks(first, empty, 0.75, 100)[0].tolist() == [[300, 220]]
    assert merge_looks(empty, first, 0.75, 100)[0].tolist() == [[300, 220]]


FRAMES = Path(__file__).resolve().parent.parent / "data" / "frames"


def test_the_second_look_finds_touching_dice_the_first_look_merges():
    """Pins the committed detectors on a sample frame chosen for it (tests/data/frames): five
    flat, touching dice. Craps and High Roll's `detector.thrown.onnx` finds four at its first
    look and all five with the second; the wider `detector.onnx`, read without a game since
    session 37, keeps them apart at its first look."""
    from dicecall.vision.config import for_table
    from dicecall.vision.images import load_image
    from dicecall.vision.reader import DiceReader
    from dicecall.vision.scoring import match

    rec = json.loads((FRAMES / "throwbox_0000058.json").read_text())
    frame = load_image(FRAMES / rec["image"])
    boxes = np.array([d["box"] for d in rec["dice"]], np.float32)
    thrown = for_table(ReaderConfig(), "high-roll-dice")
    once = DiceReader(thrown.model_copy(update={"zoom_below": 0.0})).read(frame)
    twice = DiceReader(thrown).read(frame)
    assert len(match(once.centers, boxes)) == 4
    pairs = match(twice.centers, boxes)
    assert len(pairs) == len(twice) == 5
    assert sorted(int(twice.face[p]) for p, _ in pairs) == sorted(d["face"] for d in rec["dice"])
    wide_once = DiceReader(ReaderConfig(zoom_below=0.0)).read(frame)
    assert len(match(wide_once.centers, boxes)) == len(wide_once) == 5
