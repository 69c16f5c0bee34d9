"""The closer look at a frame with fewer dice than its game expects (`DiceReader.closer`,
docs/verdicts.md rule 41). A pair of touching dice the detector leaves as one peak makes a
good roll a no roll (`die_missing`, 623a.8(b), 675a.4(b)); the expected count, which the
table knows, lets the reader look again, enlarged, at the dice it kept."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from dicecall.vision.config import ReaderConfig, for_game
from dicecall.vision.dice import Dice
from dicecall.vision.images import load_image
from dicecall.vision.preprocess import record_view
from dicecall.vision.reader import DiceReader, _keep_stacked
from dicecall.vision.scoring import match

from .looks import CountingDetector, labelled_scene

DATA = Path(__file__).resolve().parent.parent / "data"
FRAME = DATA / "closer" / "craps_0000031.json"
SAMPLES = DATA / "frames"


def _craps(**kw) -> DiceReader:
    """A Craps table's reader (`for_game`: behind detector.thrown.onnx)."""
    reader = DiceReader(for_game(ReaderConfig(**kw), True))
    reader.detector = CountingDetector(reader.detector)
    return reader


@pytest.fixture(scope="module")
def scene():
    return labelled_scene(FRAME)


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    return _craps()


def test_touching_pair_read_as_two_when_the_game_expects_two(reader, scene):
    frame, boxes, faces = scene
    first = reader.read(frame)
    assert len(first) == 1  # the defect the closer look is for: one peak for two dice
    dice = reader.read(frame, expected=2)
    pairs = match(dice.centers, boxes)
    assert len(dice) == 2 and len(pairs) == 2
    assert sorted(int(dice.face[p]) for p, _ in pairs) == faces


def test_off_reads_as_before(scene):
    frame, _, _ = scene
    off = _craps(short_look=False)
    assert len(off.read(frame, expected=2)) == 1


def test_no_second_look_when_the_count_is_met(reader, scene):
    frame, _, _ = scene
    reader.detector.runs = 0
    reader.read(frame, expected=1)
    looks = reader.detector.runs
    reader.read(frame, expected=2)
    assert reader.detector.runs == 2 * looks + 1  # one more detector run, only when short


def test_dice_kept_keep_their_reading(reader):
    """A die kept is not read again: the verdict's lines were chosen on first-look readings.
    On a committed sample frame of two dice apart, one is given as kept; the closer look
    adds the other, read as the whole frame's read reads it."""
    frame = load_image(SAMPLES / "craps_0000005.jpg")
    both = reader.read(frame)
    assert len(both) == 2
    one = both[np.array([True, False])]
    again = reader.closer(frame, one)
    assert len(again) == 2
    for name in ("centers", "boxes", "face", "face_probs", "pip_face", "tilt", "stacked",
                 "up_margin"):
        np.testing.assert_array_equal(getattr(again, name)[0], getattr(one, name)[0])
    np.testing.assert_allclose(again.centers[1], both.centers[1], atol=3)
    assert again.face[1] == both.face[1]
    np.testing.assert_allclose(again.face_probs[1], both.face_probs[1], atol=0.02)


def test_the_tables_own_view_reads_the_added_dice(scene):
    """The edge asks for the closer look with no view: the reader's own (the table's
    calibrated camera) reads the dice it adds, as `read` would."""
    frame, _, _ = scene
    view = record_view(json.loads(FRAME.read_text()))
    table = DiceReader(for_game(ReaderConfig(), True), view=view)
    plain = _craps()
    kept = plain.read(frame, view)
    assert len(kept) == 1
    own, given = table.closer(frame, kept), table.closer(frame, kept, view)
    typical = plain.closer(frame, kept)
    assert len(own) == len(given) == len(typical) == 2
    np.testing.assert_array_equal(own.tilt, given.tilt)
    assert not np.array_equal(own.tilt, typical.tilt)  # the view matters to the flags


