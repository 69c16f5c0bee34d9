"""The model calibration report: reliability diagram, confusion matrix, threshold curve and
flag curves as PNGs (OpenCV), plus the JSON summary."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from .fit import confidences
from .model import Calibration, acceptable
from .plots import BLUE, GREEN, GREY, ORANGE, RED, Axes, canvas, text
from .profile import RULE_PIPS
from .stats import clopper_pearson_upper


def _nines(p) -> np.ndarray:
    """-log10(1 - p): 0.99 -> 2, 0.9999 -> 4."""
    return -np.log10(np.clip(1.0 - np.asarray(p, float), 1e-9, 1.0))


def reliability_png(cal: Calibration, path: Path) -> None:
    """Held-out accuracy against confidence, before (T = 1) and after temperature scaling.

    Left: ten equal bins. Right: the same in "nines" (-log10 of 1 - p) where the
    auto-accept decision lives; a bin without errors is drawn at its 95 % bound.
    """
    img = canvas(1100, 520)
    held, t = cal.heldout, cal.profile.reader.temperature
    left = Axes(img, (80, 60, 400, 380), (0, 1), (0, 1), "Reliability (held-out half)",
                "confidence", "accuracy")
    left.ticks(np.linspace(0, 1, 6), np.linspace(0, 1, 6), lambda v: f"{v:.1f}",
               lambda v: f"{v:.1f}")
    left.line([0, 1], [0, 1], GREY, 1, "perfect")
    right = Axes(img, (620, 60, 420, 380), (0, 7), (0, 7), "Same, in nines",
                 "-log10(1 - confidence)", "-log10(error)")
    right.ticks(range(8), range(8), str, str)
    right.line([0, 7], [0, 7], GREY, 1)
    for temp, colour, name in ((1.0, RED, "T = 1"), (t, BLUE, f"T = {t:.3f}")):
        read, conf = confidences(held.logits, temp)
        ok = read == held.face
        edges = np.linspace(0, 1, 11)
        idx = np.clip(np.digitize(conf, edges) - 1, 0, 9)
        xs = [conf[idx == b].mean() for b in range(10) if (idx == b).sum() >= 5]
        ys = [ok[idx == b].mean() for b in range(10) if (idx == b).sum() >= 5]
        left.line(xs, ys, colour, 2, name)
        left.points(xs, ys, colour)
        nb = np.clip(np.floor(_nines(conf) * 2).astype(int), 0, 13)
        xs, ys, bound = [], [], []
        for b in range(14):
            sel = nb == b
            if sel.sum() >= 20:
                err = int((~ok[sel]).sum())
                rate = err / sel.sum() if err else clopper_pearson_upper(0, int(sel.sum()))
                xs.append(float(_nines(conf[sel].mean())))
                ys.append(float(_nines(1 - rate)))
                bound.append(err == 0)
        right.line(xs, ys, colour, 2, name)
        b = np.array(bound, bool)
        right.points(np.array(xs)[~b], np.array(ys)[~b], colour)
        right.points(np.array(xs)[b], np.array(ys)[b], colour, 7, hollow=True)
    text(img, "hollow: bin without errors, drawn at its 95 % bound (sample-size floor)",
         (620, 505), 0.45)
    ev = cal.profile.evidence
    text(img, f"held-out NLL {ev.nll_before:.4f} -> {ev.nll_after:.4f} nats", (80, 505), 0.5)
    cv2.imwrite(str(path), img)


def threshold_png(cal: Calibration, path: Path) -> None:
    """Error rate of auto-accepted reads and the share accepted, against the threshold.

    Accepted means what the verdict accepts: confidence at the threshold and, under the
    pip rule, pips that agree with the face read, on both halves alike.
    """
    acc, ev = cal.accept, cal.profile.evidence
    img = canvas(1000, 760)
    x = _nines(acc.grid)
    pips = " and pips agree" if ev.accept_rule == RULE_PIPS else " (confidence only)"
    top = Axes(img, (100, 60, 860, 380), (0, 7), (-7, 0),
               f"Error rate of auto-accepted reads{pips}", "", "log10 error rate")
    top.ticks(range(8), range(-7, 1), str, str)
    top.line([0, 7], [np.log10(ev.target_error)] * 2, ORANGE, 2, f"target {ev.target_error:g}")
    fit_rate = np.where(acc.k > 0, acc.k / np.maximum(acc.n, 1), np.nan)
    ok = ~np.isnan(fit_rate)
    top.line(x, np.log10(acc.ucb), BLUE, 2, f"fit half, {ev.confidence:.0%} Clopper-Pearson upper")
    top.line(x[ok], np.log10(fit_rate[ok]), GREY, 1, "fit half, observed (errors > 0)")
    read, conf = confidences(cal.heldout.logits, cal.profile.reader.temperature)
    can = acceptable(cal.heldout, read, ev.accept_rule)
    wrong = read != cal.heldout.face
    n_h = np.array([(can & (conf >= np.float32(t))).sum() for t in acc.grid])
    k_h = np.array([(can & wrong & (conf >= np.float32(t))).sum() for t in acc.grid])
    ok_h = k_h > 0
    top.line(x[ok_h], np.log10(k_h[ok_h] / n_h[ok_h]), GREEN, 2, "held-out half, observed")
    chosen = float(_nines(cal.profile.verdict.min_confidence))
    top.vline(chosen, RED, f"chosen {cal.profile.verdict.min_confidence:.7f}"
              f"{'' if ev.certified else ' (NOT certified)'}")
    bottom = Axes(img, (100, 500, 860, 200), (0, 7), (0, 1), "Share of reads auto-accepted",
                  "threshold, -log10(1 - min_confidence)", "share")
    bottom.ticks(range(8), np.linspace(0, 1, 5), str, lambda v: f"{v:.2f}")
    bottom.line(x, acc.n / max(ev.dice_fit, 1), BLUE, 2, "fit half")
    bottom.line(x, n_h / max(ev.dice_heldout, 1), GREEN, 2, "held-out half")
    bottom.vline(chosen, RED)
    cv2.imwrite(str(path), img)


def flags_png(cal: Calibration, path: Path) -> None:
    """Recall against false-flag rate for the cocked and die-on-die flags (held out)."""
    img = canvas(1000, 480)
    held = cal.heldout
    for k, (name, res, score, label) in enumerate(
            (("cocked (tilt)", cal.tilt, held.tilt, held.cocked_label),
             ("die on die (stacked)", cal.stacked, held.stacked, held.stacked_label))):
        ax = Axes(img, (90 + 480 * k, 60, 380, 330), (-4, 0), (0, 1),
                  f"{name}, held out", "log10 false-flag rate", "recall")
        ax.ticks(range(-4, 1), np.linspace(0, 1, 6), str, lambda v: f"{v:.1f}")
        ax.legend_top = 60 + 330 - 50
        pos, neg = score[label == 1], score[label == 0]
        if res is None or not len(pos) or not len(neg):
            text(img, "no labels", (150 + 480 * k, 220), 0.8, RED, 2)
            continue
        ts = np.unique(np.concatenate([np.quantile(neg, np.linspace(0, 1, 400)), [res.threshold]]))
        fr = np.array([(neg >= t).mean() for t in ts])
        rc = np.array([(pos >= t).mean() for t in ts])
        keep = fr > 0
        ax.line(np.log10(fr[keep]), rc[keep], BLUE, 2, "recall vs false flags")
        h_fr, h_rc = (neg >= res.threshold).mean(), (pos >= res.threshold).mean()
        ax.points([np.log10(max(h_fr, 1e-4))], [h_rc], RED, 6,
                  f"t={res.threshold:.3f}: {h_rc:.2%} at {h_fr:.2%}")
    cv2.imwrite(str(path), img)


def confusion_png(conf: np.ndarray, path: Path, title: str) -> None:
    """6x6 counts, rows truth and columns read; errors tinted red, the diagonal blue."""
    cell, m = 80, 70
    img = canvas(m + 6 * cell + 30, m + 6 * cell + 60)
    rows = conf.sum(1, keepdims=True).clip(min=1)
    for t in range(6):
        for p in range(6):
            frac = conf[t, p] / rows[t, 0]
            x, y = m + p * cell, m + t * cell
            if t == p:
                colour = (255, int(255 - 90 * frac), int(255 - 140 * frac))
            else:  # the error cells are what a reviewer looks for: any count shows red
                colour = (230, 230, 255) if conf[t, p] else (255, 255, 255)
            cv2.rectangle(img, (x, y), (x + cell, y + cell), colour, -1)
            cv2.rectangle(img, (x, y), (x + cell, y + cell), GREY, 1)
            text(img, str(int(conf[t, p])), (x + 8, y + 46), 0.5)
        text(img, str(t + 1), (m - 25, m + t * cell + 46), 0.7, thickness=2)
        text(img, str(t + 1), (m + t * cell + 34, m - 12), 0.7, thickness=2)
    text(img, title, (10, 25), 0.6, thickness=2)
    text(img, "rows: labelled face, columns: face read", (10, m + 6 * cell + 35), 0.5)
    cv2.imwrite(str(path), img)


def write_report(cal: Calibration, out_dir: Path, prefix: str = "calibration") -> list[Path]:
    """Writes the four PNGs into `out_dir`; returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{prefix}-{n}.png" for n in ("reliability", "confusion", "threshold",
                                                     "flags")]
    reliability_png(cal, paths[0])
    both = cal.fit if len(cal.heldout) == 0 else cal.heldout
    read, _ = confidences(both.logits, cal.profile.reader.temperature)
    conf = np.zeros((6, 6), np.int64)
    np.add.at(conf, (both.face.astype(int) - 1, read - 1), 1)
    acc = 1 - np.trace(conf) / max(conf.sum(), 1)
    confusion_png(conf, paths[1], f"held-out half, all reads: {acc:.3%} wrong")
    threshold_png(cal, paths[2])
    flags_png(cal, paths[3])
    return paths
