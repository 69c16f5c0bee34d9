"""Rules 72 and 73 (session 65, docs/verdicts.md): two no rolls the camera called on a sign
it was not sure of become a person's call.

Rule 72: in Props & Hops a die whose up margin reads near an edge was a no roll whatever its
tilt flag (668a.3(h)); under `no_roll_sure_margin_deg` it still is, between that and
`edge_review_deg` a flag under `no_roll_sure_tilt` holds the roll (`cocked_doubt`).
Rule 73: a die the reader added only to fill a count it was short of carries a die-or-not
probability under the reader's line; it is held (`die_doubtful`, 623a.9(c), 668a.3(h),
675a.4(d)), never settled on, and the roll is no longer a no roll for a die the camera may
have missed (`die_missing`, 623a.8(b), 668a.3(g), 675a.4(b))."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dicecall.vision.config import ReaderConfig
from dicecall.vision.profiles import profile
from dicecall.vision.verdict import NO_ROLL, REVIEW, VALID, VerdictConfig, verdict

from .test_verdict import CRAPS, HIGH, PROPS, TWO, WALLED, ZONES, dice

RULE_72 = VerdictConfig()


def test_rule_72_was_met_and_rule_73_was_not():
    """FRESH100 judged both (docs/verdicts.md): the margin's no-roll line is 30, and the
    reader adds no doubtful die."""
    assert VerdictConfig().no_roll_sure_margin_deg == 30.0
    assert ReaderConfig().short_die == 0.0


def _held(v) -> list[tuple[str, str, tuple[int, ...]]]:
    return [(r.code, r.section, r.dice) for r in v.reasons if r.status != VALID]


@pytest.mark.parametrize("margin, tilt, status, code", [
    (35.0, 0.3, REVIEW, "cocked_doubt"),   # near an edge, a weak flag: a person decides
    (30.0, 0.3, REVIEW, "cocked_doubt"),   # at the line
    (29.9, 0.3, NO_ROLL, "cocked"),        # under it: read on an edge, not flat
    (35.0, 0.5, NO_ROLL, "cocked"),        # a sure tilt flag stands whatever the margin
    (35.0, 0.01, REVIEW, "cocked_doubt"),  # under the tilt line, the margin alone flags it
])
def test_props_hops_die_read_near_an_edge_668a_3_h(margin, tilt, status, code):
    v = verdict(dice(TWO[0], (200, 120, 5, {"tilt": tilt, "margin": margin})),
                profile(PROPS), ZONES, RULE_72)
    assert v.status == status
    assert _held(v) == [(code, "668a.3(h)", (1,))]
    if code == "cocked_doubt":
        assert f"up margin {margin:.0f} deg" in v.reasons[0].detail


def test_a_die_held_near_an_edge_is_never_freed_for_want_of_support():
    """Far from the wall and from the other die, a weak flag is set aside (`flag_unsupported`);
    a die read near an edge is not, on either side of rule 72's line."""
    flat = [(40, 40, 3), (200, 120, 5, {"tilt": 0.3})]
    # the control: on the walled floor the same flag, its margin unread, is set aside
    assert "flag_unsupported" in {r.code for r in verdict(dice(*flat), profile(PROPS),
                                                          WALLED, RULE_72).reasons}
    far = [(40, 40, 3), (200, 120, 5, {"tilt": 0.3, "margin": 35.0})]
    for cfg in (RULE_72, VerdictConfig(no_roll_sure_margin_deg=40.0)):
        v = verdict(dice(*far), profile(PROPS), WALLED, cfg)
        assert v.status != VALID and "flag_unsupported" not in {r.code for r in v.reasons}


def test_rule_72_off_is_the_review_line_and_other_games_ignore_it():
    """At `edge_review_deg` every die read near an edge is a no roll, as before session 65;
    where a cocked die counts the margin sends it to review (`cocked_near_edge`) either way."""
    near = dice(TWO[0], (200, 120, 5, {"tilt": 0.3, "margin": 35.0}))
    off = VerdictConfig(no_roll_sure_margin_deg=VerdictConfig().edge_review_deg)
    assert verdict(near, profile(PROPS), ZONES, off).status == NO_ROLL
    for cfg in (off, RULE_72):
        v = verdict(near, profile(CRAPS), ZONES, cfg)
        assert _held(v) == [("cocked_near_edge", "623a.9(c)", (1,))]


def _probable(d, probs):
    return dataclasses.replace(d, die_prob=np.asarray(probs, np.float32))


@pytest.mark.parametrize("game, n, section", [
    (CRAPS, 2, "623a.9(c)"), (PROPS, 2, "668a.3(h)"), (HIGH, 10, "675a.4(d)")])
def test_a_doubtful_die_is_held_for_a_person(game, n, section):
    rows = TWO if n == 2 else [(30 * k + 10, 50, 2) for k in range(n)]
    v = verdict(_probable(dice(*rows), [0.99] * (n - 1) + [0.32]), profile(game, n), ZONES)
    assert v.status == REVIEW
    assert _held(v) == [("die_doubtful", section, (n - 1,))]
    assert "0.32" in v.reasons[0].detail


def test_without_it_the_roll_is_short_and_at_the_line_the_die_counts():
    """The same roll without the doubtful die is `die_missing`, the no roll it turns into a
    review; a die at the reader's line is a die like any other, and one not read (NaN) too."""
    short = verdict(dice(*TWO[:1]), profile(CRAPS), ZONES)
    assert short.status == NO_ROLL and short.reasons[0].code == "die_missing"
    at = verdict(_probable(dice(*TWO), [0.99, 0.6]), profile(CRAPS), ZONES)
    assert at.status == VALID
    assert verdict(dice(*TWO), profile(CRAPS), ZONES).status == VALID
    assert VerdictConfig().doubtful_die == ReaderConfig().die_threshold


def test_a_doubtful_face_never_stands_for_the_call():
    """High Roll lets a roll stand whatever a doubtful face shows (`call_stands`); a die the
    camera is not sure is a die is not a doubtful face."""
    rows = [(30 * k + 10, 50, 6) for k in range(9)] + [(300, 50, 1)]
    d = _probable(dice(*rows), [0.99] * 9 + [0.2])
    v = verdict(d, profile(HIGH, 10), ZONES, VerdictConfig(call_stands_floor=0.05))
    assert v.status == REVIEW and "die_doubtful" in {r.code for r in v.reasons}


def test_off_a_doubtful_die_counts_and_outside_the_zone_it_is_not_judged():
    d = _probable(dice(*TWO), [0.99, 0.2])
    assert verdict(d, profile(CRAPS), ZONES, VerdictConfig(doubtful_die=0.0)).status == VALID
    rail = _probable(dice(*TWO, (450, 200, 2)), [0.99, 0.99, 0.1])
    assert "die_doubtful" not in {r.code for r in verdict(rail, profile(CRAPS), ZONES).reasons}
