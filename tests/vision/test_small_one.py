"""Rule 64 (`VerdictConfig.small_one_line`, docs/verdicts.md): a die read as a 1 on a box a
little over `partly_hidden_line` of the others' is what a die mostly hidden, or one whose
second pip is dim, shows; its pips and its face agree on the one pip in view. Held for a
person (623a.9(c), 668a.3(h), 675a.4(d)). On (0.6) since its judge, FRESH92."""

from __future__ import annotations

import pytest

from dicecall.vision.profiles import profile
from dicecall.vision.verdict import REVIEW, VALID, VerdictConfig, verdict

from .test_verdict import CRAPS, HIGH, PROPS, ZONES, dice

ON = VerdictConfig(small_one_line=0.6)


def _held(v) -> list[tuple[str, str, tuple[int, ...]]]:
    return [(r.code, r.section, r.dice) for r in v.reasons if r.status != VALID]


@pytest.mark.parametrize("game, section", [(CRAPS, "623a.9(c)"), (PROPS, "668a.3(h)")])
def test_a_one_on_a_small_box_is_held(game, section):
    """FRESH90 throwbox_0000675 in small: a 2 read as a 1 on a box just over half the
    other's (0.502 there, 0.53 here)."""
    v = verdict(dice((100, 100, 4), (200, 120, 1, {"side": 10.6})), profile(game), ZONES, ON)
    assert v.status == REVIEW
    assert _held(v) == [("die_partly_hidden", section, (1,))]
    assert "read as a 1" in v.reasons[0].detail


def test_on_by_default_off_it_passes_and_other_faces_pass_on():
    small_one = dice((100, 100, 4), (200, 120, 1, {"side": 10.6}))
    assert VerdictConfig().small_one_line == 0.6
    assert verdict(small_one, profile(CRAPS), ZONES).status == REVIEW
    off = VerdictConfig(small_one_line=0.0)
    assert verdict(small_one, profile(CRAPS), ZONES, off).status == VALID
    small_two = dice((100, 100, 4), (200, 120, 2, {"side": 10.6}))
    assert verdict(small_two, profile(CRAPS), ZONES, ON).status == VALID


@pytest.mark.parametrize("side, status", [(11.99, REVIEW), (12.0, VALID), (20.0, VALID)])
def test_the_line_is_strict_of_the_median_side(side, status):
    v = verdict(dice((100, 100, 4), (200, 120, 1, {"side": side})), profile(CRAPS), ZONES, ON)
    assert v.status == status


def test_under_the_partly_hidden_line_the_finding_says_so():
    v = verdict(dice((100, 100, 4), (200, 120, 1, {"side": 9})), profile(CRAPS), ZONES, ON)
    assert _held(v) == [("die_partly_hidden", "623a.9(c)", (1,))]
    assert "partly out of view" in v.reasons[0].detail


def test_ten_dice_675a_4_d():
    ten = [(30 * k + 10, 50, 2) for k in range(9)] + [(300, 150, 1, {"side": 11})]
    v = verdict(dice(*ten), profile(HIGH), ZONES, ON)
    assert _held(v) == [("die_partly_hidden", "675a.4(d)", (9,))]
