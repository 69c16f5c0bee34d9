"""A face under the confidence line that the pip layout reads the same (rule 46,
`VerdictConfig.agreeing_confidence`, docs/verdicts.md). A face the camera cannot read with
confidence is a dispute for a person (623a.9(c), 668a.3(h), 675a.4(d)); with the floor on, in a
roll of at most two dice, a face of at least the floor, not a 1, that the independent pip
reading agrees with counts, and the verdict records it. Everything else stays a review."""

from __future__ import annotations

import pytest

from dicecall.vision.profiles import profile
from dicecall.vision.verdict import NO_ROLL, REVIEW, VALID, VerdictConfig, verdict

from .test_verdict import CRAPS, HIGH, PROPS, TWO, ZONES, dice

ON = VerdictConfig(agreeing_confidence=0.9)


def _reasons(v) -> dict[str, tuple[str, str, tuple[int, ...]]]:
    return {r.code: (r.status, r.section, r.dice) for r in v.reasons}


@pytest.mark.parametrize("game, section", [(CRAPS, "623a.9(c)"), (PROPS, "668a.3(h)")])
def test_an_agreeing_face_over_the_floor_counts_and_is_recorded(game, section):
    v = verdict(dice(TWO[0], (200, 120, 5, {"p": 0.93})), profile(game), ZONES, ON)
    assert v.status == VALID
    assert sorted(v.faces) == [3, 5]
    assert _reasons(v) == {"low_confidence_agreed": (VALID, section, (1,))}
    assert "p=0.930" in v.reasons[0].detail


@pytest.mark.parametrize("p, status", [(0.9, VALID), (0.8999, REVIEW), (0.5, REVIEW)])
def test_the_floor_is_inclusive_623a_9_c(p, status):
    v = verdict(dice(TWO[0], (200, 120, 5, {"p": p})), profile(CRAPS), ZONES, ON)
    assert v.status == status
    if status == REVIEW:
        assert _reasons(v)["low_confidence"] == (REVIEW, "623a.9(c)", (1,))


def test_on_by_default_since_rule_46_and_off_at_0():
    two = dice(TWO[0], (200, 120, 5, {"p": 0.97}))
    assert verdict(two, profile(CRAPS), ZONES).status == VALID
    v = verdict(two, profile(CRAPS), ZONES, VerdictConfig(agreeing_confidence=0.0))
    assert v.status == REVIEW and "low_confidence" in _reasons(v)


def test_a_one_never_counts_under_the_line_623a_9_c():
    """A lone blob is what a die seen in part, or a tiny one, shows."""
    v = verdict(dice(TWO[0], (200, 120, 1, {"p": 0.97})), profile(CRAPS), ZONES, ON)
    assert v.status == REVIEW and "low_confidence" in _reasons(v)


@pytest.mark.parametrize("pips", [4, 0])
def test_pips_that_disagree_or_cannot_be_read_hold_it_623a_9_c(pips):
    v = verdict(dice(TWO[0], (200, 120, 5, {"p": 0.95, "pips": pips})), profile(CRAPS),
                ZONES, ON)
    assert v.status == REVIEW
    assert {"low_confidence", "readings_disagree"} <= set(_reasons(v))


def test_not_in_a_ten_dice_throw_without_rule_62_675a_4_d():
    """Among ten dice a doubtful face was the only sign left of a die on a die."""
    ten = [(30 * k + 10, 50, 2, {"p": 0.95} if k == 3 else {}) for k in range(10)]
    v = verdict(dice(*ten), profile(HIGH), ZONES, ON.model_copy(update={"agreeing_alone": False}))
    assert v.status == REVIEW and _reasons(v)["low_confidence"][:2] == (REVIEW, "675a.4(d)")
    wide = VerdictConfig(agreeing_confidence=0.9, agreeing_max_dice=10)
    assert verdict(dice(*ten), profile(HIGH), ZONES, wide).status == VALID


