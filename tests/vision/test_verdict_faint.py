"""A die the detector scored under its own line (`VerdictConfig.faint_score`, docs/verdicts.md
rule 66) is a die of the reader's faint look, which only fills a count the frame was short
of: a person reads it (623a.9(c), 668a.3(h), 675a.4(d), 675a.6(h)). It never becomes a
settlement on a die the camera barely saw, and a roll it fills is no longer a no roll for a
die the camera did not see."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dicecall.vision.config import ReaderConfig
from dicecall.vision.profiles import profile
from dicecall.vision.verdict import NO_ROLL, REVIEW, VALID, VerdictConfig, verdict

from .test_verdict import CRAPS, HIGH, PROPS, TWO, ZONES, dice


def _scored(d, scores):
    return dataclasses.replace(d, det_score=np.asarray(scores, np.float32))


@pytest.mark.parametrize("game, n, section", [
    (CRAPS, 2, "623a.9(c)"), (PROPS, 2, "668a.3(h)"), (HIGH, 10, "675a.4(d)"),
    ("high-roll-dice-6", 6, "675a.6(h)")])
def test_a_faint_die_is_held_for_a_person(game, n, section):
    rows = TWO if n == 2 else [(30 * k + 10, 50, 2) for k in range(n)]
    scores = [0.9] * (n - 1) + [0.12]
    v = verdict(_scored(dice(*rows), scores), profile(game, n), ZONES)
    assert v.status == REVIEW
    held = [(r.code, r.section, r.dice) for r in v.reasons if r.status != VALID]
    assert held == [("die_faint", section, (n - 1,))]
    assert "0.12" in v.reasons[0].detail


def test_at_the_line_a_die_counts_and_without_the_die_the_roll_is_off():
    """The detector's own line is not faint; the same roll short of its die is `die_missing`,
    the no roll the faint look's die turns into a review."""
    at = verdict(_scored(dice(*TWO), [0.9, 0.2]), profile(CRAPS), ZONES)
    assert at.status == VALID
    short = verdict(_scored(dice(*TWO[:1]), [0.9]), profile(CRAPS), ZONES)
    assert short.status == NO_ROLL and short.reasons[0].code == "die_missing"


def test_a_faint_die_outside_the_play_zone_is_not_judged():
    """Only a die in play: a faint place on the rail does not hold a roll the zone decides."""
    d = _scored(dice(*TWO, (450, 200, 2)), [0.9, 0.9, 0.1])
    codes = {r.code for r in verdict(d, profile(CRAPS), ZONES).reasons}
    assert "die_faint" not in codes


def test_off_and_the_line_is_the_readers():
    """Off (0) a faint die counts like any other; on, the line is the reader's detector line,
    under which only the faint look keeps a die."""
    d = _scored(dice(*TWO), [0.9, 0.1])
    assert verdict(d, profile(CRAPS), ZONES, VerdictConfig(faint_score=0.0)).status == VALID
    assert VerdictConfig().faint_score == ReaderConfig().det_threshold
