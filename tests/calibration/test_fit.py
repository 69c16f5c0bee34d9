"""Model calibration on synthetic score distributions with known answers."""

from __future__ import annotations

import numpy as np
import pytest

from dicecall.calibration import CalibrationError
from dicecall.calibration.fit import (
    ACCEPT_GRID,
    accept_threshold,
    confidences,
    fit_temperature,
    flag_threshold,
    nll,
    recall_threshold,
)
from dicecall.calibration.model import MIN_COCKED_RECALL, calibrate_samples
from dicecall.calibration.scores import Samples, synthetic_samples
from dicecall.calibration.stats import clopper_pearson_upper
from dicecall.vision.verdict import VerdictConfig


@pytest.fixture(scope="module")
def big():
    return synthetic_samples(120_000, temperature=1.8, seed=5)


@pytest.mark.parametrize("true_t", [0.6, 1.0, 2.5])
def test_temperature_of_known_logits_is_found(true_t):
    s = synthetic_samples(30_000, temperature=true_t, seed=1, hard_fraction=0.3)
    t = fit_temperature(s.logits, s.face)
    assert t == pytest.approx(true_t, rel=0.04)
    assert nll(s.logits, s.face, t) <= nll(s.logits, s.face, 1.0)


def test_accept_threshold_known_answer():
    # Confidences on the grid; every error sits below 0.99, none above: the fixed-sequence
    # scan must walk down to the first grid point at or above 0.99 and stop there.
    rng = np.random.default_rng(0)
    conf = np.concatenate([rng.uniform(0.9991, 0.99999, 60_000), rng.uniform(0.5, 0.98, 5000)])
    correct = np.ones(len(conf), bool)
    correct[60_000:60_500] = False
    res = accept_threshold(conf.astype(np.float32), correct, target=1e-4)
    assert res.certified and res.errors == 0 and res.accepted == 60_000
    assert 0.98 < res.threshold <= 0.9991
    assert res.upper == pytest.approx(clopper_pearson_upper(0, 60_000))


def test_too_few_samples_cannot_certify():
    conf = np.full(1000, 0.99999, np.float32)  # 1000 perfect reads certify only ~3e-3
    res = accept_threshold(conf, np.ones(1000, bool), target=1e-4)
    assert not res.certified and res.needed == 29956
    assert res.threshold == pytest.approx(ACCEPT_GRID[0], rel=1e-7)  # the strictest
    cal = calibrate_samples(synthetic_samples(3000, 1.5, 2), "small")
    assert not cal.profile.evidence.certified
    assert any("NOT CERTIFIED" in n and "29956" in n for n in cal.profile.evidence.notes)


def test_calibration_meets_the_target_on_held_out_dice(big):
    # Defaults above what the false-flag cap needs, so the cap decides (see the next test).
    lax = VerdictConfig(tilt_threshold=0.99, stacked_threshold=0.99)
    cal = calibrate_samples(big, "synthetic", target=1e-4, base=lax)
    ev, v = cal.profile.evidence, cal.profile.verdict
    assert cal.profile.reader.temperature == pytest.approx(1.8, rel=0.03)
    assert ev.certified and ev.fit_upper <= 1e-4
    assert ev.dice_fit + ev.dice_heldout == len(big)
    # The held-out half is independent: its observed error rate stays near the target.
    assert ev.heldout_errors / ev.heldout_accepted < 2e-4
    assert ev.heldout_accepted > 0.8 * ev.dice_heldout
    _, conf = confidences(cal.heldout.logits, cal.profile.reader.temperature)
    assert (conf >= v.min_confidence).sum() == ev.heldout_accepted
    assert ev.nll_after < ev.nll_before
    assert ev.tilt["fit"]["false_rate"] <= 0.005 and ev.tilt["heldout"]["recall"] > 0.95
    assert ev.stacked["fit"]["false_rate"] <= 0.005
    assert 0 < v.tilt_threshold < 1 and 0 < v.stacked_threshold < 1


def test_calibration_never_makes_a_flag_less_sensitive_than_the_default(big):
    """The false-flag cap may lower a flag threshold, never raise it above the verdict's
    default: a missed cocked die can settle a no roll (668a.3(h)), a false flag only sends
    the roll to review or a rethrow."""
    base = VerdictConfig(tilt_threshold=0.1, stacked_threshold=0.25)
    cal = calibrate_samples(big, "synthetic", target=1e-4, base=base)
    ev, v = cal.profile.evidence, cal.profile.verdict
    assert ev.tilt["cap_threshold"] > 0.1 and v.tilt_threshold == 0.1
    assert ev.tilt["threshold"] == 0.1 and ev.tilt["fit"]["false_rate"] > 0.005
    assert any(n.startswith("tilt: at most 0.50% false flags") and "is kept" in n
               for n in ev.notes)
    assert v.stacked_threshold <= 0.25