ALONE = VerdictConfig(agreeing_confidence=0.9, agreeing_alone=True)


def test_rule_62_is_on_by_default():
    assert VerdictConfig().agreeing_alone  # met on FRESH89


def test_in_a_ten_dice_throw_a_die_boxed_clear_of_the_others_counts_675a_4_d():
    """Rule 62 (docs/verdicts.md, session 58): the doubtful faces that held ten-dice
    stacked throws belonged to a die partly under another, whose box shares pixels with
    it; a die boxed clear of every other is neither beneath nor leaned on."""
    ten = [(30 * k + 10, 50, 2, {"p": 0.95} if k == 3 else {}) for k in range(10)]
    v = verdict(dice(*ten), profile(HIGH), ZONES, ALONE)
    assert v.status == VALID
    assert _reasons(v) == {"low_confidence_agreed": (VALID, "675a.4(d)", (3,))}


@pytest.mark.parametrize("x", [115.0, 120.0])  # its box overlaps die 4's (120-140): held
def test_in_a_ten_dice_throw_a_die_touching_another_is_held_675a_4_d(x):
    ten = [(30 * k + 10, 50, 2) for k in range(10)]
    ten[3] = (x, 50, 2, {"p": 0.95})
    v = verdict(dice(*ten), profile(HIGH), ZONES, ALONE)
    assert v.status == REVIEW and _reasons(v)["low_confidence"][:2] == (REVIEW, "675a.4(d)")


def test_an_extra_roll_of_two_dice_counts_675a_4_d():
    v = verdict(dice((100, 100, 4), (200, 120, 6, {"p": 0.95})), profile(HIGH, 2), ZONES, ON)
    assert v.status == VALID and "low_confidence_agreed" in _reasons(v)


def test_it_never_lifts_a_no_roll_623a_8_b():
    v = verdict(dice((100, 100, 3, {"p": 0.95}), (110, 105, 6, {"stacked": 0.8})),
                profile(CRAPS), ZONES, ON)
    assert v.status == NO_ROLL and "die_on_die" in _reasons(v)


def test_the_config_refuses_a_floor_out_of_range():
    with pytest.raises(ValueError):
        VerdictConfig(agreeing_confidence=1.5)
    with pytest.raises(ValueError):
        VerdictConfig(agreeing_max_dice=0)


TOUCHING = ALONE.model_copy(update={"agreeing_touching": 0.97})


def _touching_ten(p: float, face: int = 2, pips: int | None = None):
    ten = [(30 * k + 10, 50, 2) for k in range(10)]
    ten[3] = (115.0, 50, face, {"p": p, **({} if pips is None else {"pips": pips})})
    return dice(*ten)  # die 3's box (105-125) overlaps die 4's (120-140)


def test_rule_74_is_on_by_default_since_fresh101():
    assert VerdictConfig().agreeing_touching == 0.97
    v = verdict(_touching_ten(0.97), profile(HIGH), ZONES)
    assert v.status == VALID and "low_confidence_agreed" in _reasons(v)


@pytest.mark.parametrize("update", [{"agreeing_touching": 0.0}, {"agreeing_confidence": 0.0}])
def test_rule_74_is_off_at_0_and_with_rule_46_675a_4_d(update):
    """A profile fitted before rule 46's reads were tested loads with rule 46 off
    (calibration/profile.py); rule 74, a stricter rule 46, goes with it."""
    v = verdict(_touching_ten(0.975), profile(HIGH), ZONES, TOUCHING.model_copy(update=update))
    assert v.status == REVIEW and "low_confidence" in _reasons(v)


def test_rule_74_never_takes_a_face_under_rule_46s_own_floor():
    stricter = TOUCHING.model_copy(update={"agreeing_confidence": 0.975})
    assert verdict(_touching_ten(0.972), profile(HIGH), ZONES, stricter).status == REVIEW
    assert verdict(_touching_ten(0.976), profile(HIGH), ZONES, stricter).status == VALID


