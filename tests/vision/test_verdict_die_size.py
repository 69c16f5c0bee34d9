"""The calibrated die size under the verdict's reaches (rule 71, docs/verdicts.md, session 64).

Both dice of a pair can be boxed short: black dice in the shaker got boxes about 0.6 of
their side, so the larger box of the pair was short too, and a die leaning 29 degrees on
the other was freed as out of reach (FRESH98-HD shaker_0000953, session 63). `Zones.die_px`
is the calibration's smallest die side over the play zone; with `die_side_floor` a box under
it counts as that side."""

from __future__ import annotations

import pytest

from dicecall.vision.profiles import Zones, profile
from dicecall.vision.verdict import NO_ROLL, REVIEW, VALID, VerdictConfig, verdict

from .test_verdict import CRAPS, PROPS, ZONES, dice

SHORT = 12  # px: both boxes cut to 0.6 of a 20 px die
WALLED = ZONES.model_copy(update={"walled": True, "die_px": 20.0})
FLOOR = VerdictConfig(die_side_floor=1.0)


def _codes(v) -> set[str]:
    return {r.code for r in v.reasons}


def test_a_pair_boxed_short_still_reaches_the_die_it_leans_on_668a_3_h():
    """24 px apart: out of reach of 1.3 x 12 = 15.6, within 1.3 x 20 = 26."""
    pair = dice((100, 100, 3, {"side": SHORT}), (124, 100, 5, {"tilt": 0.2, "side": SHORT}))
    boxes = verdict(pair, profile(PROPS), WALLED)
    assert boxes.status == VALID and "flag_unsupported" in _codes(boxes)
    floored = verdict(pair, profile(PROPS), WALLED, FLOOR)
    assert floored.status == REVIEW and "flag_unsupported" not in _codes(floored)
    # Nothing known of the die's size: the boxes alone, as before.
    unknown = verdict(pair, profile(PROPS), WALLED.model_copy(update={"die_px": None}), FLOOR)
    assert unknown.status == VALID and "flag_unsupported" in _codes(unknown)


def test_the_floor_frees_a_die_beyond_the_calibrated_reach_668a_3_h():
    pair = dice((100, 100, 3, {"side": SHORT}), (126.5, 100, 5, {"tilt": 0.2, "side": SHORT}))
    v = verdict(pair, profile(PROPS), WALLED, FLOOR)
    assert v.status == VALID and "flag_unsupported" in _codes(v)


def test_the_wall_is_measured_in_the_calibrated_side_too_668a_3_h():
    """24 px from the wall: 2 of its short sides, 1.2 calibrated ones (within 1.3)."""
    die = dice((100, 100, 3, {"side": SHORT}), (200, 24, 5, {"tilt": 0.2, "side": SHORT}))
    assert verdict(die, profile(PROPS), WALLED).status == VALID
    assert verdict(die, profile(PROPS), WALLED, FLOOR).status == REVIEW


def test_a_die_on_a_die_boxed_short_is_not_taken_for_a_lone_flag_623a_8_b():
    """A stacked flag 16 px from the other die: beyond 1.0 x 12, within 1.0 x 20."""
    pair = dice((100, 100, 3, {"side": SHORT}), (116, 100, 6, {"stacked": 0.8, "side": SHORT}))
    assert "stacked_flag_alone" in _codes(verdict(pair, profile(CRAPS), WALLED))
    v = verdict(pair, profile(CRAPS), WALLED, FLOOR)
    assert v.status == NO_ROLL and "die_on_die" in _codes(v)


def test_boxes_at_least_the_die_size_are_unchanged():
    """The floor only lengthens a short box: at 20 px boxes the reach is as before."""
    for x in (125.9, 126.5):
        pair = dice((100, 100, 3), (x, 100, 5, {"tilt": 0.2}))
        assert (verdict(pair, profile(PROPS), WALLED, FLOOR).status
                == verdict(pair, profile(PROPS), WALLED).status)


@pytest.mark.parametrize("bad", [0.0, -3.0, float("nan"), float("inf")])
def test_a_die_size_that_is_not_a_positive_number_is_refused(bad):
    with pytest.raises(ValueError, match="die_px"):
        Zones(play=[(0, 0), (10, 0), (10, 10)], die_px=bad)
