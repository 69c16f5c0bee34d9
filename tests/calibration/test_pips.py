"""The accept threshold fitted on the reads the verdict can accept: confidence >= t AND the
pip count agrees with the face (a disagreement is a dispute sent to review, 623a.9(c))."""

from __future__ import annotations

import json
from dataclasses import fields

import numpy as np
import pytest

from dicecall.calibration.fit import confidences
from dicecall.calibration.model import calibrate_samples, summary_lines
from dicecall.calibration.profile import ModelProfile, load_profile
from dicecall.calibration.scores import UNKNOWN, Samples, synthetic_samples


@pytest.fixture(scope="module")
def pips():
    # 2 % of pip readings wrong; a wrong classifier read slips past the pips in 1 % of cases.
    return synthetic_samples(120_000, temperature=1.8, seed=5, pip_error=0.02)


@pytest.fixture(scope="module")
def both(pips):
    """(pip-aware calibration, the same dice with no pip readings)."""
    blind = Samples(**{f.name: getattr(pips, f.name) for f in fields(Samples)
                       if f.name != "pip_face"})
    return calibrate_samples(pips, "synthetic+pips"), calibrate_samples(blind, "synthetic")


def _accepted(cal, s: Samples):
    read, conf = confidences(s.logits, cal.profile.reader.temperature)
    return read, conf >= cal.profile.verdict.min_confidence


def test_disagreeing_pips_carry_most_errors(pips):
    read, _ = confidences(pips.logits, 1.8)
    wrong = read != pips.face
    assert wrong.sum() > 1000
    assert (pips.pip_face[wrong] != read[wrong]).mean() > 0.95  # the premise of the rule


def test_pip_aware_threshold_is_lower_and_still_certified(both):
    aware, blind = both
    ev, ev0 = aware.profile.evidence, blind.profile.evidence
    assert ev.accept_rule == "confidence_and_pips" and ev0.accept_rule == "confidence"
    assert ev.certified and ev.fit_upper <= 1e-4
    assert aware.profile.verdict.min_confidence < blind.profile.verdict.min_confidence
    assert ev.heldout_accepted > ev0.heldout_accepted  # more good rolls auto-accepted ...
    # ... and the held-out error rate of what the verdict accepts stays near the target.
    assert ev.heldout_errors / ev.heldout_accepted < 2e-4
    assert aware.profile.reader.temperature == blind.profile.reader.temperature


def test_counts_are_the_reads_the_verdict_accepts(both):
    cal = both[0]
    ev = cal.profile.evidence
    read_f, _ = confidences(cal.fit.logits, cal.profile.reader.temperature)
    assert ev.fit_pips_disagree == int((cal.fit.pip_face != read_f).sum()) > 0
    read, accepted = _accepted(cal, cal.heldout)
    agree = cal.heldout.pip_face == read
    assert ev.heldout_pips_disagree == int((~agree).sum())
    assert ev.heldout_accepted == int((accepted & agree).sum())
    assert ev.heldout_errors == int((accepted & agree & (read != cal.heldout.face)).sum())
    lines = "\n".join(summary_lines(cal))
    assert "confidence and pips agree" in lines and str(ev.fit_pips_disagree) in lines


def test_old_samples_without_pips_load_and_fall_back(tmp_path, pips):
    small = pips[np.arange(4000)]
    np.savez_compressed(tmp_path / "old.npz", **{f.name: getattr(small, f.name)
                                                  for f in fields(Samples)
                                                  if f.name != "pip_face"})
    old = Samples.load(tmp_path / "old.npz")
    assert (old.pip_face == UNKNOWN).all() and not old.has_pips
    assert np.array_equal(old.logits, small.logits)
    cal = calibrate_samples(old, "old.npz")
    ev = cal.profile.evidence
    assert ev.accept_rule == "confidence" and ev.fit_pips_disagree == 0
    _, accepted = _accepted(cal, cal.heldout)
    assert ev.heldout_accepted == int(accepted.sum())  # no pip filter
    assert any("no pip reading recorded for 4000 of 4000" in n for n in ev.notes)
    assert "confidence only" in "\n".join(summary_lines(cal))
    small.save(tmp_path / "new.npz")  # and the new format keeps the readings
    assert np.array_equal(Samples.load(tmp_path / "new.npz").pip_face, small.pip_face)


def test_partly_unknown_pips_fall_back(pips):
    s = pips[np.arange(4000)]
    mixed = Samples.concat([s[np.arange(2000)], Samples(**{
        f.name: getattr(s[np.arange(2000, 4000)], f.name) for f in fields(Samples)
        if f.name != "pip_face"})])
    assert not mixed.has_pips
    assert calibrate_samples(mixed, "mixed").profile.evidence.accept_rule == "confidence"


def test_version_1_profiles_still_load(tmp_path, both):
    data = json.loads(both[0].profile.model_dump_json())
    assert data["profile_version"] == 4
    data["profile_version"] = 1
    for k in ("accept_rule", "fit_pips_disagree", "heldout_pips_disagree"):
        del data["evidence"][k]
    del data["reader"]["views"]
    del data["verdict"]["agreeing_confidence"], data["verdict"]["agreeing_max_dice"]
    (tmp_path / "v1.json").write_text(json.dumps(data))
    reader, verdict = load_profile(tmp_path / "v1.json")
    assert reader.views == 1  # fitted on one view
    # Its bound never saw the faces rule 46 adds (version 4): the floor is off.
    assert verdict == both[0].profile.verdict.model_copy(update={"agreeing_confidence": 0.0})
    ev = ModelProfile.model_validate(data).evidence
    assert ev.accept_rule == "confidence" and ev.fit_pips_disagree == 0  # what v1 fitted


def test_bad_pip_readings_are_refused(pips):
    s = pips[np.arange(3)]
    with pytest.raises(ValueError, match="pip_face"):
        Samples(**{**{f.name: getattr(s, f.name) for f in fields(Samples)},
                   "pip_face": np.array([1, 7, 2])})
