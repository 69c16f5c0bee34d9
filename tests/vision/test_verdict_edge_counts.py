"""Rule 67 (`VerdictConfig.edge_counts`, docs/verdicts.md): a die whose centre lies just
outside the play zone, within `zone_edge_line` of its box side of the edge, is a die the
camera cannot place in or out (a die against the shaker's wall or the rail, its sides seen
from off its axis). It counts in play and a person decides (`on_zone_edge`: 623a.9(c),
668a.3(h), 675a.4(d)), instead of leaving the roll a die short, a no roll (`die_missing`:
623a.8(b), 668a.3(g), 675a.4(b)) for a die the camera saw."""

from __future__ import annotations

import pytest

from dicecall.vision.profiles import Zones, profile
from dicecall.vision.verdict import NO_ROLL, REVIEW, VerdictConfig, verdict

from .test_verdict import CRAPS, HIGH, PROPS, TWO, ZONES, dice

ON = VerdictConfig(edge_counts=True)


@pytest.mark.parametrize(("x", "status"), [
    (400.5, REVIEW), (401.5, REVIEW),    # 0.5 and 1.5 px out: 0.1 x 20 px is 2
    (402.0, NO_ROLL),                    # at the band's end, as inside (398.0 is valid)
])
@pytest.mark.parametrize("game", [CRAPS, PROPS])
def test_a_die_just_past_the_edge_counts_and_is_held(game, x, status):
    v = verdict(dice(TWO[0], (x, 150, 2)), profile(game), ZONES, ON)
    assert v.status == status
    codes = {r.code: (r.section, r.dice) for r in v.reasons}
    if status == REVIEW:
        assert codes == {"on_zone_edge": (profile(game).sections["dispute"], (1,))}
        assert sorted(v.faces) == [2, 3]
    else:
        assert codes["die_missing"][0] == profile(game).sections["missing"]


def test_off_a_die_just_past_the_edge_leaves_the_roll_short_and_it_is_on_by_default():
    off = verdict(dice(TWO[0], (400.5, 150, 2)), profile(CRAPS), ZONES,
                  VerdictConfig(edge_counts=False))
    assert off.status == NO_ROLL and off.reasons[0].code == "die_missing"
    assert VerdictConfig().edge_counts
    assert verdict(dice(TWO[0], (400.5, 150, 2)), profile(CRAPS), ZONES).status == REVIEW


def test_the_band_is_the_zone_edge_line_x_the_die_side():
    """A larger box reaches further: 0.1 x 40 px is 4 px. With the band off (0) nothing
    past the edge counts."""
    big = dice(TWO[0], (403.5, 150, 2, {"side": 40}))
    assert verdict(big, profile(CRAPS), ZONES, ON).status == REVIEW
    off = VerdictConfig(edge_counts=True, zone_edge_line=0.0)
    assert verdict(big, profile(CRAPS), ZONES, off).status == NO_ROLL


def test_ten_dice_675a_4_d():
    nine = [(30 * k + 10, 50, 2) for k in range(9)]
    v = verdict(dice(*nine, (300, 301, 4)), profile(HIGH), ZONES, ON)
    assert v.status == REVIEW
    assert [(r.code, r.section, r.dice) for r in v.reasons] == [
        ("on_zone_edge", "675a.4(d)", (9,))]


def test_a_held_die_past_the_edge_stays_held_on_the_extra_roll():
    """675a.4(e): on the Extra Roll a die in a holding box is out of play, wherever the
    outline runs; past the edge beside a holding box it still counts for nothing."""
    zones = Zones(play=ZONES.play, no_roll={},
                  held=[(400, 0), (440, 0), (440, 40), (400, 40)])
    rethrown = [(30 * k + 10, 150, 3) for k in range(9)]
    extra = profile(HIGH, 9)  # fewer than ten: the Extra Roll
    v = verdict(dice(*rethrown, (401, 20, 5)), extra, zones, ON)
    assert v.status != NO_ROLL
    assert 9 not in v.dice
