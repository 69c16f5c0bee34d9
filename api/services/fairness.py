"""Dice fairness: chi-square goodness of fit of face counts against a fair die, and its plot.

Dice in play must pass receipt and inspection under 58 Pa. Code 603a.13 (cited by 668a.3(a)
for Props & Hops and 675a.3(a) for High Roll; Craps dice sets are changed when they show
signs of tampering or alteration, 623a.7(d)). A die
whose faces come up unevenly over a shift is a reason to take the set out of play and
inspect it: the test below raises that alert when the p-value falls under the configured
significance. Pure functions: no database, no HTTP.

The p-value is the regularized upper incomplete gamma Q(k/2, x/2) (Numerical Recipes
6.2: a series below a + 1, a continued fraction above), so no scipy is needed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

SECTION = "603a.13"
FACES = 6
_EPS = 1e-15
_TINY = 1e-300


def _lower_series(a: float, x: float) -> float:
    """P(a, x) by its power series (converges fast for x < a + 1)."""
    term = total = 1.0 / a
    n = a
    for _ in range(10_000):
        n += 1.0
        term *= x / n
        total += term
        if abs(term) < abs(total) * _EPS:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_fraction(a: float, x: float) -> float:
    """Q(a, x) by Lentz's continued fraction (converges fast for x >= a + 1)."""
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def gammaincc(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) = Gamma(a, x) / Gamma(a)."""
    if a <= 0 or x < 0 or math.isnan(x):
        raise ValueError(f"gammaincc needs a > 0 and x >= 0, got a={a}, x={x}")
    if x == 0:
        return 1.0
    if x < a + 1.0:
        return 1.0 - _lower_series(a, x)
    return _upper_fraction(a, x)


def chi2_sf(stat: float, dof: int) -> float:
    """P(X >= stat) for X chi-square with `dof` degrees of freedom."""
    if dof < 1:
        raise ValueError(f"dof must be at least 1, got {dof}")
    return gammaincc(dof / 2.0, max(stat, 0.0) / 2.0)


@dataclass(frozen=True)
class FaceTest:
    """Counts of faces 1-6, the chi-square statistic against uniform and its p-value."""

    label: str
    counts: tuple[int, ...]
    n: int
    chi2: float | None  # None when there are too few throws to test
    p_value: float | None
    biased: bool

    def as_dict(self) -> dict:
        return {"label": self.label, "counts": list(self.counts), "n": self.n,
                "chi2": self.chi2, "p_value": self.p_value, "biased": self.biased}


def face_test(label: str, counts: Sequence[int], alpha: float, min_expected: float = 5.0
              ) -> FaceTest:
    """Chi-square goodness of fit of six face counts against a fair die (5 dof).

    Below `min_expected` throws per face the chi-square approximation is poor, so no
    statistic is given and no alert is raised (the usual rule: every expected count >= 5).
    """
    if len(counts) != FACES or any(c < 0 for c in counts):
        raise ValueError(f"need six non-negative face counts, got {list(counts)}")
    n = int(sum(counts))
    if n / FACES < min_expected:
        return FaceTest(label, tuple(counts), n, None, None, False)
    expected = n / FACES
    stat = sum((c - expected) ** 2 for c in counts) / expected
    p = chi2_sf(stat, FACES - 1)
    return FaceTest(label, tuple(counts), n, stat, p, p < alpha)


def count_faces(rolls: Iterable[Sequence[int]]) -> tuple[list[list[int]], list[int]]:
    """Counts per die position (the reader's order of dice in a roll) and pooled.

    The camera does not know which physical die is which, so "die k" is the k-th die in the
    roll as read; the pooled counts cover every die of the set.
    """
    per_die: list[list[int]] = []
    pooled = [0] * FACES
    for faces in rolls:
        for k, face in enumerate(faces):
            if not 1 <= face <= FACES:
                raise ValueError(f"face {face} is not 1-6")
            while len(per_die) <= k:
                per_die.append([0] * FACES)
            per_die[k][face - 1] += 1
            pooled[face - 1] += 1
    return per_die, pooled


def fairness(rolls: Iterable[Sequence[int]], alpha: float) -> dict:
    """Every die position and the pooled set tested; `alert` when any is biased."""
    per_die, pooled = count_faces(rolls)
    tests = [face_test(f"die {k + 1}", c, alpha) for k, c in enumerate(per_die)]
    tests.append(face_test("all dice", pooled, alpha))
    biased = [t.label for t in tests if t.biased]
    return {"alpha": alpha, "section": SECTION, "tests": [t.as_dict() for t in tests],
            "alert": bool(biased), "biased": biased}
