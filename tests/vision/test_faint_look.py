"""The faint look (`DiceReader.fainter`, docs/verdicts.md rule 66): a table's frame still
short of its count after every other look is looked at again down to the detector's faint
peaks, and a die the die-or-not head is sure of fills the count. Without it a good roll
whose die the detector scored under its line is a no roll (`die_missing`, 623a.8(b),
675a.4(b)) that the camera called for a die it did not see."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dicecall.vision.config import ReaderConfig, for_game
from dicecall.vision.reader import DiceReader, _inside
from dicecall.vision.scoring import match

from .looks import CountingDetector, labelled_scene

DATA = Path(__file__).resolve().parent.parent / "data" / "faint"
TEN = DATA / "throwbox_0000601.json"  # High Roll, ten dice, a black 1 the detector misses
CHIPS = DATA / "craps_0000500.json"  # Craps, a die leaning on the chips the detector misses
FAINT = 0.05


def _reader(**kw) -> DiceReader:
    """A Craps and High Roll table's reader with the faint look on unless `kw` says
    otherwise, counting detector runs."""
    reader = DiceReader(for_game(ReaderConfig(**{"faint_det": FAINT, **kw}), True))
    reader.detector = CountingDetector(reader.detector)
    return reader


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    return _reader()


@pytest.fixture(scope="module")
def off() -> DiceReader:
    return _reader(faint_det=0.0)


@pytest.mark.parametrize("path", [TEN, CHIPS], ids=["black-one", "on-chips"])
def test_the_die_the_detector_scored_low_fills_the_count(reader, off, path):
    frame, boxes, faces = labelled_scene(path)
    expected = len(faces)
    assert len(off.read(frame, expected=expected)) == expected - 1  # the defect
    dice = reader.read(frame, expected=expected)
    pairs = match(dice.centers, boxes)
    assert len(dice) == expected and len(pairs) == expected
    assert sorted(int(dice.face[p]) for p, _ in pairs) == faces


def test_the_edge_recount_takes_the_same_look(reader):
    """The edge reads a settled frame without the count and recounts it once the roll's
    count is known (`DiceReader.recount`): the same dice as `read` with the count."""
    frame, _, faces = labelled_scene(TEN)
    counted = reader.read(frame, expected=len(faces))
    recounted = reader.recount(frame, reader.read(frame), len(faces))
    np.testing.assert_array_equal(recounted.boxes, counted.boxes)
    np.testing.assert_array_equal(recounted.face, counted.face)


def test_no_look_without_a_count_or_when_the_count_is_met(reader, off):
    """`predict` knows no count; a roll that holds its count costs no detector run more."""
    frame, _, _ = labelled_scene(TEN)
    for expected in (None, 9):
        reader.detector.runs = off.detector.runs = 0
        assert len(reader.read(frame, expected=expected)) == 9
        off.read(frame, expected=expected)
        assert reader.detector.runs == off.detector.runs


def test_it_adds_no_more_dice_than_the_frame_is_short_of(reader):
    """Five of the ten dice kept and a count of six: one die is added, where no kept die is,
    even though five more are there to find."""
    frame, _, faces = labelled_scene(TEN)
    ten = reader.read(frame, expected=len(faces))
    kept = ten[np.arange(5)]
    six = reader.fainter(frame, kept, expected=6)
    assert len(six) == 6
    np.testing.assert_array_equal(six.boxes[:5], kept.boxes)
    assert not _inside(six.centers[5:], kept.boxes).any()


def test_chips_and_kept_dice_add_nothing(reader):
    """Every die kept and the count asked one higher: the chips' peaks and the kept dice's
    own faint peaks are no die to add."""
    frame, _, faces = labelled_scene(CHIPS)
    both = reader.read(frame, expected=len(faces))
    again = reader.fainter(frame, both, expected=len(faces) + 1)
    assert len(again) == len(both) == 2
    np.testing.assert_array_equal(again.boxes, both.boxes)


def test_the_die_line_of_the_faint_look_is_its_own(off):
    """Only where the die-or-not head is sure (`faint_die`): at 1 - 1e-9 no die passes."""
    frame, _, faces = labelled_scene(CHIPS)
    strict = _reader(faint_die=1 - 1e-9)
    assert len(strict.read(frame, expected=len(faces))) == len(faces) - 1


def test_a_point_is_inside_a_box_edges_included():
    boxes = np.array([[0, 0, 10, 10], [20, 20, 30, 30]], np.float32)
    points = np.array([[5, 5], [10, 10], [15, 15], [25, 20]], np.float32)
    np.testing.assert_array_equal(_inside(points, boxes),
                                  [[True, False], [True, False], [False, False],
                                   [False, True]])


def test_reading_the_faint_places_a_few_at_a_time_reads_them_alike(reader):
    """The faint look reads its places `FAINT_CHUNK` at a time to bound the reader's memory
    on a frame of chips: every place reads as it does in one batch."""
    frame, _, faces = labelled_scene(CHIPS)
    kept = reader.read(frame, expected=len(faces))[np.arange(1)]
    found = reader.detect(frame, FAINT)
    free = ~_inside(found[0], kept.boxes).any(1)
    found = tuple(a[free] for a in found)
    assert len(found[0]) > 3  # the chips' faint peaks
    whole = reader._read_beside(frame, kept, found, None, 0.0)
    for chunk in (1, 3):
        parts = reader._read_beside(frame, kept, found, None, 0.0, chunk=chunk)
        np.testing.assert_array_equal(parts.boxes, whole.boxes)
        np.testing.assert_allclose(parts.face_probs, whole.face_probs, atol=1e-5)
        np.testing.assert_allclose(parts.tilt, whole.tilt, atol=1e-5)