def test_nothing_kept_nothing_to_look_around(reader):
    frame = np.random.default_rng(0).integers(60, 120, (480, 640, 3), np.uint8)
    assert len(reader.closer(frame, Dice.empty())) == 0
    assert len(reader.read(frame, expected=2)) == 0


PAIR = DATA / "closer" / "craps_0000794.json"


def test_a_touching_pair_read_as_one_die_is_split_by_the_look_again():
    """Rule 60: a touching pair at 1920x1440 read as one die. The closer look, enlarging that
    die to 28 detector pixels, finds nothing more, so the roll stays short (a good roll
    called `die_missing`); the look again, enlarging it to 56, reads both."""
    frame, boxes, faces = labelled_scene(PAIR)
    assert len(_craps(short_look_again=0).read(frame, expected=2)) == 1
    dice = _craps(short_look_again=56).read(frame, expected=2)
    pairs = match(dice.centers, boxes)
    assert len(dice) == 2 and len(pairs) == 2
    assert sorted(int(dice.face[p]) for p, _ in pairs) == faces


def test_the_look_again_runs_only_while_still_short(scene):
    """The closer look already reads craps_0000031's pair as two: no look again."""
    frame, _, _ = scene
    runs = []
    for again in (0, 56):
        reader = _craps(short_look_again=again)
        assert len(reader.read(frame, expected=2)) == 2
        runs.append(reader.detector.runs)
    assert runs[0] == runs[1]


def test_the_edges_recount_takes_the_look_again():
    """The edge reads a settled frame before it knows the count, then `recount`s it."""
    frame, _, _ = labelled_scene(PAIR)
    reader = _craps(short_look_again=56)
    first = reader.read(frame)
    assert len(first) == 1
    assert len(reader.recount(frame, first, 2)) == 2


@pytest.mark.parametrize("keeps", [False, True])
def test_a_die_the_closer_look_splits_passes_on_its_stacked_flag(keeps):
    """Rule 61: a die on a die boxed as one is read again, split, from two tight boxes, and
    the top die can lose the flag the pair was read with (bench craps set, craps_0000008:
    0.90 -> 0.24), turning a `die_on_die` no roll (623a.8(b)) into a review. With
    `closer_keeps_stacked` each die that replaces a kept one keeps at least its flag; a die
    the look adds away from any kept die keeps its own."""
    frame, _, _ = labelled_scene(PAIR)
    reader = _craps(short_look_again=56, closer_keeps_stacked=keeps)
    first = reader.read(frame)
    assert len(first) == 1
    flagged = replace(first, stacked=np.full(1, 0.95, np.float32))
    split = reader.closer(frame, flagged, expected=2)
    assert len(split) == 2
    if keeps:
        assert (split.stacked >= 0.95).all()
    else:  # read afresh: this pair's own flags are low
        assert (split.stacked < 0.7).all()
        unflagged = reader.closer(frame, first, expected=2)
        np.testing.assert_array_equal(unflagged.stacked, split.stacked)


def _boxed(boxes, stacked) -> Dice:
    b = np.array(boxes, np.float32)
    n = len(b)
    z = np.zeros(n, np.float32)
    return Dice(centers=(b[:, :2] + b[:, 2:]) / 2, boxes=b, face=np.full(n, 3, np.int8),
                face_probs=np.full((n, 6), 1 / 6, np.float32), pip_face=np.full(n, 3, np.int8),
                tilt=z, stacked=np.array(stacked, np.float32), det_score=z + 1, up_margin=z + 45)


def test_only_the_dice_on_a_replaced_die_take_its_flag():
    replaced = _boxed([[100, 100, 160, 160]], [0.9])          # a pair boxed as one, flagged
    added = _boxed([[100, 100, 135, 135], [128, 125, 162, 160],  # the two dice on it
                    [400, 100, 435, 135]], [0.2, 0.95, 0.1])   # a die elsewhere in the window
    out = _keep_stacked(added, replaced, ReaderConfig().zoom_keep_apart)
    np.testing.assert_allclose(out.stacked, [0.9, 0.95, 0.1])
    assert _keep_stacked(added, Dice.empty(), 0.7) is added