@pytest.mark.parametrize("p, status", [(0.97, VALID), (0.9699, REVIEW), (0.95, REVIEW)])
def test_rule_74_a_touching_die_counts_from_its_own_higher_floor_675a_4_d(p, status):
    """Rule 74 (docs/verdicts.md, session 66): a touching die in a larger roll counts under
    the confidence line only from `agreeing_touching`, over rule 46's floor: the die
    beneath a die on a die read 0.90-0.95 with its pips agreeing (FRESH74, FRESH81)."""
    v = verdict(_touching_ten(p), profile(HIGH), ZONES, TOUCHING)
    assert v.status == status
    code = "low_confidence_agreed" if status == VALID else "low_confidence"
    assert _reasons(v)[code] == (status, "675a.4(d)", (3,))


@pytest.mark.parametrize("face, pips", [(1, 1), (2, 3), (2, 0)])
def test_rule_74_never_takes_a_one_or_pips_that_disagree_675a_4_d(face, pips):
    v = verdict(_touching_ten(0.97, face, pips), profile(HIGH), ZONES, TOUCHING)
    assert v.status == REVIEW and "low_confidence" in _reasons(v)


def test_rule_74_leaves_a_die_clear_of_the_others_to_rule_62():
    """A die boxed clear of every other keeps rule 62's floor, and with rule 62 off none."""
    ten = [(30 * k + 10, 50, 2, {"p": 0.92} if k == 3 else {}) for k in range(10)]
    assert verdict(dice(*ten), profile(HIGH), ZONES, TOUCHING).status == VALID
    off = TOUCHING.model_copy(update={"agreeing_alone": False})
    assert verdict(dice(*ten), profile(HIGH), ZONES, off).status == REVIEW


def test_rule_74_never_lifts_a_die_on_a_die_675a_4_b():
    ten = [(30 * k + 10, 50, 2) for k in range(10)]
    ten[3] = (115.0, 50, 2, {"p": 0.97})
    ten[4] = (122.0, 52, 5, {"stacked": 0.9})
    v = verdict(dice(*ten), profile(HIGH), ZONES, TOUCHING)
    assert v.status == NO_ROLL and "die_on_die" in _reasons(v)


@pytest.mark.parametrize("side, status", [(14.0, VALID), (13.9, REVIEW), (10.0, REVIEW)])
def test_rule_75_an_agreeing_face_never_counts_on_a_die_boxed_small_623a_9_c(side, status):
    """Rule 75 (docs/verdicts.md, session 66): a die partly out of view shows only some of
    its pips, and the layout fit agrees with what shows (a 4 half behind the shaker's rim
    read as a 2 at 0.92). Under 0.7 of the other dice's median side its face goes back to
    a person."""
    v = verdict(dice(TWO[0], (200, 120, 2, {"p": 0.93, "side": side})), profile(CRAPS), ZONES)
    assert v.status == status
    code = "low_confidence_agreed" if status == VALID else "low_confidence"
    assert _reasons(v)[code] == (status, "623a.9(c)", (1,))


def test_rule_75_is_on_by_default_off_at_0_and_judges_by_the_dice_in_play():
    assert VerdictConfig().agreeing_box_line == 0.7
    small = dice(TWO[0], (200, 120, 2, {"p": 0.93, "side": 10.0}))
    off = VerdictConfig(agreeing_box_line=0.0)
    assert verdict(small, profile(CRAPS), ZONES, off).status == VALID
    # In a ten-dice throw the line is the median of the nine others, not of the big few.
    ten = [(30 * k + 10, 50, 2, {"side": 40.0 if k < 3 else 12.0}) for k in range(10)]
    ten[5] = (160, 50, 3, {"p": 0.93, "side": 9.0})  # 0.75 of the others' median 12
    assert verdict(dice(*ten), profile(HIGH), ZONES).status == VALID
