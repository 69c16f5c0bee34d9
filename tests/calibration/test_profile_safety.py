"""A model profile can tighten the verdict, never loosen it past what the fit writes (issue
6: no settlement may rest on a cocked, stacked, hidden or misread die). An audit in session
39 loaded a hand-edited profile with every rule off and the edge called 72-89 of 523 unsafe
shaker rolls valid, without a word in the log or the evidence.
"""

from __future__ import annotations

import json

import pytest

from dicecall.calibration import CalibrationError
from dicecall.calibration.model import calibrate_samples
from dicecall.calibration.profile import load_profile
from dicecall.calibration.scores import synthetic_samples
from dicecall.vision.verdict import VerdictConfig


@pytest.fixture(scope="module")
def fitted():
    return calibrate_samples(synthetic_samples(4000, 2.0, 0), "synthetic").profile


def _edited(tmp_path, profile, certified: bool | None = None, **verdict):
    data = json.loads(profile.model_dump_json())
    data["verdict"].update(verdict)
    if certified is not None:
        data["evidence"]["certified"] = certified
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    return path


def test_a_profile_as_fitted_loads(tmp_path, fitted):
    path = tmp_path / "p.json"
    fitted.save(path)
    assert load_profile(path)[1] == fitted.verdict


@pytest.mark.parametrize(("edit", "names"), [
    ({"tilt_threshold": 0.6}, "tilt_threshold 0.6"),
    ({"stacked_threshold": 0.95}, "stacked_threshold 0.95"),
    ({"no_roll_tilt_threshold": 0.9}, "no_roll_tilt_threshold"),
    ({"edge_review_deg": 0.0}, "edge_review_deg"),
    ({"void_margin_deg": 0.0}, "void_margin_deg"),
    ({"partly_hidden_line": 0.0}, "partly_hidden_line"),
    ({"call_stands_floor": 0.01}, "call_stands_floor"),
])
def test_a_rule_loosened_or_switched_off_by_hand_is_refused(tmp_path, fitted, edit, names):
    with pytest.raises(CalibrationError, match=names):
        load_profile(_edited(tmp_path, fitted, **edit))


def test_the_flag_lines_may_only_be_lowered(tmp_path, fitted):
    base = VerdictConfig()
    path = _edited(tmp_path, fitted, tilt_threshold=base.tilt_threshold / 2,
                   stacked_threshold=base.stacked_threshold / 2)
    assert load_profile(path)[1].tilt_threshold == base.tilt_threshold / 2


def test_a_lower_confidence_line_needs_a_certified_bound(tmp_path, fitted):
    with pytest.raises(CalibrationError, match="without a certified error bound"):
        load_profile(_edited(tmp_path, fitted, certified=False, min_confidence=0.5))
    assert load_profile(_edited(tmp_path, fitted, certified=True,
                                min_confidence=0.5))[1].min_confidence == 0.5


def test_a_quoted_number_in_a_profile_is_refused(tmp_path, fitted):
    """Strict, as the edge's YAML: "0.05" is a hand edit gone wrong, not a line to run on."""
    path = _edited(tmp_path, fitted, tilt_threshold=str(fitted.verdict.tilt_threshold))
    with pytest.raises(CalibrationError, match="tilt_threshold"):
        load_profile(path)
    data = json.loads(fitted.model_dump_json())
    data["reader"]["temperature"] = str(data["reader"]["temperature"])
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="temperature"):
        load_profile(path)