def test_flag_threshold_bounds_false_flags_and_maximises_recall():
    rng = np.random.default_rng(3)
    neg = rng.uniform(0, 1, 10_000).astype(np.float32)
    pos = rng.uniform(0.9, 1, 500).astype(np.float32)
    score = np.concatenate([neg, pos])
    label = np.concatenate([np.zeros(10_000, np.int8), np.ones(500, np.int8)])
    res = flag_threshold(score, label, 0.005)
    assert res.false_rate <= 0.005 and (neg >= res.threshold).sum() == 50  # exactly 0.5 %
    assert res.threshold == pytest.approx(0.995, abs=0.002)
    assert res.recall == pytest.approx((pos >= res.threshold).mean())
    assert flag_threshold(score, np.full(len(score), -1, np.int8), 0.005) is None


def test_split_is_deterministic_and_by_image(big):
    fit, held = big.halves()
    order = np.random.default_rng(0).permutation(len(big))
    fit2, _ = big[order].halves()
    assert sorted(fit.group.tolist()) == sorted(fit2.group.tolist())
    assert not set(fit.group.tolist()) & set(held.group.tolist())
    assert abs(len(fit) - len(held)) < 0.02 * len(big)


def test_samples_round_trip_and_bad_input(tmp_path, big):
    small = big[np.arange(100)]
    small.save(tmp_path / "s.npz", temperature=1.8)
    back = Samples.load(tmp_path / "s.npz")
    assert np.array_equal(back.logits, small.logits) and np.array_equal(back.group, small.group)
    with pytest.raises(ValueError, match="expected shape"):
        Samples(logits=np.zeros((3, 5)), face=np.ones(3), tilt=np.zeros(3), stacked=np.zeros(3),
                cocked_label=np.zeros(3), stacked_label=np.zeros(3), group=np.zeros(3))
    with pytest.raises(CalibrationError, match="at least 50"):
        calibrate_samples(small[np.arange(60)], "tiny")
    with pytest.raises(CalibrationError, match="no such samples file"):
        Samples.load(tmp_path / "missing.npz")


def test_recall_threshold_flags_the_asked_share_of_positives_on_the_data():
    score = np.array([0.9, 0.01, 0.02, 0.5, 0.3, 0.04, 0.6, 0.7, 0.8, 0.05], np.float32)
    label = np.array([0, 1, 1, 1, 1, 1, 1, 1, 1, 1], np.int8)  # nine positives
    t = recall_threshold(score, label, 0.85)  # one miss allowed: the second lowest
    assert t == pytest.approx(0.02) and (score[label == 1] >= t).mean() >= 0.85
    assert recall_threshold(score, label, 1.0) == pytest.approx(0.01)
    assert recall_threshold(score, label, 0.5) == pytest.approx(0.3)  # four misses
    assert recall_threshold(score, np.zeros(10, np.int8), 0.9) is None


def test_a_table_whose_tilt_reads_low_gets_a_lower_line_to_keep_catching_cocked_dice(big):
    """The cleaner a camera's pictures, the lower the tilt reads (docs/verdicts.md, session
    26): asked for, the floor lowers the line until it flags that share of the fit half's
    cocked dice; it never raises one, and it is off unless asked for (rule 17)."""
    # the cocked dice read far lower, the flat ones as before: the false-flag cap keeps 0.05
    tilt = np.where(big.cocked_label == 1, big.tilt * 0.08, big.tilt).astype(np.float32)
    low = Samples(**{**big.__dict__, "tilt": tilt})
    off = calibrate_samples(low, "low", min_cocked_recall=None)
    on = calibrate_samples(low, "low", min_cocked_recall=MIN_COCKED_RECALL)
    assert calibrate_samples(low, "low").profile.verdict == off.profile.verdict  # off: default
    assert off.profile.verdict.tilt_threshold == VerdictConfig().tilt_threshold
    assert off.profile.evidence.tilt["fit"]["recall"] < 0.97
    v, ev = on.profile.verdict, on.profile.evidence
    assert v.tilt_threshold < off.profile.verdict.tilt_threshold
    assert ev.tilt["fit"]["recall"] >= 0.97 and ev.tilt["min_recall"] == MIN_COCKED_RECALL == 0.97
    assert any(n.startswith("tilt:") and "floor; lowered to" in n for n in ev.notes)
    # a table whose tilt already catches the share keeps the default line
    floored, plain = (calibrate_samples(big, "big", min_cocked_recall=r).profile.verdict
                      for r in (MIN_COCKED_RECALL, None))
    assert floored.tilt_threshold == plain.tilt_threshold
