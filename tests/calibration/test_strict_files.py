"""Calibration files are strict like the model profile and the edge's YAML (DESIGN: strict
pydantic config): "19" for a number, 9.0 for a count or "no" for a bool is a hand edit gone
wrong, refused naming the field, not read as what it might have meant. The files
`dicecall calibrate` and the demo ship still load."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from dicecall.calibration.camera_model import CameraIntrinsics
from dicecall.calibration.exposure import CameraControls, ExposureResult, calibrate_exposure
from dicecall.calibration.layout import Marker, MarkerLayout, ZonesFile, ZoneSpec
from dicecall.calibration.table import TablePose
from dicecall.calibration.targets import BoardSpec
from dicecall.calibration.zones import DieSize, TableCalibration, load_table

ROOT = Path(__file__).resolve().parents[2]
PLAY = {"name": "t", "role": "play", "polygon_mm": [[0, 0], [600, 0], [600, 300]]}
K = [[800.0, 0, 320], [0, 800.0, 240], [0, 0, 1]]
CAMERA = {"width": 640, "height": 480, "k": K, "dist": [0, 0, 0, 0], "rms_px": 0.2,
          "views_used": 5}
POSE = {"homography": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "source": "points", "points": 4,
        "rms_px": 0.1, "max_px": 0.2}
CONTROLS = {"ColourGains": [1.2, 1.5], "AnalogueGain": 2.0, "ExposureTime": 10000}
RESULT = {"controls": CONTROLS, "region": [1, 2, 30, 40], "mean_linear_bgr": [0.1, 0.1, 0.1],
          "exposure_scale": 1.5, "limited": False}


def _with(base: dict, **change) -> dict:
    return {**base, **change}


@pytest.mark.parametrize(("model", "data", "field"), [
    (Marker, {"id": "3", "x_mm": 0, "y_mm": 0, "side_mm": 50}, "id"),
    (Marker, {"id": 3.0, "x_mm": 0, "y_mm": 0, "side_mm": 50}, "id"),
    (Marker, {"id": 3, "x_mm": "0", "y_mm": 0, "side_mm": 50}, "x_mm"),
    (MarkerLayout, {"markers": [{"id": 1, "x_mm": 0, "y_mm": 0, "side_mm": "50"}]}, "side_mm"),
    (ZoneSpec, _with(PLAY, z_mm="10"), "z_mm"),
    (ZoneSpec, _with(PLAY, polygon_mm=[[0, 0], [600, 0], [600, "300"]]), "polygon_mm"),
    (ZonesFile, {"die_mm": "19", "zones": [PLAY]}, "die_mm"),
    (CameraIntrinsics, _with(CAMERA, width=640.0), "width"),
    (CameraIntrinsics, _with(CAMERA, rms_px="0.2"), "rms_px"),
    (CameraIntrinsics, _with(CAMERA, dist=[0, 0, 0, "0.1"]), "dist"),
    (CameraIntrinsics, _with(CAMERA, dist=[0, 0, 0, float("inf")]), "dist"),
    (TablePose, _with(POSE, points="4"), "points"),
    (TablePose, _with(POSE, homography=[[1, 0, 0], [0, 1, 0], [0, 0, float("nan")]]),
     "homography"),
    (TablePose, _with(POSE, max_px=float("inf")), "max_px"),
    (DieSize, {"zone": "t", "centre_px": "20", "min_px": 1, "max_px": 2}, "centre_px"),
    (DieSize, {"zone": "t", "centre_px": float("inf"), "min_px": 1, "max_px": 2}, "centre_px"),
    (CameraControls, _with(CONTROLS, AeEnable="no"), "AeEnable"),
    (CameraControls, _with(CONTROLS, ColourGains=["1.2", 1.5]), "ColourGains"),
    (CameraControls, _with(CONTROLS, ExposureTime=10000.0), "ExposureTime"),
    (ExposureResult, _with(RESULT, limited=0), "limited"),
    (ExposureResult, _with(RESULT, exposure_scale=float("inf")), "exposure_scale"),
    (BoardSpec, {"cols": 9.0}, "cols"),
    (BoardSpec, {"square_mm": "25"}, "square_mm"),
])
def test_a_quoted_number_or_bool_in_a_calibration_file_is_refused(model, data, field):
    with pytest.raises(ValidationError, match=field):
        model.model_validate_json(json.dumps(data))
    with pytest.raises(ValidationError, match=field):  # as yaml.safe_load or json.load give it
        model.model_validate(json.loads(json.dumps(data)))


def test_a_nan_vertex_still_reaches_the_zones_own_check():
    text = json.dumps({"zones": [_with(PLAY, polygon_mm=[[0, 0], [600, 0], [600, 300]])]})
    with pytest.raises(ValidationError, match="not a finite number"):
        ZonesFile.model_validate_json(text.replace("[600, 300]", "[NaN, 300]"))


def test_the_shipped_calibration_files_still_load():
    for name in ("zones-craps.json", "zones-shaker.json"):
        ZonesFile.model_validate_json((ROOT / "calibration" / "examples" / name).read_text())
    MarkerLayout.model_validate_json(
        (ROOT / "calibration" / "examples" / "markers-craps.json").read_text())
    tables = sorted((ROOT / "dicecall" / "demo" / "data").glob("*/zones.json"))
    assert len(tables) == 3
    for path in tables:
        load_table(path)


def test_what_calibration_computes_still_validates_and_round_trips(tmp_path):
    """numpy values from the fitting code (a float64 ratio, a bool from a comparison)."""
    rng = np.random.default_rng(0)
    card = np.clip(np.add((110, 118, 125), rng.normal(0, 1.5, (60, 60, 3))), 0, 255)
    result = calibrate_exposure(card.astype(np.uint8), region=(5, 5, 50, 50))
    assert type(result.limited) is bool
    assert ExposureResult.model_validate_json(result.model_dump_json()) == result
    table = load_table(next((ROOT / "dicecall" / "demo" / "data").glob("*/zones.json")))
    assert TableCalibration.model_validate_json(table.model_dump_json()) == table


@pytest.mark.parametrize(("model", "data", "message"), [
    (ExposureResult, _with(RESULT, region=[1, 2, 30.0, 40]), r"region\.2\n  Input should be "
                                                            "a valid integer"),
    (ExposureResult, _with(RESULT, region="1,2,30,40"), r"region\n  Input should be a list"),
    (ExposureResult, _with(RESULT, mean_linear_bgr=[0.1, 0.1]), r"mean_linear_bgr\.2\n  "
                                                                "Field required"),
    (CameraControls, _with(CONTROLS, ColourGains=[1.2, 1.5, 1.0]), "ColourGains\n  Tuple "
                                                                  "should have at most 2"),
    (ZoneSpec, _with(PLAY, polygon_mm=[[0, 0], [600, 0], {600, 300}]),
     r"polygon_mm\.2\n  Input should be a list, written \[a, b, \.\.\.\] in a file"),
])
def test_a_pair_or_region_of_the_wrong_shape_is_refused_naming_it(model, data, message):
    with pytest.raises(ValidationError, match=message):
        model.model_validate(data)
    if "{" not in repr(data):  # JSON has no sets
        with pytest.raises(ValidationError, match=message):
            model.model_validate_json(json.dumps(data))


def test_the_shipped_files_load_however_they_are_read():
    """As plain data (yaml.safe_load, json.load: vertices as lists) the same as through
    `load_json`; a strict tuple took a list only in JSON mode."""
    import yaml

    examples = ROOT / "calibration" / "examples"
    for name in ("zones-craps.json", "zones-shaker.json"):
        text = (examples / name).read_text()
        zones = ZonesFile.model_validate_json(text)
        assert ZonesFile.model_validate(json.loads(text)) == zones
        assert ZonesFile.model_validate(yaml.safe_load(text)) == zones
        assert zones.zones[0].polygon_mm[0] == tuple(json.loads(text)["zones"][0]
                                                     ["polygon_mm"][0])
    for path in sorted((ROOT / "dicecall" / "demo" / "data").glob("*/zones.json")):
        table = load_table(path)
        assert TableCalibration.model_validate(json.loads(path.read_text())) == table
        assert TableCalibration.model_validate(table.model_dump(mode="json")) == table


def test_an_exposure_result_read_as_plain_data_loads():
    result = ExposureResult.model_validate(json.loads(json.dumps(RESULT)))
    assert result.region == (1, 2, 30, 40) and result.controls.ColourGains == (1.2, 1.5)
    assert ExposureResult.model_validate(result.model_dump(mode="json")) == result
