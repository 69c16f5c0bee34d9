"""The view's lean the reader's flags get from a calibrated camera (`preprocess.FloorView`):
where a flat die's top shows against its foot, measured on the generator's own cameras."""

from __future__ import annotations

import numpy as np
import pytest

from dicecall.datasets.camera import sample_camera
from dicecall.vision.preprocess import LEAN_UNIT, FloorView, die_geometry

DIE_MM = 4.0  # small: the lean is first order (off by about lean^2 / 2 at the frame edge)


def _projected_lean(cam, at_mm: np.ndarray) -> np.ndarray:
    """(top - foot) of an upright segment at `at_mm`, in units of a level one's length."""
    x, y = at_mm
    foot, top = cam.project(np.array([[x, y, 0.0], [x, y, DIE_MM]]))
    a, b = cam.project(np.array([[x - DIE_MM / 2, y, DIE_MM / 2], [x + DIE_MM / 2, y, DIE_MM / 2]]))
    return (top - foot) / np.linalg.norm(b - a)


@pytest.mark.parametrize("seed", range(6))
def test_lean_is_where_a_flat_die_top_shows_for_any_generated_camera(seed: int) -> None:
    rng = np.random.default_rng(seed)
    cam, _ = sample_camera(rng, np.zeros(3), 0.0, 150.0, 19.0, 640, 480)
    view = FloorView.of(cam.k, cam.dist, cam.rot[:, 2], (640, 480))  # as scene.py records it
    for at in rng.uniform(-70, 70, (8, 2)):
        centre = cam.project(np.array([[*at, DIE_MM / 2]]))
        got = view.lean(centre, (480, 640, 3))[0]
        np.testing.assert_allclose(got, _projected_lean(cam, at), rtol=0.03, atol=2e-3)


def test_without_a_view_the_geometry_is_that_of_a_straight_typical_camera() -> None:
    # Readers trained before session 13 learnt the uncalibrated geometry: it must not move.
    w, h = 640, 480
    f = max(w, h) / LEAN_UNIT
    typical = FloorView.of([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]], [0] * 5, [0, 0, -1], (w, h))
    c = np.random.default_rng(1).uniform([0, 0], [w, h], (20, 2))
    s = np.full(20, 30.0)
    np.testing.assert_allclose(die_geometry(c, s, (h, w, 3), typical), die_geometry(c, s, (h, w)),
                               atol=1e-6)


def test_a_frame_of_another_size_scales_the_intrinsics() -> None:
    rng = np.random.default_rng(4)
    cam, _ = sample_camera(rng, np.zeros(3), 0.0, 150.0, 19.0, 640, 480)
    view = FloorView.of(cam.k, cam.dist, cam.rot[:, 2], (640, 480))
    c = np.array([[100.0, 50.0], [600.0, 420.0]])
    np.testing.assert_allclose(view.lean(c * 2, (960, 1280)), view.lean(c, (480, 640)), atol=1e-3)


def test_a_tilted_camera_leans_flat_dice_under_the_centre() -> None:
    w, h, f = 640, 480, 500.0
    k = [[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]]
    tilt = np.radians(8)
    view = FloorView.of(k, [0] * 5, [np.sin(tilt), 0, -np.cos(tilt)], (w, h))
    lean = view.lean(np.array([[w / 2, h / 2]]), (h, w))[0]
    np.testing.assert_allclose(lean, [np.sin(tilt), 0], atol=1e-9)
    assert np.all(die_geometry(np.array([[w / 2, h / 2]]), np.ones(1), (h, w))[0, :2] == 0)


@pytest.mark.parametrize("k, dist, up, size", [
    (np.eye(2), [0] * 5, [0, 0, -1], (640, 480)),
    (np.eye(3), [0, 0], [0, 0, -1], (640, 480)),
    (np.eye(3), [0] * 5, [0, 0, 0], (640, 480)),
    (np.eye(3), [0] * 5, [0, 0, np.nan], (640, 480)),
    (np.eye(3), [0] * 5, [0, 0, -1], (640,)),
])
def test_a_malformed_view_is_refused(k, dist, up, size) -> None:
    with pytest.raises(ValueError, match="FloorView"):
        FloorView.of(k, dist, up, size)
