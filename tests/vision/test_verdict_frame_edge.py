"""A die the frame's edge may cut goes to review (rule 53, docs/verdicts.md session 52): it
shows only the pips in view, and both readings can agree on them."""

from __future__ import annotations

import pytest

from dicecall.vision.profiles import Zones, profile
from dicecall.vision.verdict import REVIEW, VALID, VerdictConfig, verdict

from .test_verdict import CRAPS, HIGH, PROPS, dice

FRAME = (400, 300)
# the play zone runs past the frame, as where a camera does not see the whole throw box
WIDE = Zones(play=[(-100, -100), (500, -100), (500, 400), (-100, 400)])


def _codes(v) -> dict:
    return {r.code: r for r in v.reasons}


@pytest.mark.parametrize(("centre", "side"), [
    ((200, 293), 15.0),  # runs out of the bottom edge (throwbox_0000125: a 2 read as a 1)
    ((6, 100), 15.0),    # reaches the left edge
    ((393, 150), 15.0),  # the right
    ((120, 7), 15.0),    # the top
])
@pytest.mark.parametrize("game", [CRAPS, PROPS])
def test_a_small_die_at_the_frames_edge_is_held_623a_8_668a_3(game, centre, side):
    v = verdict(dice((100, 100, 3), (*centre, 1, {"side": side})), profile(game), WIDE,
                frame=FRAME)
    r = _codes(v).get("die_partly_hidden")
    assert v.status == REVIEW and r is not None
    assert r.dice == (1,) and r.section == profile(game).sections["dispute"]
    assert "frame's edge" in r.detail


@pytest.mark.parametrize(("side", "held"), [
    (15.9, True),   # under 0.8 x the other's 20 px
    (16.0, False),  # at the line: not under it
])
def test_the_frame_edge_line_is_a_strict_under(side, held):
    v = verdict(dice((100, 100, 3), (200, 300 - side / 2, 1, {"side": side})), profile(CRAPS),
                WIDE, frame=FRAME)
    assert ("die_partly_hidden" in _codes(v)) is held
    assert v.status == (REVIEW if held else VALID)


def test_the_same_die_inside_the_frame_or_without_the_frames_size_stands():
    """The stricter line holds only at the frame's edge; elsewhere the 0.5 line does, and a
    caller that gives no frame size judges no die by the edge."""
    small = (200, 150, 1, {"side": 15.0})
    assert verdict(dice((100, 100, 3), small), profile(CRAPS), WIDE, frame=FRAME).status == VALID
    at_edge = (200, 293, 1, {"side": 15.0})
    assert verdict(dice((100, 100, 3), at_edge), profile(CRAPS), WIDE).status == VALID
    off = VerdictConfig(frame_cut_line=0.0)
    assert verdict(dice((100, 100, 3), at_edge), profile(CRAPS), WIDE, off, FRAME).status \
        == VALID


def test_a_die_of_the_usual_size_at_the_frames_edge_stands_675a_4_d():
    """A whole die that only touches the edge is boxed as large as the others: most such dice
    on the suites were read right (docs/verdicts.md, session 52)."""
    specs = [(30 * k + 20, 150, 2) for k in range(9)] + [(390, 150, 5)]
    v = verdict(dice(*specs), profile(HIGH), WIDE, frame=FRAME)
    assert v.status == VALID, v.reasons


def test_a_lone_die_has_nothing_to_be_compared_with():
    """One die (a one-die Extra Roll) has no others to measure its box by."""
    prof = profile(HIGH, 1)
    v = verdict(dice((200, 295, 4, {"side": 10.0})), prof, WIDE, frame=FRAME)
    assert "die_partly_hidden" not in _codes(v)
