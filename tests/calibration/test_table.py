"""Table plane from rendered ArUco markers and from given points; zones in mm -> pixels."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from dicecall.calibration import CalibrationError
from dicecall.calibration.camera_model import CameraIntrinsics
from dicecall.calibration.layout import MarkerLayout, ZonesFile, ZoneSpec
from dicecall.calibration.table import find_markers, fit_table, parse_points
from dicecall.calibration.zones import calibrate_zones, die_sizes, load_zones, to_zones
from dicecall.vision.profiles import inside

from .conftest import LAYOUT


def _intrinsics(k, dist) -> CameraIntrinsics:
    return CameraIntrinsics(width=960, height=720, k=k.tolist(), dist=list(dist), rms_px=0.1,
                            views_used=10)


def _true_px(pts_mm, z, r, t, k, dist) -> np.ndarray:
    obj = np.column_stack([pts_mm, np.full(len(pts_mm), z)]).astype(np.float64)
    return cv2.projectPoints(obj, r, t, k, dist)[0].reshape(-1, 2)


TEST_MM = np.random.default_rng(3).uniform([-550, -350], [550, 350], (200, 2))


def test_markers_give_the_true_plane_within_a_pixel(table_photo):
    img, r, t, k, dist = table_photo
    px, mm, ids = find_markers(img, LAYOUT)
    assert ids == [0, 1, 2, 3, 7] and px.shape == (20, 2)
    pose = fit_table(px, mm, _intrinsics(k, dist), "markers", ids)
    assert pose.rms_px < 0.5
    err = np.linalg.norm(pose.project(TEST_MM) - _true_px(TEST_MM, 0, r, t, k, dist), axis=1)
    assert err.max() < 1.0  # homography reprojection within 1 px over the whole table
    # Above the felt (a shaker floor 40 mm up) the pose still places points within 1 px.
    up = np.linalg.norm(pose.project(TEST_MM, 40.0) - _true_px(TEST_MM, 40, r, t, k, dist),
                        axis=1)
    assert up.max() < 1.0


def test_homography_without_intrinsics_on_an_undistorted_camera(table_photo):
    _, r, t, k, _ = table_photo
    mm = np.array([[-500, -300], [500, -300], [500, 300], [-500, 300], [0, 0], [200, -100]])
    px = _true_px(mm, 0, r, t, k, np.zeros(5))
    text = ";".join(f"{a:.3f},{b:.3f}={c},{d}" for (a, b), (c, d) in zip(px, mm, strict=True))
    got_px, got_mm = parse_points(text)
    pose = fit_table(got_px, got_mm, None, "points")
    err = np.linalg.norm(pose.project(TEST_MM) - _true_px(TEST_MM, 0, r, t, k, np.zeros(5)),
                         axis=1)
    assert err.max() < 0.2 and pose.rms_px < 0.01  # points typed to 0.001 px
    with pytest.raises(CalibrationError, match="needs the camera intrinsics"):
        pose.project(TEST_MM, 12.0)


@pytest.mark.parametrize("text, message", [
    ("0,0=0,0;10,0=10,0;20,0=20,0;30,0=30,0", "one line"),
    ("0,0=0,0;10,0=10,0;0,10=0,10", "at least 4 point pairs"),
    ("0,0=0,0;10,0=10,0;0,10=0,10;0,10=0,10", "the same"),
    ("0,0=0,0;10,0=10,0;0,10=0,10;5,5=5", "bad point"),
    ("0,0=0,0;100,0=10,0;0,100=0,10;100,100=10,10;50,50=5,5;1,1=2,2;3,3=4,4", None),
])
def test_bad_point_sets_are_refused(text, message):
    if message is None:  # the good set: no error
        px, mm = parse_points(text)
        assert fit_table(px[:5], mm[:5], None, "points").rms_px < 1e-6
        return
    with pytest.raises(CalibrationError, match=message):
        fit_table(*parse_points(text), None, "points")


def test_markers_not_found():
    blank = np.full((480, 640, 3), 90, np.uint8)
    with pytest.raises(CalibrationError, match="no DICT_4X4_50 markers found"):
        find_markers(blank, LAYOUT)


def test_too_few_or_unknown_markers(table_photo):
    img = table_photo[0]
    other = MarkerLayout(markers=[{"id": 20, "x_mm": 0, "y_mm": 0, "side_mm": 60},
                                  {"id": 21, "x_mm": 100, "y_mm": 0, "side_mm": 60}])
    with pytest.raises(CalibrationError, match=r"0 of the layout's markers seen .* need 1"):
        find_markers(img, other, min_markers=1)
    with pytest.raises(CalibrationError, match="need 6"):
        find_markers(img, LAYOUT, min_markers=6)


ZONES = ZonesFile(zones=[
    ZoneSpec(name="table", role="play", polygon_mm=[(-500, -300), (500, -300), (500, 300),
                                                    (-500, 300)]),
    ZoneSpec(name="bank_chips", role="no_roll", polygon_mm=[(-150, -300), (150, -300),
                                                            (150, -220), (-150, -220)]),
    ZoneSpec(name="shaker", role="held", z_mm=40.0,
             polygon_mm=[(300, 100), (400, 100), (400, 200), (300, 200)]),
])


def test_zones_map_to_pixels_and_die_size(table_photo, tmp_path):
    img, r, t, k, dist = table_photo
    px, mm, ids = find_markers(img, LAYOUT)
    pose = fit_table(px, mm, _intrinsics(k, dist), "markers", ids)
    zones = to_zones(pose, ZONES)
    assert zones.walled  # the play zone is the floor's outline: the verdict's support rule
    probes = _true_px(np.array([[0.0, 0.0], [0.0, -260.0], [700.0, 0.0]]), 0, r, t, k, dist)
    assert inside(probes, zones.play).tolist() == [True, True, False]
    assert inside(probes, zones.no_roll["bank_chips"]).tolist() == [False, True, False]
    # Expected size of a 19 mm die: the top face 19 mm above its zone, from the true camera.
    for size in die_sizes(pose, ZONES):
        spec = next(z for z in ZONES.zones if z.name == size.zone)
        c = np.mean(spec.polygon_mm, axis=0)
        sq = c + np.array([[-9.5, -9.5], [9.5, -9.5], [9.5, 9.5], [-9.5, 9.5]])
        corners = _true_px(sq, spec.z_mm + 19.0, r, t, k, dist)
        true = np.mean(np.linalg.norm(corners - np.roll(corners, -1, 0), axis=1))
        assert size.centre_px == pytest.approx(true, rel=0.01)
        assert size.min_px <= size.centre_px <= size.max_px
    table = calibrate_zones(pose, ZONES)
    table.save(tmp_path / "table.json")
    # The verdict's reaches see the smallest die in play (rule 71): the play zone's, not the
    # held shaker's, which sits 40 mm nearer the camera.
    play = next(d for d in table.die_px if d.zone == "table")
    assert table.zones_px.die_px == play.min_px
    assert load_zones(tmp_path / "table.json") == zones.model_copy(
        update={"die_px": play.min_px})
    # A file written before the zones carried the die size gets it from its own sizes.
    old = json.loads((tmp_path / "table.json").read_text())
    del old["zones_px"]["die_px"]
    (tmp_path / "old.json").write_text(json.dumps(old))
    assert load_zones(tmp_path / "old.json").die_px == play.min_px


def test_zone_files_are_strict():
    with pytest.raises(ValueError, match="exactly one play zone"):
        ZonesFile(zones=[ZoneSpec(name="rail", role="no_roll",
                                  polygon_mm=[(0, 0), (1, 0), (1, 1)])])
    with pytest.raises(ValueError, match="extra"):
        ZoneSpec(name="t", role="play", polygon_mm=[(0, 0), (1, 0), (1, 1)], colour="red")
    with pytest.raises(ValueError, match="repeat"):
        MarkerLayout(markers=[{"id": 1, "x_mm": 0, "y_mm": 0, "side_mm": 60}] * 2)


def test_the_pose_gives_the_reader_the_cameras_true_view_of_the_felt(table_photo):
    img, r, t, k, dist = table_photo
    px, mm, ids = find_markers(img, LAYOUT)
    pose = fit_table(px, mm, _intrinsics(k, dist), "markers", ids)
    view = pose.floor_view()
    true_up = cv2.Rodrigues(np.asarray(r, np.float64))[0][:, 2]
    assert true_up @ np.asarray(t).ravel() < 0  # the table's z runs up, towards the camera
    np.testing.assert_allclose(view.up, true_up, atol=2e-3)
    # A flat die's top shows where the true camera puts it, across the table: its image
    # shift, in normalised coordinates, per unit of height over depth.
    rot = cv2.Rodrigues(np.asarray(r, np.float64))[0]
    for at in TEST_MM[:20]:
        foot, top = (rot @ [*at, z] + np.asarray(t).ravel() for z in (0.0, 0.5))
        ref = (top[:2] / top[2] - foot[:2] / foot[2]) / (0.5 / foot[2])
        centre = _true_px(np.array([at]), 0.0, r, t, k, dist)
        np.testing.assert_allclose(view.lean(centre, (720, 960))[0], ref, atol=2e-3)
    # Without intrinsics only the homography is known: the reader keeps its typical camera.
    assert fit_table(pose.project(TEST_MM[:6]), TEST_MM[:6], None, "points").floor_view() is None
