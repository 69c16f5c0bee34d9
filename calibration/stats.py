"""Small exact statistics without scipy: the regularised incomplete beta, Clopper-Pearson
bounds, and a golden-section search for convex 1-D objectives."""

from __future__ import annotations

import math
from collections.abc import Callable

_EPS = 1e-15


def _beta_cf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta (modified Lentz, Numerical Recipes 6.4)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                    -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < _EPS:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    # The fraction converges fast on the side of the mean; use the symmetry on the other.
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_cf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_cf(b, a, 1.0 - x) / b


def binom_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return betainc(n - k, k + 1, 1.0 - p)


def clopper_pearson_upper(errors: int, n: int, confidence: float = 0.95) -> float:
    """One-sided exact upper confidence bound on an error rate.

    The p with P(X <= errors | n, p) = 1 - confidence, so the true rate lies below it with
    the stated confidence. With no errors this is 1 - (1 - confidence)^(1/n), about 3/n at
    95 %: n reads without an error certify a rate of 1 in 10,000 only when n >= ~30,000.

    Args:
        errors: wrong reads among the n, 0 <= errors <= n.
        n: reads counted; 0 gives the vacuous bound 1.
        confidence: one-sided level in (0, 1).
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if not 0 <= errors <= n:
        raise ValueError(f"need 0 <= errors <= n, got errors={errors}, n={n}")
    if n == 0 or errors == n:
        return 1.0
    alpha = 1.0 - confidence
    if errors == 0:
        return -math.expm1(math.log(alpha) / n)
    lo, hi = errors / n, 1.0
    for _ in range(200):  # bisection: binom_cdf falls as p rises
        mid = (lo + hi) / 2
        if binom_cdf(errors, n, mid) > alpha:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(hi, 1e-12):
            break
    return hi


def min_samples_to_certify(target: float, confidence: float = 0.95) -> int:
    """Error-free reads needed before the upper bound can fall to `target`."""
    return math.ceil(math.log(1.0 - confidence) / math.log1p(-target))


def golden_min(f: Callable[[float], float], lo: float, hi: float, tol: float = 1e-6) -> float:
    """Argmin of a unimodal f on [lo, hi] by golden-section search."""
    g = (math.sqrt(5) - 1) / 2
    a, b = lo, hi
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    while b - a > tol * max(1.0, abs(a) + abs(b)):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    return (a + b) / 2
