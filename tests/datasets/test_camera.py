"""The render warp and the labels must use the same lens model, to a small fraction of a
pixel: a 3.5 px shift between them once taught the reader pip positions that were not there."""

import cv2
import numpy as np
import pytest

from dicecall.datasets.camera import Camera, look_down_rotation


@pytest.mark.parametrize("dist", [[0.0, 0, 0, 0, 0], [-0.12, 0.03, 0.001, -0.001, 0.0]])
def test_distortion_map_matches_exact_undistortion_at_every_pixel_sampled(dist):
    k = np.array([[520.0, 0, 318.5], [0, 520.0, 241.0], [0, 0, 1]])
    cam = Camera(k, np.array(dist), look_down_rotation(0.3, 0.1, 1.0), np.zeros(3), 640, 480)
    margin = 7
    mx, my = cam.distortion_maps(margin)
    assert mx.shape == my.shape == (480, 640)
    rng = np.random.default_rng(1)
    px = np.stack([rng.integers(0, 640, 2000), rng.integers(0, 480, 2000)], axis=1)
    exact = cv2.undistortPoints(px.astype(np.float32).reshape(-1, 1, 2), k, cam.dist)
    exact = exact.reshape(-1, 2) * [k[0, 0], k[1, 1]] + [k[0, 2], k[1, 2]] + margin
    got = np.stack([mx[px[:, 1], px[:, 0]], my[px[:, 1], px[:, 0]]], axis=1)
    assert np.abs(got - exact).max() < 0.05


def test_projected_point_lands_where_the_warp_draws_it():
    """A dot drawn on the undistorted canvas appears in the frame at `project` of its point."""
    k = np.array([[600.0, 0, 320], [0, 600.0, 240], [0, 0, 1]])
    cam = Camera(k, np.array([-0.1, 0.02, 0, 0, 0]), look_down_rotation(0.0, 0.0, 0.0),
                 np.array([0.0, 0.0, 500.0]), 640, 480)
    margin = 40
    pt = np.array([[61.0, -37.0, 0.0]])
    canvas = np.zeros((480 + 2 * margin, 640 + 2 * margin), np.float32)
    u, v = cam.project_pinhole(pt, margin)[0]
    cv2.circle(canvas, (round(u * 16), round(v * 16)), 4 * 16, 1.0, -1, shift=4)
    frame = cv2.remap(canvas, *cam.distortion_maps(margin), cv2.INTER_LINEAR)
    ys, xs = np.nonzero(frame > 0.5)
    centroid = np.array([xs.mean(), ys.mean()])
    assert np.abs(centroid - cam.project(pt)[0]).max() < 0.3
