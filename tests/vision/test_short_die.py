"""Rule 73 (session 65, docs/verdicts.md): a table's frame still short of its count after the
faint look is filled from the places the die-or-not head read under its line but at least
`short_die`, each carrying its doubt (`Dice.die_prob`) so the verdict holds it for a person
(`die_doubtful`) instead of calling the roll off for a die the camera may have missed
(`die_missing`, 668a.3(g)).

`tests/data/doubtful/shaker_0000264`: a Props & Hops roll of the spent FRESH99 suite, a blue
die a third hidden by the shaker's rim beside a green one; the detector finds the blue die
(0.49) and the head reads its place 0.32, so without the look the camera called the roll off."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dicecall.vision.config import ReaderConfig, for_game
from dicecall.vision.profiles import Zones, profile
from dicecall.vision.reader import DiceReader
from dicecall.vision.scoring import match
from dicecall.vision.verdict import NO_ROLL, REVIEW, verdict

from .looks import labelled_scene

RIM = Path(__file__).resolve().parent.parent / "data" / "doubtful" / "shaker_0000264.json"
LINE = 0.05


def _reader(**kw) -> DiceReader:
    return DiceReader(for_game(ReaderConfig(**kw), False))


@pytest.fixture(scope="module")
def scene():
    return labelled_scene(RIM)


@pytest.fixture(scope="module")
def on() -> DiceReader:
    return _reader(short_die=LINE)


def test_the_die_the_head_doubts_fills_the_count_and_carries_its_doubt(scene, on):
    frame, boxes, _ = scene
    off = _reader(short_die=0.0).read(frame, expected=2)
    assert len(off) == 1  # the defect: the camera saw one die
    dice = on.read(frame, expected=2)
    assert len(dice) == 2 and len(match(dice.centers, boxes)) == 2
    doubtful, kept = sorted(dice.die_prob)
    assert LINE <= doubtful < ReaderConfig().die_threshold <= kept


def test_the_roll_is_held_for_a_person_not_called_off(scene, on):
    frame, _, _ = scene
    zones = Zones.whole_frame(frame.shape[1], frame.shape[0])
    short = verdict(_reader(short_die=0.0).read(frame, expected=2), profile("props-and-hops"),
                    zones)
    assert short.status == NO_ROLL and "die_missing" in {r.code for r in short.reasons}
    v = verdict(on.read(frame, expected=2), profile("props-and-hops"), zones)
    assert v.status == REVIEW
    assert "die_doubtful" in {r.code for r in v.reasons}


def test_no_doubtful_die_where_the_count_is_met_or_unknown(scene, on):
    """Only a frame still short: `predict` knows no count, and a met count adds nothing."""
    frame, _, _ = scene
    for expected in (None, 1):
        assert len(on.read(frame, expected=expected)) == 1


def test_above_every_place_nothing_is_added(scene):
    frame, _, _ = scene
    assert len(_reader(short_die=0.99).read(frame, expected=2)) == 1


def test_every_die_kept_carries_the_heads_reading(scene, on):
    """`die_prob` is read for every die, not only a doubtful one: at or over the line for a
    die the reader keeps on its own."""
    frame, _, _ = scene
    dice = _reader().read(frame, expected=2)
    assert np.all(dice.die_prob >= ReaderConfig().die_threshold)
