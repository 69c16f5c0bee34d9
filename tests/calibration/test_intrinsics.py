"""Intrinsics recovered from rendered boards with a known camera, and clear errors."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dicecall.calibration import CalibrationError
from dicecall.calibration.camera_model import CameraIntrinsics
from dicecall.calibration.intrinsics import calibrate
from dicecall.calibration.targets import BoardSpec

from .conftest import DIST, SIZE, K


def _distortion_gap(cam: CameraIntrinsics, margin: float = 0.15) -> float:
    """Largest difference, px, between the true and the recovered lens models over the
    frame minus a margin (the views cover it; the extreme corners are extrapolation)."""
    w, h = SIZE
    u, v = np.meshgrid(np.linspace(margin * w, (1 - margin) * w, 15),
                       np.linspace(margin * h, (1 - margin) * h, 15))
    pix = np.stack([u.ravel(), v.ravel()], 1)
    gaps = []
    for kk, dd in ((K, DIST), (cam.k_array, cam.dist_array)):
        ray = np.column_stack([(pix - kk[:2, 2]) / [kk[0, 0], kk[1, 1]], np.ones(len(pix))])
        gaps.append(cv2.projectPoints(ray, np.zeros(3), np.zeros(3), kk, dd)[0].reshape(-1, 2)
                    - pix)
    return float(np.abs(gaps[0] - gaps[1]).max())


@pytest.mark.parametrize("fixture", ["charuco_views", "checker_views"])
def test_recovers_the_true_camera(fixture, request):
    spec, views = request.getfixturevalue(fixture)
    cam, per_view = calibrate(views, spec, "test", min_views=6)
    k = cam.k_array
    assert k[0, 0] == pytest.approx(K[0, 0], rel=0.01)  # focal length within 1 %
    assert k[1, 1] == pytest.approx(K[1, 1], rel=0.01)
    assert abs(k[0, 2] - K[0, 2]) < 2 and abs(k[1, 2] - K[1, 2]) < 2  # principal point, px
    assert _distortion_gap(cam) < 1.0  # lens model within 1 px over the covered frame
    assert cam.rms_px < 0.3 and cam.views_used == 8 and len(per_view) == 8
    assert (cam.width, cam.height) == SIZE


def test_too_few_views_is_a_clear_error(charuco_views):
    spec, views = charuco_views
    with pytest.raises(CalibrationError, match="too few views: the board was found in 3 of 3"):
        calibrate(views[:3], spec, min_views=6)


def test_board_not_found(charuco_views):
    spec, views = charuco_views
    blank = [(f"n{i}.png", np.random.default_rng(i).integers(0, 255, (480, 640, 3), np.uint8))
             for i in range(3)]
    with pytest.raises(CalibrationError, match="board not found in any of 3 images"):
        calibrate(blank, spec)
    wrong = BoardSpec(kind="checkerboard", cols=7, rows=5, square_mm=25)  # not what is shown
    with pytest.raises(CalibrationError, match="board not found"):
        calibrate(views[:2], wrong)


def test_skipped_views_are_listed(charuco_views):
    spec, views = charuco_views
    blank = ("blank.png", np.full((480, 640, 3), 128, np.uint8))
    cam, _ = calibrate([*views[:6], blank], spec, min_views=6)
    assert cam.views_rejected == ["blank.png: board not found"]


def test_intrinsics_file_round_trip_and_scaling(tmp_path):
    cam = CameraIntrinsics(width=640, height=480, k=K.tolist(), dist=DIST.tolist(), rms_px=0.1,
                           views_used=8)
    cam.save(tmp_path / "c.json")
    back = CameraIntrinsics.load(tmp_path / "c.json")
    assert back == cam
    half = back.for_size(320, 240)
    assert half.k_array[0, 0] == pytest.approx(305.0) and half.k_array[1, 2] == 118.0
    with pytest.raises(CalibrationError, match="not a scaled"):
        back.for_size(320, 320)
    (tmp_path / "bad.json").write_text('{"width": 640}')
    with pytest.raises(CalibrationError, match="not a camera calibration"):
        CameraIntrinsics.load(tmp_path / "bad.json")
    with pytest.raises(ValueError, match="3x3"):
        CameraIntrinsics(width=640, height=480, k=[[1, 0], [0, 1]], dist=[0] * 5, rms_px=0,
                         views_used=1)
