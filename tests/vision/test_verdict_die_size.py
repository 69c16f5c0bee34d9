"""The calibrated die size under the verdict's reaches (rule 71, docs/verdicts.md, session 64).

Both dice of a pair can be boxed short: black dice in the shaker got boxes about 0.6 of
their side, so the larger box of the pair was short too, and a die leaning 29 degrees on
the other was freed as out of reach (FRESH98-HD shaker_0000953, session 63). `Zones.die_px`
is the calibration's smallest die side over the play zone; a box under `die_side_floor` (1.1)
of it counts as that long: here 22 px for a 20 px die."""

from __future__ import annotations

import pytest

from dicecall.vision.profiles import Zones, profile
from dicecall.vision.verdict import NO_ROLL, REVIEW, VALID, VerdictConfig, verdict

from .test_verdict import CRAPS, PROPS, ZONES, dice

SHORT = 12  # px: both boxes cut to 0.6 of a 20 px die
WALLED = ZONES.model_copy(update={"walled": True, "die_px": 20.0})
FLOOR = VerdictConfig()  # 1.1 since rule 71
BOXES = VerdictConfig(die_side_floor=0.0)


def _codes(v) -> set[str]:
    return {r.code for r in v.reasons}


def test_a_pair_boxed_short_still_reaches_the_die_it_leans_on_668a_3_h():
    """24 px apart: out of reach of 1.3 x 12 = 15.6, within 1.3 x 22 = 28.6."""
    pair = dice((100, 100, 3, {"side": SHORT}), (124, 100, 5, {"tilt": 0.2, "side": SHORT}))
    boxes = verdict(pair, profile(PROPS), WALLED, BOXES)
    assert boxes.status == VALID and "flag_unsupported" in _codes(boxes)
    floored = verdict(pair, profile(PROPS), WALLED, FLOOR)
    assert floored.status == REVIEW and "flag_unsupported" not in _codes(floored)
    # Nothing known of the die's size: the boxes alone, as before.
    unknown = verdict(pair, profile(PROPS), WALLED.model_copy(update={"die_px": None}), FLOOR)
    assert unknown.status == VALID and "flag_unsupported" in _codes(unknown)


def test_the_floor_frees_a_die_beyond_the_calibrated_reach_668a_3_h():
    pair = dice((100, 100, 3, {"side": SHORT}), (129.0, 100, 5, {"tilt": 0.2, "side": SHORT}))
    v = verdict(pair, profile(PROPS), WALLED, FLOOR)
    assert v.status == VALID and "flag_unsupported" in _codes(v)


def test_the_wall_is_measured_in_the_calibrated_side_too_668a_3_h():
    """24 px from the wall: 2 of its short sides, 1.09 floored ones (within 1.3)."""
    die = dice((100, 100, 3, {"side": SHORT}), (200, 24, 5, {"tilt": 0.2, "side": SHORT}))
    assert verdict(die, profile(PROPS), WALLED, BOXES).status == VALID
    assert verdict(die, profile(PROPS), WALLED, FLOOR).status == REVIEW


def test_a_die_on_a_die_boxed_short_is_not_taken_for_a_lone_flag_623a_8_b():
    """A stacked flag 16 px from the other die: beyond 1.0 x 12, within 1.0 x 22."""
    pair = dice((100, 100, 3, {"side": SHORT}), (116, 100, 6, {"stacked": 0.8, "side": SHORT}))
    assert "stacked_flag_alone" in _codes(verdict(pair, profile(CRAPS), WALLED, BOXES))
    v = verdict(pair, profile(CRAPS), WALLED, FLOOR)
    assert v.status == NO_ROLL and "die_on_die" in _codes(v)


def test_boxes_at_least_the_die_size_are_unchanged():
    """The floor only lengthens a short box: at 22 px boxes (1.1 x 20) the reach is as
    before: 1.3 x 22 = 28.6 px."""
    for x, status in ((128.6, REVIEW), (129.0, VALID)):
        pair = dice((100, 100, 3, {"side": 22}), (x, 100, 5, {"tilt": 0.2, "side": 22}))
        assert verdict(pair, profile(PROPS), WALLED, FLOOR).status == status
        assert verdict(pair, profile(PROPS), WALLED, BOXES).status == status


@pytest.mark.parametrize("bad", [0.0, -3.0, float("nan"), float("inf")])
def test_a_die_size_that_is_not_a_positive_number_is_refused(bad):
    with pytest.raises(ValueError, match="die_px"):
        Zones(play=[(0, 0), (10, 0), (10, 10)], die_px=bad)
