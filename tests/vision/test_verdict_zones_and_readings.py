"""The verdict on dice that are not all thrown, zones a die may rest in, and readings no line
can judge (issue 6; found by an audit against the chapters in session 39).

Each case is one a table meets: a first throw that stops on a holding box, held dice set
side by side during the Extra Roll, a spare die off the zones, a High Roll die on chips, a
reader that returns NaN.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dicecall.vision.dice import Dice
from dicecall.vision.profiles import Zones, profile
from dicecall.vision.verdict import NO_ROLL, REVIEW, VALID, verdict

from .test_verdict import CRAPS, HIGH, PROPS, TWO, ZONES, dice

HELD = [(20 + 20 * k, 280, 6) for k in range(4)]  # on the holding box of ZONES
RETHROWN = [(150 + 30 * k, 100, 2) for k in range(6)]


def _codes(v) -> dict[str, str]:
    return {r.code: r.section for r in v.reasons}


def test_a_first_throw_die_on_a_holding_box_is_in_the_box_675a_4_e():
    """The holding boxes are on the throw box layout (675a.4(e)); on the first throw
    nothing is held, so a die that stops there counts like any other."""
    ten = [(30 * k + 10, 50, 2) for k in range(9)] + [(60, 280, 5)]
    v = verdict(dice(*ten), profile(HIGH), ZONES)
    assert v.status == VALID and sorted(v.faces) == [2] * 9 + [5]


def test_on_the_extra_roll_the_holding_box_holds_dice_that_were_not_thrown_675a_4_g():
    v = verdict(dice(*HELD, *RETHROWN), profile(HIGH, expected=6), ZONES)
    assert v.status == VALID and v.faces == (2,) * 6


def test_a_stacked_flag_on_a_held_die_does_not_void_the_extra_roll_675a_4_b():
    """Held dice sit touching in a row, where a false die-on-die flag is likeliest; they
    were not thrown, so 675a.4(b) does not judge them."""
    held = [*HELD[:2], (HELD[2][0], HELD[2][1], 6, {"stacked": 0.8}), HELD[3]]
    v = verdict(dice(*held, *RETHROWN), profile(HIGH, expected=6), ZONES)
    assert v.status == VALID, _codes(v)


def test_a_stacked_die_in_play_still_voids_the_extra_roll_675a_4_b():
    rethrown = [*RETHROWN[:5], (RETHROWN[4][0] + 10, RETHROWN[4][1] + 5, 2, {"stacked": 0.9})]
    v = verdict(dice(*HELD, *rethrown), profile(HIGH, expected=6), ZONES)
    assert v.status == NO_ROLL and "die_on_die" in _codes(v)


def test_a_spare_die_off_every_zone_neither_counts_nor_voids_the_roll_623a_8_b():
    spare = (380, 330, 1, {"stacked": 0.9})  # below the play area, on no zone
    v = verdict(dice(*TWO, spare, (385, 335, 6)), profile(CRAPS), ZONES)
    assert v.status == VALID and v.faces == (3, 4), _codes(v)


def test_a_high_roll_die_on_chips_counts_and_a_person_checks_it_675a_4_c():
    """675a.4(c): a die resting on chips counts, the side opposite the one on the chips
    uppermost; there is no High Roll no roll for it (DESIGN.md's table: '-')."""
    nine = [(30 * k + 10, 50, 2) for k in range(9)]
    v = verdict(dice(*nine, (450, 50, 6)), profile(HIGH), ZONES)
    assert v.status == REVIEW and _codes(v) == {"rest_on_bank_chips": "675a.4(c)"}
    assert sorted(v.faces) == [2] * 9 + [6]


@pytest.mark.parametrize(("game", "status"), [(CRAPS, REVIEW), (PROPS, NO_ROLL)])
def test_the_other_games_keep_their_zone_rules_623a_8_c_668a_3_g(game, status):
    v = verdict(dice(TWO[0], (450, 50, 6)), profile(game), ZONES)
    assert v.status == status and "rest_on_bank_chips" in _codes(v)


def test_only_a_die_near_the_play_edge_is_on_the_zone_edge():
    """A die in a no-roll zone lies outside the play zone: it is on the edge only when it
    lies within the line of it, as a die just inside does."""
    zones = Zones(play=ZONES.play, no_roll={"bank_chips": [(400, 0), (500, 0), (500, 100),
                                                           (400, 100)]})
    far = verdict(dice(TWO[0], (460, 50, 6)), profile(CRAPS), zones)
    near = verdict(dice(TWO[0], (401, 50, 6)), profile(CRAPS), zones)
    assert "on_zone_edge" not in _codes(far)
    assert "on_zone_edge" in _codes(near)


@pytest.mark.parametrize("field", ["face_probs", "tilt", "stacked"])
@pytest.mark.parametrize("game", [CRAPS, PROPS, HIGH])
def test_a_reading_no_line_can_judge_is_held_for_a_person(game, field):
    """Every comparison with NaN is False, which would pass the die: it must not."""
    n = profile(game).expected
    base = dice(*[(30 * k + 10, 50, 2 + k % 3) for k in range(n)])
    bad = getattr(base, field).copy()
    bad[1] = np.nan
    v = verdict(dataclasses.replace(base, **{field: bad}), profile(game), ZONES)
    assert v.status == REVIEW
    assert _codes(v)["reading_invalid"] == profile(game).sections["dispute"]


@pytest.mark.parametrize(("field", "value"), [("face", 0), ("face", 7), ("pip_face", 7),
                                              ("pip_face", -1)])
def test_dice_refuse_a_face_outside_1_to_6(field, value):
    """A face of 0 would read face 6's probability as its confidence."""
    good = dice(*TWO)
    bad = getattr(good, field).astype(np.int64)
    bad[0] = value
    with pytest.raises(ValueError, match=f"Dice.{field}: values must be"):
        Dice(**{f.name: getattr(good, f.name) for f in dataclasses.fields(good)
                if f.name != field}, **{field: bad})


def test_the_six_dice_variation_cites_its_own_call_675a_6_h():
    v = verdict(dice(*[(30 * k + 10, 50, 2) for k in range(7)]), profile("high-roll-dice-6"),
                ZONES)
    assert _codes(v) == {"extra_object": "675a.6(h)"}


@pytest.mark.parametrize(("game", "count"), [(CRAPS, 5), ("mini-craps", 1), (PROPS, 3),
                                             (CRAPS, 0), (HIGH, 2.5), (HIGH, True),
                                             ("high-roll-dice-6", 7)])
def test_a_dice_count_the_chapter_does_not_allow_is_refused(game, count):
    with pytest.raises(ValueError, match="dice"):
        profile(game, count)


def test_counts_the_chapters_allow():
    assert profile(CRAPS, 2).expected == 2 and not profile(CRAPS).extra_roll
    assert profile(HIGH, np.int64(4)).expected == 4 and profile(HIGH, 4).extra_roll
    assert not profile(HIGH, 10).extra_roll and not profile(HIGH).extra_roll


@pytest.mark.parametrize("zones", [
    {"play": ZONES.play, "held": [(0, 260), (120, 300)]},
    {"play": [(0, 0), (400, 0), (float("nan"), 300), (0, 300)]},
    {"play": ZONES.play, "no_roll": {"rail": [(0, 0), (10, 10)]}},
])
def test_a_zone_that_is_not_an_area_is_a_calibration_error(zones):
    """Not a `die_missing` call on every roll after it."""
    with pytest.raises(ValueError, match="at least 3 finite points"):
        Zones(**zones)
