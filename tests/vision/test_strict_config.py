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


def test_a_polygon_handed_over_as_lists_loads():
    """YAML, json.load and model_dump(mode="json") give a vertex as a list, the only way a
    file can spell it; a strict tuple took one only through model_validate_json."""
    import yaml

    text = ("play: [[0, 0], [400, 0], [400, 300], [0, 300]]\n"
            "no_roll: {cup: [[0, 0], [50, 0], [50, 50]]}\n"
            "held: [[10, 10], [60, 10], [60, 60.5]]\n")
    zones = Zones.model_validate(yaml.safe_load(text))
    assert zones.play[2] == (400.0, 300.0) and zones.held[2] == (60.0, 60.5)
    assert zones.no_roll["cup"][1] == (50.0, 0.0)
    assert Zones.model_validate(json.loads(zones.model_dump_json())) == zones
    assert Zones.model_validate(zones.model_dump(mode="json")) == zones
    assert Zones(play=[(0, 0), (4, 0), (4, 3)]).play[1] == (4.0, 0.0)  # code's own tuples


@pytest.mark.parametrize(("vertex", "message"), [
    (["400", 300], r"play\.2\.0\n  Input should be a valid number"),
    ([400, True], r"play\.2\.1\n  Input should be a valid number"),
    ([400, 300, 0], "at most 2 items"),
    ("400,300", r"play\.2\n  Input should be a list, written \[a, b, \.\.\.\] in a file "
                r"\(got str\)"),
    ({400, 300}, r"Input should be a list, written .* \(got set\)"),  # a set has no order
])
def test_a_wrong_vertex_is_still_refused_naming_it(vertex, message):
    with pytest.raises(ValidationError, match=message):
        Zones.model_validate({"play": [[0, 0], [400, 0], vertex]})
