"""Rule 63 (`VerdictConfig.inside_line`, docs/verdicts.md): seen from above, dice at rest side
by side, or one leaning on another, share only a sliver of their boxes. A box lying further
inside another's is a die on a die whose stacked flag stayed under its line, or one die found
twice (a pip of it boxed apart), and the faces read need not be the roll's: a person reads
them (623a.9(c), 668a.3(h), 675a.4(d)). On (0.7) since its judge, FRESH91."""

from __future__ import annotations

import pytest

from dicecall.vision.profiles import profile
from dicecall.vision.verdict import NO_ROLL, REVIEW, VALID, VerdictConfig, verdict

from .test_verdict import CRAPS, HIGH, PROPS, ZONES, dice

# Rule 64 also holds the sliver, read as a 1 on a box half the top die's; off here, so each
# case shows this rule alone.
ON = VerdictConfig(inside_line=0.7, small_one_line=0.0)
# FRESH90-HD craps_0000015 in small: a die on a die read as two, the die beneath a sliver
# boxed inside the top die's box, both stacked flags 0.63 (under the 0.7 line).
STACK = [(100, 100, 2, {"side": 40, "stacked": 0.63}), (95, 105, 1, {"side": 20, "stacked": 0.63})]


@pytest.mark.parametrize("game, section", [(CRAPS, "623a.9(c)"), (PROPS, "668a.3(h)")])
def test_a_box_inside_another_is_held_for_a_person(game, section):
    v = verdict(dice(*STACK), profile(game), ZONES, ON)
    assert v.status == REVIEW
    held = [(r.code, r.status, r.section, r.dice) for r in v.reasons if r.status != VALID]
    assert held == [("dice_overlap", REVIEW, section, (0, 1))]
    assert "100%" in v.reasons[0].detail


def test_off_the_stack_under_its_flag_line_passes_and_it_is_on_by_default():
    """What the rule is for: off, the roll is called valid on a face the die beneath does
    not show."""
    off = VerdictConfig(inside_line=0.0, small_one_line=0.0)
    v = verdict(dice(*STACK), profile(CRAPS), ZONES, off)
    assert v.status == VALID and sorted(v.faces) == [1, 2]
    assert VerdictConfig().inside_line == 0.7
    assert verdict(dice(*STACK), profile(CRAPS), ZONES).status == REVIEW


def test_ten_dice_675a_4_d_one_pair_one_finding():
    ten = [(30 * k + 10, 50, 2) for k in range(8)] + [
        (300, 150, 5, {"side": 30}), (304, 152, 3, {"side": 16})]
    v = verdict(dice(*ten), profile(HIGH), ZONES, ON)
    assert v.status == REVIEW
    assert [(r.code, r.section, r.dice) for r in v.reasons] == [
        ("dice_overlap", "675a.4(d)", (8, 9))]


@pytest.mark.parametrize("dx, status", [
    (20.0, VALID),    # side by side, touching: nothing shared
    (14.0, VALID),    # 6 of 20 px shared: 30 %
    (6.01, VALID),    # just under 70 %
    (6.0, REVIEW),    # 70 %: the line is inclusive
    (0.0, REVIEW),    # one box on the other
])
def test_the_line_is_the_share_of_the_smaller_box(dx, status):
    v = verdict(dice((100, 100, 3), (100 + dx, 100, 4)), profile(CRAPS), ZONES, ON)
    assert v.status == status


def test_a_stricter_finding_still_wins():
    """A die on a die flagged over its line stays a no roll (623a.8(b))."""
    stack = [STACK[0], (95, 105, 1, {"side": 20, "stacked": 0.9})]
    v = verdict(dice(*stack), profile(CRAPS), ZONES, ON)
    assert v.status == NO_ROLL
    assert {r.code for r in v.reasons} >= {"die_on_die", "dice_overlap"}
