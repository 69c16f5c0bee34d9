"""What an integrator gets from `dicecall calibrate ...` on bad input: a clear error (exit 2)
and no file written, never a traceback or a file that is silently wrong."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from dicecall.calibration.camera_model import CameraIntrinsics
from dicecall.calibration.layout import Marker, MarkerLayout
from dicecall.calibration.targets import look_at, plane_matrix, render_view, table_texture
from dicecall.cli import app

from .conftest import DIST, LAYOUT

runner = CliRunner()
ZONES = {"zones": [{"name": "table", "role": "play",
                    "polygon_mm": [[-500, -300], [500, -300], [500, 300], [-500, 300]]}]}


def _files(tmp_path, layout=LAYOUT, zones=ZONES, k=None):
    (tmp_path / "layout.json").write_text(layout.model_dump_json())
    (tmp_path / "zones.json").write_text(json.dumps(zones))
    if k is not None:
        CameraIntrinsics(width=960, height=720, k=k.tolist(), dist=list(DIST), rms_px=0.1,
                         views_used=10).save(tmp_path / "camera.json")


def _zones(tmp_path, image, *extra):
    cv2.imwrite(str(tmp_path / "frame.png"), image)
    return runner.invoke(app, ["calibrate", "zones", "--image", str(tmp_path / "frame.png"),
                               "--layout", str(tmp_path / "layout.json"), "--zones",
                               str(tmp_path / "zones.json"), "--out",
                               str(tmp_path / "table.json"), *extra])


def test_zones_refuses_markers_that_do_not_fit_one_plane(tmp_path, table_photo):
    # Ids 1 and 2 swapped in the layout (a marker printed or placed wrong): the fit was written
    # with a reprojection RMS of 250 px and zones thousands of pixels off, exit 0.
    img, _, _, k, _ = table_photo
    swapped = MarkerLayout(markers=[m.model_copy(update={"id": {1: 2, 2: 1}.get(m.id, m.id)})
                                    for m in LAYOUT.markers])
    _files(tmp_path, swapped, k=k)
    res = _zones(tmp_path, img, "--camera", str(tmp_path / "camera.json"))
    assert res.exit_code == 2, res.output
    assert "do not fit one table plane" in res.output and "--max-rms" in res.output
    assert not (tmp_path / "table.json").exists()
    _files(tmp_path, LAYOUT, k=k)  # the right layout still calibrates
    res = _zones(tmp_path, img, "--camera", str(tmp_path / "camera.json"))
    assert res.exit_code == 0, res.output
    assert (tmp_path / "table.json").exists()


def test_zones_refuses_a_marker_id_seen_twice(tmp_path):
    # A second print of marker 0 on the table: the fit used whichever copy the detector listed
    # last, and at one place of the copy wrote a 66 px RMS table file without a word.
    markers = [*LAYOUT.markers, Marker(id=0, x_mm=-300, y_mm=200, side_mm=60)]
    tex, origin = table_texture(MarkerLayout.model_construct(dictionary="DICT_4X4_50",
                                                             markers=markers),
                                (-600, 600), (-400, 400), 2.5)
    r, t = look_at((60.0, -150.0, 1000.0), (0.0, 0.0, 0.0), up=(0, 1, 0))
    k = np.array([[700.0, 0, 478.0], [0, 702.0, 362.0], [0, 0, 1]])
    img = render_view(tex, 2.5, origin, k, DIST, plane_matrix(r, t, flip_y=True), (960, 720),
                      background=30)
    _files(tmp_path)
    res = _zones(tmp_path, img)
    assert res.exit_code == 2, res.output
    assert "marker 0 is seen twice" in res.output
    assert not (tmp_path / "table.json").exists()


def test_zones_refuses_a_frame_of_another_size_than_the_camera_file(tmp_path, table_photo):
    # A frame cropped (or from another sensor mode) used the camera file's principal point as
    # is: written with zones shifted, RMS 1.7 px, exit 0. A scaled mode is rescaled.
    img, _, _, k, _ = table_photo
    _files(tmp_path, k=k)
    res = _zones(tmp_path, img[:, 100:], "--camera", str(tmp_path / "camera.json"))
    assert res.exit_code == 2, res.output
    assert "is 860x720 but" in res.output and "960x720" in res.output
    assert not (tmp_path / "table.json").exists()
    half = cv2.resize(img, (480, 360), interpolation=cv2.INTER_AREA)
    res = _zones(tmp_path, half, "--camera", str(tmp_path / "camera.json"))
    assert res.exit_code == 0 and "scaled to 480x360" in res.output, res.output
    table = json.loads((tmp_path / "table.json").read_text())
    assert table["pose"]["intrinsics"]["width"] == 480 and table["pose"]["rms_px"] < 1.0


POINTS = "100,80=-600,-370;1180,80=600,-370;1180,700=600,370;100,700=-600,370"


def _zones_from_points(tmp_path, zones, *extra, points=POINTS):
    (tmp_path / "zones.json").write_text(zones if isinstance(zones, str) else json.dumps(zones))
    return runner.invoke(app, ["calibrate", "zones", "--points", points, "--zones",
                               str(tmp_path / "zones.json"), "--out",
                               str(tmp_path / "table.json"), *extra])


def _play(polygon):
    return {"zones": [{"name": "table", "role": "play", "polygon_mm": polygon}]}


@pytest.mark.parametrize("zones, message", [
    # vertices out of order: a bowtie, which the verdict tested dice against as two triangles
    (_play([[-600, -370], [600, 370], [600, -370], [-600, 370]]), "crosses itself"),
    (_play([[-600, -370], [0, 0], [600, 370]]), "crosses itself"),  # folded onto a line
    (_play([[0, 0], [0.1, 0], [0.1, 0.1]]), "less than one 19 mm die"),  # metres, not mm
    (_play([[0, 0], [0, 0], [0, 0], [0, 0]]), "less than one 19 mm die"),
    # a NaN vertex was a traceback (cannot convert float NaN to integer)
    ('{"zones": [{"name": "table", "role": "play", "polygon_mm": '
     '[[NaN, 0], [600, 0], [600, 300]]}]}', "not a finite number"),
])
def test_zones_refuses_a_zone_that_is_not_an_area(tmp_path, zones, message):
    res = _zones_from_points(tmp_path, zones)
    assert res.exit_code == 2, res.output
    assert message in res.output and "Traceback" not in res.output
    assert not (tmp_path / "table.json").exists()


def test_a_zone_drawn_in_order_with_its_first_vertex_repeated_is_still_a_zone(tmp_path):
    res = _zones_from_points(tmp_path, _play([[-600, -370], [600, -370], [600, 370],
                                              [-600, 370], [-600, -370]]))
    assert res.exit_code == 0, res.output


def test_zones_refuses_a_play_zone_wholly_outside_the_frame(tmp_path):
    # It was written with only edge warnings: every die would then be called missing.
    cv2.imwrite(str(tmp_path / "f.png"), np.zeros((720, 1280, 3), np.uint8))
    res = _zones_from_points(tmp_path, _play([[2000, -370], [2600, -370], [2600, 370],
                                              [2000, 370]]), "--image", str(tmp_path / "f.png"))
    assert res.exit_code == 2, res.output
    assert "play zone table lies wholly outside the 1280x720 frame" in res.output
    assert not (tmp_path / "table.json").exists()


def test_zones_refuses_a_zone_past_where_the_lens_model_holds(tmp_path):
    # A fitted k3 < 0 turns the distortion back some 60 degrees off the axis: a zone 3 m away
    # came out across the frame's bottom-left (or 4e9 px wide) and was written.
    k = np.array([[812.0, 0, 486.5], [0, 815.0, 352.0], [0, 0, 1]])
    dist = np.array([-0.21, 0.09, 0.0, 0.0, -0.015])
    CameraIntrinsics(width=960, height=720, k=k.tolist(), dist=dist.tolist(), rms_px=0.1,
                     views_used=10).save(tmp_path / "camera.json")
    r, t = look_at((70.0, -180.0, 1300.0), (10.0, 0.0, 0.0), up=(0, 1, 0))
    mm = np.array([[-560, -330], [560, -330], [560, 330], [-560, 330], [0, 100], [200, -150]],
                  np.float64)
    px = cv2.projectPoints(np.column_stack([mm, np.zeros(len(mm))]), r, t, k, dist)[0]
    points = ";".join(f"{a:.3f},{b:.3f}={c:g},{d:g}"
                      for (a, b), (c, d) in zip(px.reshape(-1, 2), mm, strict=True))
    cam = ["--camera", str(tmp_path / "camera.json")]
    res = _zones_from_points(tmp_path, _play([[3000, 3000], [3600, 3000], [3600, 3400],
                                              [3000, 3400]]), *cam, points=points)
    assert res.exit_code == 2, res.output
    assert "beyond where the camera's lens model holds" in res.output
    assert not (tmp_path / "table.json").exists()
    res = _zones_from_points(tmp_path, _play([[-600, -370], [600, -370], [600, 370],
                                              [-600, 370]]), *cam, points=points)
    assert res.exit_code == 0, res.output


def _card(tmp_path):
    rng = np.random.default_rng(0)
    img = np.clip(np.full((480, 640, 3), (40, 90, 30), np.float64)
                  + rng.normal(0, 2, (480, 640, 3)), 0, 255)
    card = np.add((110, 118, 125), rng.normal(0, 1.5, (180, 200, 3)))
    img[150:330, 220:420] = np.clip(card, 0, 255)
    cv2.imwrite(str(tmp_path / "card.png"), img.astype(np.uint8))
    return str(tmp_path / "card.png")


@pytest.mark.parametrize("args, message", [
    # a negative x counted from the right edge: the felt was measured, ColourGains (8.0, 4.9)
    (["--region", "-200,160,150,150"], "is not inside the 640x480 image"),
    (["--region", "600,440,100,100"], "is not inside the 640x480 image"),  # cut short to felt
    (["--region", "a,b,c,d"], "--region must be x,y,w,h"),
    (["--gains", "nan,1"], "ColourGains in (0, 32]"),  # written as [null, 1.16]
    (["--gains", "-1,2"], "ColourGains in (0, 32]"),  # written as [-0.88, 2.32]
    (["--gains", "0,0"], "ColourGains in (0, 32]"),
    (["--gains", "1"], "--gains must be red,blue"),
    (["--exposure-us", "-5000"], "at least 1 us"),  # written as ExposureTime 1
    (["--exposure-us", "0"], "at least 1 us"),  # a pydantic dump about AnalogueGain nan
    (["--max-exposure-us", "0"], "at least 1 us"),  # ExposureTime 1, AnalogueGain 8
    (["--gain", "0"], "AnalogueGain 1-64"),
])
def test_exposure_refuses_a_region_or_controls_no_camera_has(tmp_path, args, message):
    res = runner.invoke(app, ["calibrate", "exposure", _card(tmp_path), *args, "--out",
                              str(tmp_path / "c.json")])
    assert res.exit_code == 2, res.output
    assert message in res.output and "Traceback" not in res.output
    assert not (tmp_path / "c.json").exists()


def test_exposure_on_the_card_region_inside_the_frame(tmp_path):
    res = runner.invoke(app, ["calibrate", "exposure", _card(tmp_path), "--region",
                              "230,160,180,160", "--out", str(tmp_path / "c.json")])
    assert res.exit_code == 0, res.output
    gains = json.loads((tmp_path / "c.json").read_text())["controls"]["ColourGains"]
    assert 0.8 < gains[0] < 1.0 and 1.1 < gains[1] < 1.25


def test_a_failed_write_leaves_the_previous_file_whole(tmp_path):
    # The file was written in place: a full disk (here a 100-byte file size limit) left the
    # previous good controls cut short, with a traceback; the edge then could not load them.
    import resource
    import subprocess
    import sys

    card, out = _card(tmp_path), tmp_path / "c.json"
    args = ["calibrate", "exposure", card, "--out", str(out)]
    assert runner.invoke(app, args).exit_code == 0
    before = out.read_bytes()
    res = subprocess.run(
        [sys.executable, "-c", "from dicecall.cli import app; app()", *args, "--gain", "2"],
        capture_output=True, text=True, timeout=120,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100)))
    assert res.returncode == 2, res.stderr
    assert "could not be written" in res.stderr and "Traceback" not in res.stderr
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.json", "card.png"]  # no temp


OUTPUTS_IN_NODIR = [
    ["camera", "{d}/board.png", "--out", "{d}/nodir/camera.json"],
    ["zones", "--points", POINTS, "--zones", "{d}/zones.json", "--out", "{d}/nodir/t.json"],
    ["zones", "--points", POINTS, "--zones", "{d}/zones.json", "--out", "{d}/t.json",
     "--overlay", "{d}/nodir/o.png"],
    ["exposure", "{d}/card.png", "--out", "{d}/nodir/c.json"],
    ["simulate", "--n", "1000", "--out", "{d}/nodir/s.npz"],
    ["model", "--samples", "{d}/s.npz", "--out", "{d}/nodir/p.json"],
]


def _outputs_refused(tmp_path, args, nodir):
    _card(tmp_path)
    (tmp_path / "zones.json").write_text(json.dumps(ZONES))
    cv2.imwrite(str(tmp_path / "board.png"), np.full((240, 320, 3), 90, np.uint8))
    args = [a.format(d=tmp_path).replace("nodir", nodir) for a in args]
    res = runner.invoke(app, ["calibrate", *args])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and not (tmp_path / "t.json").exists()
    return res.output


@pytest.mark.parametrize("args", OUTPUTS_IN_NODIR)
def test_an_output_in_a_missing_folder_is_refused_before_the_work(tmp_path, args):
    # It was a FileNotFoundError traceback after the work (a camera fit lost).
    assert "nodir does not exist" in _outputs_refused(tmp_path, args, "nodir")


@pytest.mark.parametrize("nodir", ["card.png", "card.png/sub"])
@pytest.mark.parametrize("args", OUTPUTS_IN_NODIR)
def test_an_output_under_a_regular_file_says_so(tmp_path, args, nodir):
    # It said "the folder .../card.png does not exist; create it first": it does, as a file.
    said = _outputs_refused(tmp_path, args, nodir)
    assert "card.png is a file, not a folder" in said and "does not exist" not in said, said


def test_camera_refuses_photos_that_do_not_fit_one_camera(tmp_path, charuco_views):
    # Six photos from another camera among eight good ones: written at RMS 1.2 px (a good fit
    # is 0.1 px) with fx 499 for a 610 px lens, and no warning.
    from .conftest import K, render_board

    spec, good = charuco_views
    k2 = K.copy()
    k2[0, 0] = k2[1, 1] = 380.0
    k2[0, 2] = 250.0
    other = render_board(spec, 6, 2, k=k2, dist=np.array([0.3, 0.2, 0.01, 0.01, 0.0]))
    paths = []
    for tag, views in (("a", good), ("b", other)):
        for name, img in views:
            paths.append(str(tmp_path / f"{tag}_{name}"))
            cv2.imwrite(paths[-1], img)
    args = ["calibrate", "camera", "--out", str(tmp_path / "camera.json")]
    res = runner.invoke(app, [*args, *paths])
    assert res.exit_code == 2, res.output
    assert "is over --max-rms 1" in res.output and "Worst views: b_" in res.output
    assert not (tmp_path / "camera.json").exists()
    res = runner.invoke(app, [*args, *paths[:len(good)]])
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "camera.json").read_text())["rms_px"] < 0.5


@pytest.mark.parametrize("content", [b"junk\n", b"PK\x03\x04cut short"])
def test_model_refuses_a_samples_file_that_is_not_an_npz(tmp_path, content):
    # numpy took the text for a pickle and the cut zip as a zip: both were tracebacks.
    (tmp_path / "s.npz").write_bytes(content)
    res = runner.invoke(app, ["calibrate", "model", "--samples", str(tmp_path / "s.npz"),
                              "--out", str(tmp_path / "p.json")])
    assert res.exit_code == 2, res.output
    assert "not a samples .npz" in res.output and not (tmp_path / "p.json").exists()
