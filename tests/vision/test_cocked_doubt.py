"""Props & Hops: a weak tilt flag holds the roll for a person instead of calling it off
(`VerdictConfig.no_roll_sure_tilt`, docs/verdicts.md rule 43). A die that does not lie flat on
the shaker's bottom is a no roll (668a.3(h)); the camera's line for it is low, so that no
shallow lean is missed, and most flat dice cross it too. A flag under the sure line is
`cocked_doubt`, needs review, citing 668a.3(h); from it up, or with the die near an edge, the
roll is a no roll as before. Never a valid call either way."""

from __future__ import annotations

import pytest

from dicecall.vision.profiles import profile
from dicecall.vision.verdict import NO_ROLL, REVIEW, VALID, VerdictConfig, verdict

from .test_verdict import CRAPS, HIGH, PROPS, TWO, ZONES, dice

SURE = VerdictConfig(no_roll_sure_tilt=0.5)


def _codes(v) -> dict[str, tuple[str, str]]:
    return {r.code: (r.status, r.section) for r in v.reasons}


@pytest.mark.parametrize("tilt, status, code", [
    (0.034, VALID, None),            # under the no-roll line (0.035): flat
    (0.035, REVIEW, "cocked_doubt"),  # on the no-roll line: a sign, too weak to call
    (0.4999, REVIEW, "cocked_doubt"),
    (0.5, NO_ROLL, "cocked"),         # the sure line: a no roll, 668a.3(h)
    (0.95, NO_ROLL, "cocked"),
])
def test_the_sure_line_splits_review_from_no_roll_668a_3_h(tilt, status, code):
    v = verdict(dice(TWO[0], (200, 120, 5, {"tilt": tilt})), profile(PROPS), ZONES, SURE)
    assert v.status == status
    if code:
        assert _codes(v)[code] == (status, "668a.3(h)")
        assert next(r for r in v.reasons if r.code == code).dice == (1,)  # the leaning die


def test_a_die_on_an_edge_is_a_no_roll_whatever_its_flag_668a_3_h():
    """The up margin is a second sign of a lean: under rule 72's line (30, session 65) it is
    a no roll; from there to the review line (40) a weak flag holds the roll."""
    v = verdict(dice(TWO[0], (200, 120, 5, {"tilt": 0.05, "margin": 29.0})), profile(PROPS),
                ZONES, SURE)
    assert v.status == NO_ROLL and "cocked" in _codes(v)
    v = verdict(dice(TWO[0], (200, 120, 5, {"tilt": 0.05, "margin": 35.0})), profile(PROPS),
                ZONES, SURE)
    assert v.status == REVIEW and "cocked_doubt" in _codes(v)
    v = verdict(dice(TWO[0], (200, 120, 5, {"tilt": 0.05, "margin": 44.0})), profile(PROPS),
                ZONES, SURE)
    assert v.status == REVIEW and "cocked_doubt" in _codes(v)


def test_off_every_flag_is_a_no_roll():
    v = verdict(dice(TWO[0], (200, 120, 5, {"tilt": 0.04})), profile(PROPS), ZONES,
                VerdictConfig(no_roll_sure_tilt=0.0))
    assert v.status == NO_ROLL and "cocked" in _codes(v)


def test_a_doubt_never_lifts_another_no_roll_668a_3_h():
    """A weak flag on one die and a die on the other: the die on die still calls it off."""
    v = verdict(dice((100, 100, 3, {"tilt": 0.1}), (110, 105, 6, {"stacked": 0.8})),
                profile(PROPS), ZONES, SURE)
    assert v.status == NO_ROLL and "die_on_die" in _codes(v)


@pytest.mark.parametrize("game, specs", [
    (CRAPS, [TWO[0], (200, 120, 5, {"tilt": 0.1})]),
    (HIGH, [(30 * k + 10, 50, 2, {"tilt": 0.1} if k == 0 else {}) for k in range(10)]),
])
def test_where_a_cocked_die_counts_the_sure_line_changes_nothing_623a_9_b_675a_4_c(game,
                                                                                    specs):
    base = verdict(dice(*specs), profile(game), ZONES)
    v = verdict(dice(*specs), profile(game), ZONES, SURE)
    assert (v.status, _codes(v)) == (base.status, _codes(base))


