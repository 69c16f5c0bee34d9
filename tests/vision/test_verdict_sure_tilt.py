"""Rules 69 and 70 (session 63, docs/verdicts.md): neither met its judge on FRESH98, so the
committed defaults hold what they were written to let go.

Rule 70 would have turned rule 14 off (`tilted_edge_review_deg`): FRESH98 then let a Craps
void through at each size. Its 640x480 roll is kept here as the die the runtime read:
`craps_0000674`, a die on chips at 42.8 degrees (true up margin 4.4, resting on two sides:
void, 623a.9(b)), read tilted 0.874 with an up margin of 42.8, over the 40-degree line."""

from __future__ import annotations

import pytest

from dicecall.vision.profiles import profile
from dicecall.vision.verdict import NO_ROLL, REVIEW, VALID, VerdictConfig, verdict

from .test_verdict import CRAPS, HIGH, PROPS, TWO, ZONES, dice

VOID_READ_TILTED = {"tilt": 0.874, "margin": 42.8, "p": 0.989}


def _codes(v) -> set[str]:
    return {r.code for r in v.reasons}


@pytest.mark.parametrize("game", [CRAPS, HIGH])
def test_a_void_read_tilted_over_the_margin_line_is_held_623a_9_c_675a_4_d(game):
    n = 2 if game == CRAPS else 10
    specs = [(30 * k + 10, 50, 2) for k in range(n - 1)] + [(200, 120, 1, VOID_READ_TILTED)]
    v = verdict(dice(*specs), profile(game), ZONES)
    assert v.status == REVIEW
    reason = next(r for r in v.reasons if r.code == "cocked_near_edge")
    assert reason.dice == (n - 1,)
    # Rule 70's setting: the same reading would have settled the roll as a 1.
    off = verdict(dice(*specs), profile(game), ZONES, VerdictConfig(tilted_edge_review_deg=0.0))
    assert off.status == VALID and "cocked_near_edge" not in _codes(off)


@pytest.mark.parametrize("tilt, status", [(0.49, REVIEW), (0.5, NO_ROLL), (0.69, NO_ROLL)])
def test_props_hops_flags_over_rule_43s_line_stay_a_no_roll_668a_3_h(tilt, status):
    """Rule 69 (0.7) was not met: from 0.5 a tilt flag still calls the roll off."""
    v = verdict(dice(TWO[0], (200, 120, 5, {"tilt": tilt})), profile(PROPS), ZONES)
    assert v.status == status
    assert ("cocked" in _codes(v)) == (status == NO_ROLL)
