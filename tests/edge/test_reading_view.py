"""The edge hands the reader the camera's calibrated view of the felt (`FloorView`) from the
table calibration file, and none when the file has no intrinsics (`preprocess.die_geometry`
then assumes a straight camera of typical lens)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np

from dicecall.calibration.zones import load_table
from dicecall.edge.reading import Reading

BUNDLE = Path(__file__).parents[2] / "dicecall" / "demo" / "data" / "props-and-hops"


def _reading(tmp_path, kit, zones: Path) -> Reading:
    svc = SimpleNamespace(url="http://127.0.0.1:9")
    cfg = kit.config(tmp_path, svc, kit.TABLE, kit.DEVICE, "s" * 32, tmp_path, zones=str(zones),
                     game="props-and-hops")
    return Reading(cfg)


def _square_floor(tmp_path) -> None:
    """zones.json: a 320x240 play zone mapped 1:1 onto pixels, no intrinsics."""
    from dicecall.calibration.layout import ZonesFile
    from dicecall.calibration.table import TablePose
    from dicecall.calibration.zones import calibrate_zones

    pose = TablePose(homography=np.eye(3).tolist(), source="points", points=4, rms_px=0,
                     max_px=0)
    zones = ZonesFile(zones=[{"name": "floor", "role": "play",
                              "polygon_mm": [(0, 0), (320, 0), (320, 240), (0, 240)]}])
    calibrate_zones(pose, zones).save(tmp_path / "zones.json")


def test_a_calibrated_camera_gives_the_reader_its_view_of_the_felt(tmp_path, kit):
    table = load_table(BUNDLE / "zones.json")
    assert table.pose.intrinsics is not None
    reading = _reading(tmp_path, kit, BUNDLE / "zones.json")
    want = table.pose.floor_view()
    assert reading.reader.view is reading.view
    np.testing.assert_allclose(reading.view.k, want.k)
    np.testing.assert_allclose(reading.view.up, want.up)
    # the bundle's camera looks nearly straight down at the felt
    assert reading.view.up[2] < -0.95


def test_zones_without_intrinsics_leave_the_reader_its_typical_camera(tmp_path, kit):
    _square_floor(tmp_path)
    reading = _reading(tmp_path, kit, tmp_path / "zones.json")
    assert reading.view is None and reading.reader.view is None
    assert reading.zones == load_table(tmp_path / "zones.json").zones_px


def test_zones_past_the_frame_are_warned_of_once_per_frame_size(tmp_path, kit, caplog):
    # A zone drawn for another picture, or a camera knocked aside, leaves part of the play
    # zone out of view: a die there is cut off or unseen (calibration.zones.outside_frame).
    import logging

    from dicecall.edge.sources import Frame

    _square_floor(tmp_path)
    reading = _reading(tmp_path, kit, tmp_path / "zones.json")

    def frame(w, h):
        image = np.random.default_rng(0).integers(0, 255, (h, w, 3), np.uint8)  # not blank
        return Frame(t=0.0, wall=0.0, image=image, grey=None, label="f")

    with caplog.at_level(logging.WARNING, logger="dicecall.edge"):
        reading.detect(frame(320, 240))
        assert not caplog.records
        reading.detect(frame(300, 240))
        reading.detect(frame(300, 240))
    assert [r.getMessage() for r in caplog.records] == [
        "play zone floor runs 20.0 px past the right edge of the 300x240 frames: a die there is "
        "cut off or unseen"]


def test_every_rolls_annotated_evidence_names_the_models_that_read_it(tmp_path, kit):
    # Surveillance and the regulator must tell from a stored roll which files made the call:
    # the detector and reader differ by game (vision/config.py `for_game`). The annotated
    # JPEG carries their sha256 in its comment, and the roll's annotated_sha256 covers it.
    import base64
    import hashlib
    import json

    import cv2

    from dicecall.edge.flow import Expect
    from dicecall.edge.sources import Frame
    from dicecall.vision.evidence import model_ids

    reading = _reading(tmp_path, kit, BUNDLE / "zones.json")
    want = model_ids(reading.reader.config.detector, reading.reader.config.reader)
    assert reading.reader.config.reader.name == "reader.shaker.onnx"  # Props & Hops
    image = cv2.imread(str(BUNDLE / "f0000.jpg"))
    frame = Frame(t=0.0, wall=1.0, image=image, grey=None, label="f0000.jpg")
    body = json.loads(reading.roll(frame, Expect(2, "throw"), 1).body)
    annotated = base64.b64decode(body["evidence"]["annotated_jpeg_b64"])
    assert hashlib.sha256(annotated).hexdigest() == body["evidence"]["annotated_sha256"]
    comment = f"dicecall models detector={want['detector']} reader={want['reader']}".encode()
    assert comment in annotated[:4096]
    assert cv2.imdecode(np.frombuffer(annotated, np.uint8), cv2.IMREAD_COLOR).shape == image.shape
