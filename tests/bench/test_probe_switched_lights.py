"""bench/probe_switched_lights.py: three lamps' shading gives a face's normal (issue 6).

The probe's answer (docs/verdicts.md, session 50) rests on these: the solve must return the
tilt of a Lambertian face whatever its colour, the face's brightness must be its body's, and
the extra renders must draw the very scene the generator draws, leaving the generator as it
was.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import probe_switched_lights as probe

import dicecall.datasets.painter as painter
import dicecall.datasets.scene as scene


def _tipped(deg: float, azimuth_deg: float) -> np.ndarray:
    t, a = np.radians(deg), np.radians(azimuth_deg)
    return np.array([np.sin(t) * np.cos(a), np.sin(t) * np.sin(a), np.cos(t)])


@pytest.mark.parametrize("elevation", [30.0, 45.0, 60.0])
def test_the_lamps_are_unit_vectors_at_their_elevation_a_third_of_a_turn_apart(elevation):
    d = probe.lamps(elevation)
    assert np.linalg.norm(d, axis=1) == pytest.approx(np.ones(3))
    assert np.degrees(np.arcsin(d[:, 2])) == pytest.approx(np.full(3, elevation))
    az = np.sort(np.degrees(np.arctan2(d[:, 1], d[:, 0])) % 360)
    assert np.diff(az) == pytest.approx([120.0, 120.0])


@pytest.mark.parametrize("tilt", [0.0, 3.0, 8.0, 20.0])
@pytest.mark.parametrize("azimuth", [0.0, 77.0, 200.0])
def test_the_solve_gives_the_tilt_of_a_face_whatever_its_colour(tilt, azimuth):
    dirs = probe.lamps(45.0)
    n = _tipped(tilt, azimuth)
    for albedo, ambient in ((40.0, 12.0), (230.0, 90.0)):  # a black die and a white one
        means = np.array([ambient, *(ambient + albedo * np.clip(dirs @ n, 0, None))])
        assert probe.lamp_tilt(means, dirs) == pytest.approx(tilt, abs=1e-6)


def test_a_face_that_no_lamp_lights_has_no_reading():
    assert np.isnan(probe.lamp_tilt(np.array([50.0, 50.0, 50.0, 50.0]), probe.lamps(45.0)))


def test_the_face_brightness_is_its_body_not_its_pips():
    """A 40 px face of 100, then 200, with four dark pips reads 3 x its body; a face drawn
    on under 4 pixels reads nothing."""
    frames = []
    for body in (100, 200):
        f = np.full((80, 80, 3), 10, np.uint8)
        f[20:60, 20:60] = body
        for y, x in ((28, 28), (28, 52), (52, 28), (52, 52)):
            f[y - 4:y + 4, x - 4:x + 4] = 0
        frames.append(f)
    corners = np.array([[20, 20], [60, 20], [60, 60], [20, 60]], np.float32)
    assert probe.face_means(frames, corners) == pytest.approx([300.0, 600.0])
    tiny = np.array([[40, 40], [40.2, 40], [40.2, 40.2], [40, 40.2]], np.float32)
    assert np.isnan(probe.face_means(frames, tiny)).all()


def test_the_passes_draw_the_generators_scene_and_leave_the_generator_as_it_was():
    from dicecall.datasets.physics import Sim

    before = (scene.sample_light, scene.finish, painter.shade_colour)
    sim = Sim()
    seed = scene.scene_seed(5599, 0)
    frames, rec = probe.render_passes(sim, seed, 320, 240, 0.0, 45.0, polarised=True)
    assert (scene.sample_light, scene.finish, painter.shade_colour) == before
    _, own = scene.make_scene(sim, "shaker", seed, 320, 240, force_probability={"lean": 0.0})
    assert rec.dice == own.dice  # the same throw, the same labels
    assert len(frames) == 5 and all(f.shape == (240, 320, 3) for f in frames)
    # every lamp adds light to the ambient frame, and each lights the floor its own way
    lit = [float(f.astype(np.float32).mean()) for f in frames[1:]]
    assert min(lit[1:]) > lit[0] + 1
    assert np.abs(frames[2].astype(int) - frames[3].astype(int)).mean() > 1


def test_flat_matte_dice_read_near_vertical_through_crossed_polarisers():
    """The probe's premise on the generator's own scenes: a flat opaque die's three lamp
    responses give a normal within a few degrees of the vertical (seed 5599: 3 scenes)."""
    from dicecall.datasets.physics import Sim
    from dicecall.datasets.styles import STYLES

    sim, dirs, angles = Sim(), probe.lamps(45.0), []
    for i in range(3):
        frames, rec = probe.render_passes(sim, scene.scene_seed(5599, i), 640, 480, 0.0, 45.0,
                                          polarised=True)
        for d in rec.dice:
            if (d.tilt_deg < 1.0 and d.visible >= 0.9 and not d.stacked
                    and STYLES[d.style].translucency == 0):
                angles.append(probe.lamp_tilt(probe.face_means(frames[1:], d.top_corners), dirs))
    assert angles, "no flat opaque die in the three scenes"
    assert np.nanmedian(angles) < 3.0


def _row(scene_i, tilt_deg, runtime, lamps_deg):
    return {"scene": scene_i, "tilt_deg": tilt_deg, "cocked": tilt_deg > 5, "stacked": False,
            "in_zone": True, "visible": 1.0, "style": "white-16", "runtime": runtime,
            "lamps": lamps_deg}


def test_a_roll_is_held_when_any_die_reads_at_the_line_that_catches_every_shallow_lean(capsys):
    """Scene 0 leans a die 8 degrees (runtime 0.30, lamps 7.5: the lines); scene 1's flat
    dice read under both lines; scene 2's flat die reads over the runtime's line only."""
    rows = [_row(0, 8.0, 0.30, 7.5), _row(0, 0.0, 0.01, 0.2),
            _row(1, 0.0, 0.05, 0.5), _row(1, 0.0, 0.10, 1.0),
            _row(2, 0.0, 0.40, 0.3), _row(2, 0.0, 0.02, 0.4)]
    probe.report_rolls(rows)
    out = capsys.readouterr().out
    assert "rolls: good 2, with a cocked die 1" in out
    runtime, lamps = [line for line in out.splitlines() if "no die over the line" in line][:2]
    assert "no die over the line 50.0 %" in runtime and "cocked die held 100.0 %" in runtime
    assert "no die over the line 100.0 %" in lamps and "cocked die held 100.0 %" in lamps
