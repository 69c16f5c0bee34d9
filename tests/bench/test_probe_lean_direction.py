"""bench/probe_lean_direction.py: the labels and the line it judges a raised side by (issue 6).

The probe's answer (models/reader.md, session 39) rests on these: the raised side must point
where the die is propped, and a support must be found where the verdict would find one.
"""

import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from dicecall.datasets.camera import Camera

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import probe_lean_direction as probe

# Straight down from 500 mm: table x is image x, table y is image -y.
CAMERA = Camera(k=np.array([[800.0, 0, 320], [0, 800.0, 240], [0, 0, 1]]), dist=np.zeros(5),
                rot=np.diag([1.0, -1.0, -1.0]), centre_mm=np.array([0.0, 0.0, 500.0]),
                width=640, height=480)


def _die(quat, at=(0.0, 0.0, 8.0)):
    return SimpleNamespace(quat_xyzw=list(quat), position_mm=list(at), size_mm=16.0)


def _about(axis: str, deg: float) -> list[float]:
    h = np.radians(deg) / 2
    q = [0.0, 0.0, 0.0, np.cos(h)]
    q["xyz".index(axis)] = np.sin(h)
    return q


def test_a_die_tipped_towards_plus_x_is_raised_on_its_minus_x_side():
    """Turned about +y, the top face's normal leans to +x: the -x edge is the one lifted."""
    d = probe.lean_direction(CAMERA, _die(_about("y", 8.0)))
    assert d == pytest.approx([-1.0, 0.0], abs=1e-6)


def test_the_raised_side_follows_the_camera_not_the_table():
    """Lifted on its +y side (table), which the straight-down camera shows as image -y."""
    d = probe.lean_direction(CAMERA, _die(_about("x", 8.0)))
    assert d == pytest.approx([0.0, -1.0], abs=1e-6)


def test_a_flat_die_on_any_face_has_no_raised_side():
    for q in ([0, 0, 0, 1], _about("x", 90.0), _about("y", 180.0), _about("z", 37.0)):
        assert np.isnan(probe.lean_direction(CAMERA, _die(q))).all()


def test_supports_are_the_other_die_and_the_wall_within_reach():
    zone = np.array([[0.0, 0.0], [200.0, 0.0], [200.0, 200.0], [0.0, 200.0]])
    c = np.array([[20.0, 100.0], [50.0, 100.0], [100.0, 150.0]])
    s = np.array([30.0, 30.0, 30.0])
    got = probe.supports(c, s, zone)
    # Die 0: die 1 at 1.0 side (+x), the wall at 20 px (-x).
    assert sorted(map(tuple, np.round(got[0], 6))) == [(-1.0, 0.0), (1.0, 0.0)]
    # Die 1: die 0 (-x); the wall 50 px off, beyond 1.3 x 30 = 39 px.
    assert [tuple(v) for v in np.round(got[1], 6)] == [(-1.0, 0.0)]
    # Die 2: nothing within 39 px.
    assert got[2] == []


def test_near_support_is_infinite_without_a_support_and_the_nearest_angle_with():
    sup = np.full((2, 3, 2), np.nan)
    sup[0, 0] = [1.0, 0.0]
    sup[0, 1] = [0.0, 1.0]
    pred = np.array([[np.cos(np.radians(80)), np.sin(np.radians(80))], [1.0, 0.0]])
    got = probe.near_support(pred, sup)
    assert got[0] == pytest.approx(10.0)
    assert np.isinf(got[1])


def test_the_line_is_the_highest_that_holds_the_recall_asked():
    score = np.array([0.9, 0.8, 0.7, 0.6, 0.1])
    ok = np.array([True, True, False, True, True])
    assert probe._line(score, ok, 0.6) == 0.6  # 3 of 5 held needs 0.9, 0.8 and 0.6
    assert probe._line(score, ok, 0.8) == 0.1
    assert probe._line(score, ok, 1.0) == -np.inf  # one die is never held by `ok`
