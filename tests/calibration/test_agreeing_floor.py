"""A table's profile keeps rule 46's agreeing floor only where its own reads certify it.

`min_confidence` is certified on a table's labelled dice (the error rate among the reads the
verdict accepts, upper bound under the target). Rule 46 (`VerdictConfig.agreeing_confidence`,
docs/verdicts.md) accepts more reads: a face under the line, not a 1, with its pips agreeing,
at the floor or over. `calibrate model` puts those reads to the same test, else writes the
floor as 0 (off), and a profile may not lower the floor by hand."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dicecall.calibration import CalibrationError
from dicecall.calibration.fit import AcceptResult
from dicecall.calibration.model import _agreeing_floor, calibrate_samples
from dicecall.calibration.profile import RULE_CONF, RULE_PIPS, load_profile
from dicecall.calibration.scores import Samples, synthetic_samples
from dicecall.vision.verdict import VerdictConfig

N = 40_000  # enough error-free reads to certify 1e-4 at 95 % (about 30,000)
BASE = VerdictConfig()  # the committed floor, 0.9


def _accept(threshold: float, certified: bool = True) -> AcceptResult:
    return AcceptResult(threshold=threshold, certified=certified, accepted=N, errors=0,
                        upper=7.5e-5, needed=29_956, grid=np.zeros(0), n=np.zeros(0),
                        k=np.zeros(0), ucb=np.zeros(0))


def _reads(wrong_band_faces: tuple[int, ...]):
    """N reads over the line (right) and 2,000 in the band [0.9, 0.97) between the floor and
    a line of 0.97: faces 1-6, pips agreeing; the band's reads of `wrong_band_faces` wrong."""
    n_band = 2_000
    face = np.tile(np.arange(1, 7), (N + n_band) // 6 + 1)[:N + n_band].astype(np.int8)
    read = face.copy()
    conf = np.concatenate([np.full(N, 0.995), np.linspace(0.9, 0.969, n_band)])
    band = np.arange(len(face)) >= N
    pick = band & np.isin(read, wrong_band_faces)
    wrong = pick & (np.cumsum(pick) % 20 == 1)  # one in 20 of them
    face = np.where(wrong, face % 6 + 1, face).astype(np.int8)
    ok = np.ones(len(face), bool)  # pips agree with the read everywhere
    fit = Samples(logits=np.zeros((len(face), 6), np.float32), face=face,
                  tilt=np.zeros(len(face)), stacked=np.zeros(len(face)),
                  cocked_label=np.full(len(face), -1), stacked_label=np.full(len(face), -1),
                  group=np.arange(len(face)), pip_face=read)
    return fit, read, conf, ok, int(wrong.sum())


def test_kept_where_only_ones_are_wrong_in_its_band():
    """A lone pip is what the floor never takes (rule 46): errors there do not count."""
    fit, read, conf, ok, wrong = _reads((1,))
    assert wrong > 0
    notes: list[str] = []
    assert _agreeing_floor(fit, read, conf, ok, _accept(0.97), BASE, RULE_PIPS, 1e-4, 0.95,
                           notes) == BASE.agreeing_confidence
    assert "0 of" in notes[0] and "certified" in notes[0]


def test_off_where_its_reads_break_the_bound():
    fit, read, conf, ok, wrong = _reads((4,))
    notes: list[str] = []
    assert _agreeing_floor(fit, read, conf, ok, _accept(0.97), BASE, RULE_PIPS, 1e-4, 0.95,
                           notes) == 0.0
    assert f"{wrong} of" in notes[0] and "off (0)" in notes[0]


def test_off_without_a_certified_line_or_without_pips():
    fit, read, conf, ok, _ = _reads(())
    for accept, rule in ((_accept(0.97, certified=False), RULE_PIPS), (_accept(0.97), RULE_CONF)):
        notes: list[str] = []
        assert _agreeing_floor(fit, read, conf, ok, accept, BASE, rule, 1e-4, 0.95, notes) == 0
        assert "off (0)" in notes[0]


def test_kept_as_is_when_the_line_is_under_it_or_off():
    fit, read, conf, ok, _ = _reads((4,))
    assert _agreeing_floor(fit, read, conf, ok, _accept(0.8), BASE, RULE_PIPS, 1e-4, 0.95,
                           []) == BASE.agreeing_confidence
    off = VerdictConfig(agreeing_confidence=0.0)
    assert _agreeing_floor(fit, read, conf, ok, _accept(0.97), off, RULE_PIPS, 1e-4, 0.95,
                           []) == 0.0


def test_a_fit_on_too_few_dice_writes_it_off_and_loads(tmp_path):
    cal = calibrate_samples(synthetic_samples(4000, 2.0, 0, pip_error=0.02), "synthetic")
    assert not cal.profile.evidence.certified
    assert cal.profile.verdict.agreeing_confidence == 0.0
    assert any(n.startswith("agreeing_confidence off") for n in cal.profile.evidence.notes)
    path = tmp_path / "p.json"
    cal.profile.save(path)
    assert load_profile(path)[1].agreeing_confidence == 0.0


@pytest.mark.parametrize("floor, refused", [
    (0.5, r"agreeing_confidence 0\.5 \(committed 0\.9\)"),  # lowered
    (0.9, "without the fit's test"),  # turned back on where the fit turned it off
    (0.95, "without the fit's test"),
    (0.0, None),  # off is stricter
])
def test_a_floor_set_by_hand_is_refused(tmp_path, floor, refused):
    profile = calibrate_samples(synthetic_samples(4000, 2.0, 0), "synthetic").profile
    assert profile.verdict.agreeing_confidence == 0.0
    assert not profile.evidence.agreeing_certified
    data = json.loads(profile.model_dump_json())
    data["verdict"]["agreeing_confidence"] = floor
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    if refused:
        with pytest.raises(CalibrationError, match=refused):
            load_profile(path)
    else:
        assert load_profile(path)[1].agreeing_confidence == floor


def test_a_fit_that_tested_the_floor_keeps_it_on():
    """120,000 dice with pips: min_confidence certified under the floor, which adds nothing."""
    cal = calibrate_samples(synthetic_samples(120_000, 1.8, 5, pip_error=0.02), "synthetic")
    assert cal.profile.evidence.certified and cal.profile.evidence.agreeing_certified
    assert cal.profile.verdict.agreeing_confidence == BASE.agreeing_confidence


def test_a_profile_from_before_the_floor_loads_with_it_off(tmp_path):
    """Version 3 profiles certified min_confidence alone; the reads the floor adds were
    never put to their test."""
    profile = calibrate_samples(synthetic_samples(4000, 2.0, 0), "synthetic").profile
    data = json.loads(profile.model_dump_json())
    data["profile_version"] = 3
    data["verdict"]["agreeing_confidence"] = 0.9
    path = tmp_path / "v3.json"
    path.write_text(json.dumps(data))
    assert load_profile(path)[1].agreeing_confidence == 0.0
    data["profile_version"] = 4
    data["evidence"]["agreeing_certified"] = True  # as the fit writes it when tested
    path.write_text(json.dumps(data))
    assert load_profile(path)[1].agreeing_confidence == 0.9