VOID_BY_FACES = [TWO[0], (200, 120, 5, {"tilt": 0.9, "p": 0.55, "second": 3})]
VOID_BY_MARGIN = [TWO[0], (200, 120, 5, {"tilt": 0.9, "margin": 4.0})]


@pytest.mark.parametrize("game", [CRAPS, HIGH])
def test_a_void_read_from_the_faces_alone_can_be_held_for_review(game):
    """Rule 44 (not met on FRESH80), judged again as rule 68 (met on FRESH97): with
    `void_faces_review` a tilted die whose two best faces read alike holds the roll for
    review (`void_doubt`, the dispute section); one whose up margin says it is on an edge is
    a void as before (623a.9(b), 675a.4(c))."""
    rest = [] if game == CRAPS else [(40 * k + 20, 200, 2) for k in range(8)]
    on = VerdictConfig(void_faces_review=True)
    off = verdict(dice(*VOID_BY_FACES, *rest), profile(game), ZONES,
                  VerdictConfig(void_faces_review=False, void_faces_margin=0.0))
    assert off.status == NO_ROLL and "cocked_void" in _codes(off)
    v = verdict(dice(*VOID_BY_FACES, *rest), profile(game), ZONES, on)
    assert v.status == REVIEW
    assert _codes(v)["void_doubt"] == (REVIEW, profile(game).sections["dispute"])
    v = verdict(dice(*VOID_BY_MARGIN, *rest), profile(game), ZONES, on)
    assert v.status == NO_ROLL and "cocked_void" in _codes(v)


def test_the_void_switch_and_the_margin_line_are_on_by_default():
    assert VerdictConfig().void_faces_review  # rule 68, met on FRESH97
    assert VerdictConfig().void_faces_margin == 40.0  # rule 47, met on FRESH83
    v = verdict(dice(*VOID_BY_FACES), profile(CRAPS), ZONES)
    assert v.status == REVIEW and "void_doubt" in _codes(v)


@pytest.mark.parametrize("game", [CRAPS, HIGH])
@pytest.mark.parametrize("margin, status, code", [
    (45.0, REVIEW, "void_doubt"),     # the margin reads the die flat: hard to read, not void
    (40.0, REVIEW, "void_doubt"),     # on the line
    (39.9, NO_ROLL, "cocked_void"),   # near an edge: the faces' void stands, 623a.9(b)
    (4.0, NO_ROLL, "cocked_void"),    # on an edge: a void from the margin itself
    (float("nan"), NO_ROLL, "cocked_void"),  # a reader without the margin: as before
])
def test_a_face_only_void_the_margin_reads_off_any_edge_is_a_review(game, margin, status, code):
    """Rule 47 (`void_faces_margin`): the review of rule 44 only where the up margin itself
    reads the die off any edge (the dispute section, 623a.9(c), 675a.4(d))."""
    rest = [] if game == CRAPS else [(40 * k + 20, 200, 2) for k in range(8)]
    die = (200, 120, 5, {"tilt": 0.9, "p": 0.55, "second": 3, "margin": margin})
    v = verdict(dice(TWO[0], die, *rest), profile(game), ZONES,
                VerdictConfig(void_faces_review=False, void_faces_margin=40.0))
    assert v.status == status
    sec = profile(game).sections["dispute" if status == REVIEW else "void"]
    assert _codes(v)[code] == (status, sec)
    off = verdict(dice(TWO[0], die, *rest), profile(game), ZONES,
                  VerdictConfig(void_faces_review=False, void_faces_margin=0.0))
    assert off.status == NO_ROLL and "cocked_void" in _codes(off)


def test_the_margin_line_never_lifts_a_props_and_hops_no_roll():
    """In Props & Hops a cocked die is a no roll whatever its faces (668a.3(h))."""
    die = (200, 120, 5, {"tilt": 0.9, "p": 0.55, "second": 3, "margin": 45.0})
    v = verdict(dice(TWO[0], die), profile(PROPS), ZONES, VerdictConfig(void_faces_margin=40.0))
    assert v.status == NO_ROLL and "cocked" in _codes(v)
