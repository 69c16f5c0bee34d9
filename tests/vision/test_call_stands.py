"""Rule 34: on High Roll's first roll a doubtful face that cannot change the call does not hold
the roll (675a.4(d),(f); 675a.6(h),(i); docs/verdicts.md, session 38)."""

from __future__ import annotations

from itertools import product

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dicecall.api.games import high_roll
from dicecall.api.games.high_roll_state import HighRollOptions
from dicecall.api.games.model import Wager
from dicecall.vision.call_stands import standing_call
from dicecall.vision.profiles import profile
from dicecall.vision.verdict import NO_ROLL, REVIEW, VALID, VerdictConfig, verdict

from .test_verdict import ZONES, dice

# Rule 46's agreeing face (two-dice rolls) off, so these judge the call alone.
ON = VerdictConfig(call_stands_floor=0.01, agreeing_confidence=0.0)
OFF = VerdictConfig(agreeing_confidence=0.0)
HIGH, SIX = "high-roll-dice", "high-roll-dice-6"
# Four 5s, three 6s, two 1s and a 4 (675a.4(e)'s example): the call is four 5s.
FACES = (5, 5, 5, 5, 6, 6, 6, 1, 1, 4)


def throw(faces=FACES, doubt=None, **kw):
    """Ten (or six) dice in a row in the throw box; die `doubt` read with keywords `kw`."""
    return dice(*[(30 + 35 * k, 100, f, kw if k == doubt else {}) for k, f in enumerate(faces)])


def codes(v):
    return {r.code: r.status for r in v.reasons}


def test_by_default_a_doubtful_face_still_holds_the_roll_675a_4_b_d():
    """Why the rule is off (docs/verdicts.md, session 38): on FRESH73 and FRESH74 the only
    hold on some stacked rolls (675a.4(b)) was a doubtful face, of a die partly under the
    top one or of the top die itself. Ten dice found, the top one's stacked flag low, the
    one beneath read a 3 at p 0.95 (perhaps a 2): four 5s either way, yet a die on a die.
    The top die's box covers part of the one beneath, so rule 62 does not lift it."""
    faces = (5, 5, 5, 5, 6, 6, 1, 4, 3, 3)
    d = dice(*[(30 + 35 * k, 100, f, {"p": 0.95, "second": 2} if k == 8 else {})
               for k, f in enumerate(faces[:9])], (326, 104, 3, {"stacked": 0.004}))
    assert verdict(d, profile(HIGH), ZONES).status == REVIEW
    assert verdict(d, profile(HIGH), ZONES, ON).status == VALID  # the hazard, if turned on


def test_a_doubtful_die_that_cannot_change_the_call_does_not_hold_the_roll_675a_4_d():
    # The 4 read at p 0.93, perhaps a 3: four 5s either way.
    d = throw(doubt=9, p=0.93, second=3)
    assert verdict(d, profile(HIGH), ZONES, OFF).status == REVIEW  # the rule off: as before
    v = verdict(d, profile(HIGH), ZONES, ON)
    assert v.status == VALID and codes(v) == {"call_stands": VALID}
    (r,) = v.reasons
    assert r.section == "675a.4(d)" and r.dice == (9,)
    assert "4 x 5" in r.detail and "3 or 4" in r.detail and "p=0.930" in r.detail


@pytest.mark.parametrize("kw, why", [
    ({"p": 0.93, "second": 5}, "it may be a fifth 5"),
    ({"p": 0.93, "second": 6}, "a fourth 6 ties the 5s and outranks them (675a.2(d))"),
    ({"pips": 5}, "its pips count a fifth 5"),
])
def test_a_doubtful_die_that_could_change_the_call_holds_it(kw, why):
    v = verdict(throw(doubt=9, **kw), profile(HIGH), ZONES, ON)
    assert v.status == REVIEW and "call_stands" not in codes(v), why


def test_a_doubtful_die_of_the_winning_face_holds_the_roll():
    # The die read 5 at p 0.93 (perhaps a 2) is one of the four: three 5s and three 6s then.
    v = verdict(throw(doubt=0, p=0.93, second=2), profile(HIGH), ZONES, ON)
    assert v.status == REVIEW


