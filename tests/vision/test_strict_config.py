"""Profiles, verdict and reader settings are strict, as the edge's YAML is (DESIGN: strict
pydantic config): a file giving "0.05" for a number or "yes" for a bool is a mistake, refused
with the field's name, not read as what it might have meant."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from dicecall.vision.config import ReaderConfig
from dicecall.vision.profiles import Zones
from dicecall.vision.verdict import VerdictConfig

SQUARE = [[0, 0], [400, 0], [400, 300], [0, 300]]


@pytest.mark.parametrize(("model", "data", "field"), [
    (VerdictConfig, {"tilt_threshold": "0.05"}, "tilt_threshold"),
    (VerdictConfig, {"min_confidence": True}, "min_confidence"),
    (ReaderConfig, {"temperature": "0.79"}, "temperature"),
    (ReaderConfig, {"views": 4.0}, "views"),
    (ReaderConfig, {"zoom_prefer_first": "yes"}, "zoom_prefer_first"),
    (Zones, {"play": [[0, 0], [400, 0], ["400", "300"]]}, "play"),
    (Zones, {"play": SQUARE, "walled": 1}, "walled"),
])
def test_a_quoted_number_or_bool_in_a_file_is_refused(model, data, field):
    with pytest.raises(ValidationError, match=field):
        model.model_validate_json(json.dumps(data))
    with pytest.raises(ValidationError, match=field):
        model(**data)


def test_files_still_give_paths_as_strings_and_numbers_natively():
    cfg = ReaderConfig.model_validate_json(json.dumps({"detector": "d.onnx", "views": 2,
                                                       "temperature": 1}))
    assert str(cfg.detector) == "d.onnx" and cfg.views == 2 and cfg.temperature == 1.0
    assert ReaderConfig(reader="r.onnx").reader.name == "r.onnx"  # a CLI argument's str
    zones = Zones.model_validate_json(json.dumps({"play": SQUARE}))
    assert zones.play[2] == (400.0, 300.0)
    assert VerdictConfig.model_validate_json('{"tilt_threshold": 0.04}').tilt_threshold == 0.04
