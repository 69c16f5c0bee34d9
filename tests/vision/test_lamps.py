"""The lamps' tilt (`vision.lamps`) and what the Props & Hops verdict makes of it.

A die's top face lit by one lamp at a time, less the frame with every lamp off, gives
rho x (n . l_k); three lamps give the face's normal n whatever its colour rho. The verdict
takes that angle as a second reading of the tilt where a cocked die is a no roll (668a.3(h)):
it frees a weak flag the lamps read level, holds a die they read tilted that the head reads
flat, and calls no roll on its own never (`VerdictConfig.lamp_cocked_deg`)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from dicecall.vision.dice import Dice
from dicecall.vision.lamps import CLIPPED, LampRig, lamp_tilt
from dicecall.vision.profiles import profile
from dicecall.vision.verdict import NO_ROLL, REVIEW, VALID, VerdictConfig, verdict

from .test_verdict import CRAPS, HIGH, PROPS, TWO, WALLED, ZONES, dice

RIG = LampRig()
BOX = np.array([[40.0, 30.0, 80.0, 70.0]], np.float32)  # a 40 px die, centre (60, 50)


def lit_frames(normal, albedo=(120.0, 140.0, 200.0), ambient=0.15, gain=0.45, rig=RIG,
               pips=True) -> list[np.ndarray]:
    """Four BGR frames of one flat-shaded face under `rig`: every lamp off, then each lamp
    alone; dark pips on a fifth of the face, a felt around it that no lamp changes."""
    n = np.asarray(normal, float) / np.linalg.norm(normal)
    albedo = np.asarray(albedo)
    frames = []
    for k in range(4):
        light = ambient + (gain * max(0.0, float(n @ rig.directions()[k - 1])) if k else 0.0)
        f = np.full((100, 120, 3), 60, np.uint8)
        f[30:71, 40:81] = np.clip(albedo * light, 0, 255).astype(np.uint8)
        if pips:
            f[45:55, 45:53] = np.clip(albedo * light * 0.1, 0, 255).astype(np.uint8)
        frames.append(f)
    return frames


def tilted(deg: float, azimuth: float = 30.0) -> np.ndarray:
    t, a = np.radians(deg), np.radians(azimuth)
    return np.array([np.sin(t) * np.cos(a), np.sin(t) * np.sin(a), np.cos(t)])


@settings(max_examples=40, deadline=None)
@given(deg=st.floats(0, 30), azimuth=st.floats(0, 360), grey=st.floats(0.6, 1.0))
def test_the_face_s_angle_is_read_whatever_its_colour(deg, azimuth, grey):
    """Degrees off level to within the 8-bit frames' rounding, for any lean and any die
    colour bright enough to shade (its colour cancels)."""
    frames = lit_frames(tilted(deg, azimuth), albedo=np.array([120.0, 140.0, 230.0]) * grey)
    assert lamp_tilt(frames, BOX, RIG)[0] == pytest.approx(deg, abs=1.0)


def test_a_level_face_reads_near_zero_and_a_5_degree_lean_near_5():
    level, lean = (lamp_tilt(lit_frames(tilted(d)), BOX, RIG)[0] for d in (0.0, 5.0))
    assert level < 1.0 and 4.0 < lean < 6.0


@pytest.mark.parametrize("case", ["clipped", "dark", "tiny"])
def test_a_face_the_lamps_cannot_shade_gives_no_reading(case):
    """NaN, which the verdict reads as no lamps: a clipped channel has lost its shading, a
    black die under dim lamps is noise, a box of a few pixels holds no face."""
    box = BOX
    if case == "clipped":
        frames = lit_frames(tilted(8.0), albedo=(120.0, 140.0, 4 * CLIPPED))
    elif case == "dark":
        frames = lit_frames(tilted(8.0), albedo=(20.0, 20.0, 20.0))
    else:
        frames, box = lit_frames(tilted(8.0)), np.array([[60.0, 50.0, 62.0, 52.0]], np.float32)
    assert np.isnan(lamp_tilt(frames, box, RIG)[0])


def test_frames_that_are_not_the_four_lamp_frames_are_refused():
    frames = lit_frames(tilted(0.0))
    with pytest.raises(ValueError, match="expected 4 frames"):
        lamp_tilt(frames[:3], BOX, RIG)
    with pytest.raises(ValueError, match="differ in size"):
        lamp_tilt([*frames[:3], frames[3][:50]], BOX, RIG)


def test_no_dice_no_readings():
    assert lamp_tilt(lit_frames(tilted(0.0)), np.zeros((0, 4), np.float32), RIG).shape == (0,)


def test_a_rig_is_strict_and_must_span_three_directions():
    assert LampRig.model_validate({"azimuth_deg": [0, 120, 240]}).azimuth_deg == (0, 120, 240)
    with pytest.raises(ValidationError):
        LampRig.model_validate({"azimuth_deg": ["0", 120, 240]})
    with pytest.raises(ValidationError):
        LampRig.model_validate({"lamps": 3})
    with pytest.raises(ValueError, match="do not span"):
        LampRig(azimuth_deg=(0.0, 0.0, 0.0)).directions()


def test_dice_carry_no_lamp_reading_unless_given():
    d = dice(*TWO)
    assert d.lamp_tilt.shape == (2,) and np.isnan(d.lamp_tilt).all()
    with pytest.raises(ValueError, match="lamp_tilt"):
        dataclasses.replace(d, lamp_tilt=np.zeros(3))
    assert len(Dice.concat([d, d]).lamp_tilt) == 4


LINE = VerdictConfig(lamp_cocked_deg=4.0)


def _with_lamps(specs, degrees, game=PROPS, cfg=LINE):
    d = dataclasses.replace(dice(*specs), lamp_tilt=np.asarray(degrees, np.float32))
    return verdict(d, profile(game), ZONES, cfg)


def _codes(v) -> dict[str, tuple[str, str]]:
    return {r.code: (r.status, r.section) for r in v.reasons}


@pytest.mark.parametrize("tilt, degrees, status, code", [
    (0.2, 1.0, VALID, "lamps_level"),      # a weak flag the lamps read level: flat
    (0.2, 3.99, VALID, "lamps_level"),
    (0.2, 4.0, REVIEW, "cocked_doubt"),    # both see a lean, the head unsure: a person
    (0.2, np.nan, REVIEW, "cocked_doubt"),  # no lamp reading: as without lamps
    (0.0, 6.0, REVIEW, "lamps_tilted"),    # the head reads flat, the lamps tilted
    (0.0, 1.0, VALID, None),
    (0.7, 1.0, NO_ROLL, "cocked"),         # the head's sure flag stands
])
def test_props_and_hops_with_lamps_668a_3_h(tilt, degrees, status, code):
    v = _with_lamps([TWO[0], (200, 120, 5, {"tilt": tilt})], [0.5, degrees])
    assert v.status == status
    if code:
        assert _codes(v)[code] == (status, "668a.3(h)")
        assert next(r for r in v.reasons if r.code == code).dice == (1,)


def test_the_lamps_never_lift_a_die_near_an_edge_668a_3_h():
    v = _with_lamps([TWO[0], (200, 120, 5, {"tilt": 0.1, "margin": 20.0})], [0.5, 0.5])
    assert v.status == NO_ROLL and "cocked" in _codes(v)


def test_a_lean_the_lamps_see_is_not_freed_for_want_of_support_668a_3_h():
    """Far from the wall and the other die a weak flag is read as resting on the floor
    (`flag_unsupported`); the lamps reading it tilted keep it held."""
    zones = WALLED
    specs = [(60, 60, 3), (300, 220, 5, {"tilt": 0.1})]
    d = dice(*specs)
    base = verdict(d, profile(PROPS), zones, LINE)
    assert base.status == VALID and "flag_unsupported" in _codes(base)
    v = verdict(dataclasses.replace(d, lamp_tilt=np.array([0.5, 9.0], np.float32)),
                profile(PROPS), zones, LINE)
    assert v.status == REVIEW and "cocked_doubt" in _codes(v)


def test_off_the_lamps_change_nothing():
    specs = [TWO[0], (200, 120, 5, {"tilt": 0.2})]
    v = _with_lamps(specs, [0.5, 1.0], cfg=VerdictConfig(lamp_cocked_deg=0.0))
    assert v.status == REVIEW and "cocked_doubt" in _codes(v)


def test_the_line_is_rule_65_s_and_without_lamps_nothing_moves():
    """4 degrees (docs/verdicts.md, rule 65); a table without lamps reads NaN, which is
    called as before the lamps existed."""
    assert VerdictConfig().lamp_cocked_deg == 4.0
    specs = [TWO[0], (200, 120, 5, {"tilt": 0.2})]
    v = verdict(dice(*specs), profile(PROPS), ZONES)
    assert v.status == REVIEW and "cocked_doubt" in _codes(v)
    assert _with_lamps(specs, [0.5, 1.0], cfg=VerdictConfig()).status == VALID


@pytest.mark.parametrize("game, specs", [
    (CRAPS, [TWO[0], (200, 120, 5, {"tilt": 0.9})]),
    (HIGH, [(30 * k + 10, 50, 2, {"tilt": 0.9} if k == 0 else {}) for k in range(10)]),
])
def test_where_a_cocked_die_counts_the_lamps_change_nothing_623a_9_b_675a_4_c(game, specs):
    base = verdict(dice(*specs), profile(game), ZONES, LINE)
    for deg in (0.5, 20.0):
        v = _with_lamps(specs, [deg] * len(specs), game)
        assert (v.status, _codes(v)) == (base.status, _codes(base))


def test_the_annotated_evidence_shows_the_lamps_reading():
    """Surveillance sees what the lamps read next to each die's face: the same call drawn
    with and without the readings differs only there."""
    from dicecall.vision.evidence import annotate

    frame = np.full((300, 400, 3), 90, np.uint8)
    lit = dataclasses.replace(dice(TWO[0], (200, 120, 5, {"tilt": 0.2})),
                              lamp_tilt=np.array([0.4, 2.5], np.float32))
    v = verdict(lit, profile(PROPS), ZONES, LINE)
    bare = dataclasses.replace(v, dice=dataclasses.replace(lit, lamp_tilt=None))
    a, b = annotate(frame, v), annotate(frame, bare)
    differs = np.argwhere((a != b).any(2))
    assert len(differs)
    # both labels sit just above their boxes (tops at y 90 and 110)
    assert differs[:, 0].min() >= 70 and differs[:, 0].max() < 112


def floor_and_die(normal, gains=(1.0, 1.0, 1.0)) -> list[np.ndarray]:
    """`lit_frames` with lamps of unequal brightness, and a level floor patch in rows 0-19
    (a grey felt) that every lamp lights."""
    frames = lit_frames(normal)
    dirs = RIG.directions()
    out = []
    for k, f in enumerate(frames):
        g = gains[k - 1] if k else 0.0
        f = f.copy()
        die = f[30:71, 40:81].astype(float)
        if k:  # the die's own shading scaled by its lamp's brightness
            base = lit_frames(normal)[0][30:71, 40:81].astype(float)
            f[30:71, 40:81] = np.clip(base + (die - base) * g, 0, 255).astype(np.uint8)
        f[0:20] = np.clip(np.array([110.0, 120.0, 130.0]) * (0.15 + 0.45 * g * dirs[k - 1, 2]
                                                             * bool(k)), 0, 255)
        out.append(f)
    return out


def test_unequal_lamps_lean_a_level_face_and_their_gains_measured_on_the_floor_set_it_right():
    from dicecall.vision.lamps import fit_gains

    frames = floor_and_die(tilted(0.0), gains=(1.25, 0.9, 0.85))
    assert lamp_tilt(frames, BOX, RIG)[0] > 3.0  # read as a lean that is not there
    gains = fit_gains(frames, (0, 0, 120, 20), RIG)
    assert gains == pytest.approx((1.25 / 1.0, 0.9 / 1.0, 0.85 / 1.0), rel=0.03)
    fixed = RIG.model_copy(update={"gains": gains})
    assert lamp_tilt(frames, BOX, fixed)[0] < 1.0
    lean = floor_and_die(tilted(8.0, 200.0), gains=(1.25, 0.9, 0.85))
    assert lamp_tilt(lean, BOX, fixed)[0] == pytest.approx(8.0, abs=1.0)


@pytest.mark.parametrize("region, error", [
    ((100, 0, 40, 20), "not a patch inside"),
    ((0, 0, 2, 20), "not a patch inside"),
    ((0, 50, 30, 10), "min_signal"),   # the unlit felt beside the die
])
def test_gains_need_a_lit_flat_patch_inside_the_frames(region, error):
    from dicecall.vision.lamps import fit_gains

    with pytest.raises(ValueError, match=error):
        fit_gains(floor_and_die(tilted(0.0)), region, RIG)


def test_gains_are_bounded():
    with pytest.raises(ValidationError, match="gain"):
        LampRig(gains=(1.0, 0.0, 1.0))
