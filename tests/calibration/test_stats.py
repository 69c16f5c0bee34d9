"""Exact bounds: Clopper-Pearson against closed forms, known values and brute force."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicecall.calibration.stats import (
    betainc,
    binom_cdf,
    clopper_pearson_upper,
    golden_min,
    min_samples_to_certify,
)


def test_zero_errors_is_the_rule_of_three():
    for n in (10, 1000, 30000):
        assert clopper_pearson_upper(0, n) == pytest.approx(1 - 0.05 ** (1 / n), rel=1e-9)
    for n in (1000, 30000):  # -ln(0.05) = 3.0: "zero errors in n certifies about 3/n"
        assert clopper_pearson_upper(0, n) == pytest.approx(3 / n, rel=0.01)


def test_known_values():
    # R: binom.test(1, 10, alternative="less")$conf.int[2] = 0.3941633
    assert clopper_pearson_upper(1, 10) == pytest.approx(0.3941633, abs=1e-6)
    # R: binom.test(5, 1000, alternative="less")$conf.int[2] = 0.01048
    assert clopper_pearson_upper(5, 1000) == pytest.approx(0.010484, abs=2e-6)
    assert clopper_pearson_upper(0, 0) == 1.0 and clopper_pearson_upper(7, 7) == 1.0


def test_certifying_one_in_ten_thousand_needs_about_thirty_thousand_reads():
    n = min_samples_to_certify(1e-4)
    assert n == 29956
    assert clopper_pearson_upper(0, n) <= 1e-4 < clopper_pearson_upper(0, n - 1)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 60), data=st.data())
def test_upper_bound_solves_the_binomial_tail(n, data):
    k = data.draw(st.integers(0, n - 1))
    p = clopper_pearson_upper(k, n)
    tail = sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k + 1))
    assert tail == pytest.approx(0.05, abs=1e-7)
    assert binom_cdf(k, n, p) == pytest.approx(tail, abs=1e-9)


def test_betainc_symmetry_and_bad_input():
    assert betainc(2.5, 4.0, 0.3) == pytest.approx(1 - betainc(4.0, 2.5, 0.7), abs=1e-12)
    with pytest.raises(ValueError, match="errors <= n"):
        clopper_pearson_upper(5, 3)
    with pytest.raises(ValueError, match="confidence"):
        clopper_pearson_upper(0, 3, 1.5)


def test_golden_min():
    assert golden_min(lambda x: (x - 1.7) ** 2, 0.0, 10.0) == pytest.approx(1.7, abs=1e-5)
