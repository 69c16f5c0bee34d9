"""Fitting the reader's calibration: temperature, the auto-accept threshold with an exact
error bound, and the cocked / die-on-die flag thresholds."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dicecall.vision.decode import softmax

from . import CalibrationError
from .stats import clopper_pearson_upper, golden_min, min_samples_to_certify

# Candidate accept thresholds 1 - 10^-x, from 1 - 3e-7 (float32 confidences resolve about
# 6e-8 below 1) down to 0.5, fixed before looking at data so the scan is a valid fixed
# sequence test.
ACCEPT_GRID = 1.0 - 10.0 ** -np.arange(6.5, 0.29, -0.05)


def nll(logits: np.ndarray, face: np.ndarray, temperature: float) -> float:
    """Mean negative log-likelihood of the labelled faces, nats.

    Args:
        logits: (N, 6) raw logits.
        face: (N,) labels 1-6.
    """
    z = logits.astype(np.float64) / temperature
    z -= z.max(1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    return float(-logp[np.arange(len(face)), face.astype(np.int64) - 1].mean())


def fit_temperature(logits: np.ndarray, face: np.ndarray, lo: float = 0.05,
                    hi: float = 10.0) -> float:
    """The T in [lo, hi] minimising the NLL of softmax(logits / T).

    The NLL is convex in 1/T, so a golden-section search over 1/T finds the minimum.
    """
    if len(face) < 10:
        raise CalibrationError(f"{len(face)} labelled dice; need at least 10 to fit a temperature")
    beta = golden_min(lambda b: nll(logits, face, 1.0 / b), 1.0 / hi, 1.0 / lo, tol=1e-7)
    return float(np.clip(1.0 / beta, lo, hi))


def confidences(logits: np.ndarray, temperature: float) -> tuple[np.ndarray, np.ndarray]:
    """((N,) face read 1-6, (N,) float32 confidence) exactly as the edge computes them."""
    p = softmax(logits.astype(np.float32), temperature)
    read = p.argmax(1)
    return read + 1, p[np.arange(len(p)), read]


@dataclass(frozen=True)
class AcceptResult:
    """The auto-accept threshold and the evidence for it.

    Attributes:
        threshold: accept a reading when its confidence >= threshold.
        certified: the 95 % upper bound at the threshold is within the target.
        accepted, errors: reads accepted on the fit half, and wrong among them.
        upper: Clopper-Pearson upper bound on the error rate of accepted reads.
        needed: error-free accepted reads needed to certify the target at all.
        grid, n, k, ucb: the curve: (G,) thresholds, accepted, errors, upper bounds.
    """

    threshold: float
    certified: bool
    accepted: int
    errors: int
    upper: float
    needed: int
    grid: np.ndarray
    n: np.ndarray
    k: np.ndarray
    ucb: np.ndarray


def accept_threshold(conf: np.ndarray, correct: np.ndarray, target: float = 1e-4,
                     confidence: float = 0.95) -> AcceptResult:
    """Lowest threshold whose accepted reads have an error rate below `target`, certified.

    Thresholds are tested from the strictest down and the scan stops at the first that fails
    (fixed-sequence testing), so the chosen one holds with the stated confidence despite the
    scan. When none passes (too few dice: with no errors n reads only certify about 3/n at
    95 %), the result is not certified and the threshold is the strictest candidate, so the
    edge sends nearly every reading to review until more labelled dice certify one.

    Args:
        conf: (N,) confidences of the faces read.
        correct: (N,) bool, the face read is the labelled face.
        target: largest acceptable error rate of accepted reads.
        confidence: one-sided confidence level of the bound.
    """
    order = np.argsort(-conf, kind="stable")
    c, wrong = conf[order], np.cumsum(~correct[order])
    n = np.searchsorted(-c, -ACCEPT_GRID.astype(np.float32), side="right")
    k = np.where(n > 0, wrong[np.maximum(n - 1, 0)], 0)
    ucb = np.array([clopper_pearson_upper(int(e), int(m), confidence) for e, m in zip(k, n,
                                                                                      strict=True)])
    needed = min_samples_to_certify(target, confidence)
    # Thresholds accepting fewer than `needed` reads cannot pass whatever the labels say; the
    # sequence starts after them. That start depends on the confidences only, not on which
    # reads are wrong, so the test stays valid given the confidences.
    start = int(np.searchsorted(n, needed))  # n rises as the threshold falls
    passing = ucb[start:] <= target
    last = start + (len(passing) if passing.all() else int(np.argmin(passing))) - 1
    certified = last >= start
    j = last if certified else 0  # uncertified: the strictest; the edge sends most to review
    return AcceptResult(float(np.float32(ACCEPT_GRID[j])), certified, int(n[j]), int(k[j]),
                        float(ucb[j]), needed,
                        ACCEPT_GRID.copy(), n, k, ucb)


@dataclass(frozen=True)
class FlagResult:
    """A flag threshold (score >= threshold raises the flag) and its rates on the fit half."""

    threshold: float
    recall: float
    false_rate: float
    positives: int
    negatives: int


def flag_threshold(score: np.ndarray, label: np.ndarray, max_false: float) -> FlagResult | None:
    """The threshold with the highest recall whose false-flag rate is at most `max_false`.

    Args:
        score: (N,) probabilities.
        label: (N,) 1 positive, 0 negative, -1 unknown (ignored).
        max_false: largest fraction of negatives that may be flagged.

    Returns:
        None when the labels hold no positives or no negatives (nothing to fit).
    """
    pos, neg = score[label == 1], score[label == 0]
    if len(pos) == 0 or len(neg) == 0:
        return None
    allowed = int(np.floor(max_false * len(neg)))
    desc = np.sort(neg.astype(np.float32))[::-1]
    if allowed >= len(neg):
        t = np.float32(1e-6)
    else:
        # Just above the (allowed+1)-th highest negative, so exactly `allowed` are flagged.
        t = np.nextafter(desc[allowed], np.float32(np.inf))
    t = float(np.clip(t, np.float32(1e-6), np.nextafter(np.float32(1), np.float32(0))))
    return FlagResult(t, float((pos >= t).mean()), float((neg >= t).mean()), len(pos), len(neg))


def recall_threshold(score: np.ndarray, label: np.ndarray, min_recall: float) -> float | None:
    """The highest threshold that flags at least `min_recall` of the positives (None when
    the labels hold no positive). With few positives it is the lowest positive's score:
    a floor on recall is met on the data, never estimated past it."""
    pos = np.sort(score[label == 1].astype(np.float32))
    if len(pos) == 0:
        return None
    misses = int(np.floor((1.0 - min_recall) * len(pos) + 1e-9))
    return float(max(pos[min(misses, len(pos) - 1)], np.float32(1e-6)))


def flag_rates(score: np.ndarray, label: np.ndarray, threshold: float) -> dict:
    """Recall and false-flag rate of a threshold on labelled data (for the held-out half)."""
    pos, neg = score[label == 1], score[label == 0]
    return {"positives": len(pos), "negatives": len(neg),
            "recall": float((pos >= threshold).mean()) if len(pos) else None,
            "false_rate": float((neg >= threshold).mean()) if len(neg) else None}