def test_only_a_first_roll_of_high_roll_is_lifted():
    # An Extra Roll's call counts the first roll's face among the rethrown dice (675a.4(h)).
    extra = verdict(throw(FACES[:6], doubt=5, p=0.93, second=3), profile(HIGH, 6), ZONES, ON)
    assert extra.status == REVIEW
    # Craps and Props & Hops settle on every face.
    for game in ("craps", "props-and-hops"):
        v = verdict(dice((100, 100, 3), (200, 120, 4, {"p": 0.93, "second": 2})), profile(game),
                    ZONES, ON)
        assert v.status == REVIEW, game


def test_the_six_dice_variation_cites_its_own_section_675a_6_h():
    v = verdict(throw((2, 2, 2, 6, 1, 4), doubt=5, p=0.93, second=3), profile(SIX), ZONES, ON)
    assert v.status == VALID and v.reasons[0].section == "675a.6(h)"


def test_a_roll_held_for_anything_else_stays_held():
    # A die near an edge (675a.4(d)) is a question about the roll, not a face.
    d = throw(doubt=9, p=0.93, second=3, tilt=0.9, margin=20.0)
    assert verdict(d, profile(HIGH), ZONES, ON).status == REVIEW
    # A missing die is a no roll (675a.4(b)) whatever the faces.
    short = dice(*[(30 + 35 * k, 100, f, {"p": 0.93, "second": 3} if k == 8 else {})
                   for k, f in enumerate(FACES[:9])])
    assert verdict(short, profile(HIGH), ZONES, ON).status == NO_ROLL


def test_more_than_three_doubtful_dice_hold_the_roll():
    faces = (5, 5, 5, 5, 5, 5, 1, 2, 3, 4)
    d = dice(*[(30 + 35 * k, 100, f, {"p": 0.93, "second": f % 4 + 1} if k >= 6 else {})
               for k, f in enumerate(faces)])
    assert verdict(d, profile(HIGH), ZONES, ON).status == REVIEW
    three = dice(*[(30 + 35 * k, 100, f, {"p": 0.93, "second": f % 4 + 1} if k >= 7 else {})
                   for k, f in enumerate(faces)])
    assert verdict(three, profile(HIGH), ZONES, ON).status == VALID


def _every_first_roll_wager(dice_count: int) -> tuple:
    """A table with, on each seat, a Pip Street Wager on one face and a Like Kind wager."""
    state = high_roll.new_table(HighRollOptions(dice=dice_count))
    counts = range(2, dice_count + 1)
    for seat in range(6):
        for w in (Wager.of(f"p{seat}", "pip_street", 1000, seat, face=seat + 1),
                  Wager.of(f"k{seat}", "like_kind", 1000, seat,
                           count=list(counts)[seat % len(counts)])):
            state = high_roll.place(state, w).state
    return high_roll.close_betting(state)


@settings(max_examples=300, deadline=None)
# Three 6s and two 1s: a third 1 ties the 6s and the ace outranks them (675a.2(d)).
@example(faces=[6, 6, 6, 1, 1, 2, 3, 4, 5, 2], doubt={9: {1}})
@given(faces=st.lists(st.integers(1, 6), min_size=10, max_size=10),
       doubt=st.dictionaries(st.integers(0, 9), st.sets(st.integers(1, 6), min_size=1,
                                                        max_size=3), max_size=3))
def test_a_standing_call_settles_every_wager_alike(faces, doubt):
    """Whatever the doubtful dice show, the engine settles a standing call the same way."""
    read = dict(enumerate(faces))
    options = {i: sorted(s | {faces[i]}) for i, s in doubt.items()}
    call = standing_call(read, options)
    if call is None:
        return
    state = _every_first_roll_wager(10)
    settled = high_roll.settle(state, tuple(faces))
    lines = [(ln.wager_id, ln.result, ln.paid) for ln in settled.lines]
    for combo in product(*options.values()):
        other = list(faces)
        for i, f in zip(options, combo, strict=True):
            other[i] = f
        again = high_roll.settle(state, tuple(other))
        assert [(ln.wager_id, ln.result, ln.paid) for ln in again.lines] == lines

