"""Chi-square fairness test of face counts (603a.13 dice inspection), against known values."""

from __future__ import annotations

import math
import random

import pytest

from dicecall.api.services.fairness import (
    chi2_sf,
    count_faces,
    face_test,
    fairness,
    gammaincc,
)
from dicecall.api.services.fairness_svg import report_svg


@pytest.mark.parametrize(("stat", "dof", "p"), [
    # Critical values from chi-square tables (5 dof: 11.0705 at 0.05, 15.0863 at 0.01,
    # 20.5150 at 0.001; 1 dof: 3.8415 at 0.05, 10.8276 at 0.001).
    (11.0705, 5, 0.05), (15.0863, 5, 0.01), (20.5150, 5, 0.001),
    (3.84146, 1, 0.05), (10.8276, 1, 0.001), (1.0, 5, 0.962566),
])
def test_chi2_sf_matches_tables(stat, dof, p):
    assert chi2_sf(stat, dof) == pytest.approx(p, rel=2e-4)


def test_gammaincc_closed_forms():
    # Q(1, x) = exp(-x); chi-square with 2 dof: sf(x) = exp(-x/2); Q(1/2, x) = erfc(sqrt x).
    for x in (0.01, 0.5, 1.0, 2.0, 7.5, 30.0):
        assert gammaincc(1.0, x) == pytest.approx(math.exp(-x), rel=1e-12)
        assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12)
        assert gammaincc(0.5, x) == pytest.approx(math.erfc(math.sqrt(x)), rel=1e-10)
    assert gammaincc(2.5, 0.0) == 1.0


def test_chi2_sf_five_dof_closed_form_into_the_far_tail():
    # 5 dof: sf(x) = erfc(sqrt(x/2)) + sqrt(2x/pi) exp(-x/2) (1 + x/3).
    for x in (0.3, 4.35, 6.0, 12.0, 40.0, 90.0):
        exact = (math.erfc(math.sqrt(x / 2))
                 + math.sqrt(2 * x / math.pi) * math.exp(-x / 2) * (1 + x / 3))
        assert chi2_sf(x, 5) == pytest.approx(exact, rel=1e-10)
    with pytest.raises(ValueError):
        gammaincc(0.0, 1.0)


def test_fair_counts_pass_and_a_loaded_die_alerts():
    fair = face_test("die 1", [100, 98, 103, 99, 101, 99], alpha=0.001)
    assert not fair.biased and fair.p_value > 0.99
    # A die showing six twice as often as the others over 700 throws.
    loaded = face_test("die 2", [100, 100, 100, 100, 100, 200], alpha=0.001)
    # expected 700/6 each: (5 (100/6)^2 + (500/6)^2) / (700/6) = 500/7
    assert loaded.chi2 == pytest.approx(500 / 7, rel=1e-12)
    assert loaded.biased and loaded.p_value < 1e-12


def test_too_few_throws_are_not_tested():
    t = face_test("die 1", [0, 0, 0, 0, 0, 20], alpha=0.001)
    assert t.chi2 is None and t.p_value is None and not t.biased


def test_counts_per_die_position_and_pooled():
    per_die, pooled = count_faces([[1, 6], [1, 5], [2, 6]])
    assert per_die == [[2, 1, 0, 0, 0, 0], [0, 0, 0, 0, 1, 2]]
    assert pooled == [2, 1, 0, 0, 1, 2]
    with pytest.raises(ValueError):
        count_faces([[7, 1]])


def test_report_flags_only_the_biased_die_and_plots_it():
    rng = random.Random(3)
    rolls = [[rng.randint(1, 6), 6 if rng.random() < 0.3 else rng.randint(1, 6)]
             for _ in range(3000)]
    report = fairness(rolls, alpha=0.001)
    assert report["alert"] and "die 2" in report["biased"] and "die 1" not in report["biased"]
    assert report["section"] == "603a.13"
    group = {"dice_set": None, "rolls": 3000, "alert": report["alert"],
             "tests": report["tests"]}
    svg = report_svg({**report, "sets": [group]})
    assert svg.startswith("<svg") and svg.count("<rect") == 18 and "biased at alpha" in svg
    assert "No dice set recorded, 3000 rolls: BIASED" in svg


def test_uniform_rolls_raise_no_alert():
    rng = random.Random(11)
    report = fairness([[rng.randint(1, 6) for _ in range(2)] for _ in range(3000)], 0.001)
    assert not report["alert"], report["tests"]
