"""Model calibration end to end on `Samples`: split, fit on one half, check on the other."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dicecall.vision.verdict import VerdictConfig, agreeing_faces

from . import CalibrationError
from .fit import (
    AcceptResult,
    FlagResult,
    accept_threshold,
    confidences,
    fit_temperature,
    flag_rates,
    flag_threshold,
    nll,
    recall_threshold,
)
from .profile import RULE_CONF, RULE_PIPS, Evidence, ModelProfile, ReaderCalibration
from .scores import Samples
from .stats import clopper_pearson_upper

MIN_DICE = 50  # below this per half, nothing said about rates means anything
# The share of cocked dice the default tilt line flags on the verdict's tuning suite: Props &
# Hops dice in the shaker, not on a die, read by the committed runtime at 0.05 (97.17 % of
# 283 on seeds 9200-9202, session 26). The same line flags 93.91 % of the same throws rendered
# cleaner (docs/verdicts.md, session 26): the tilt reads lower on cleaner pictures, so a
# table's own footage may need a lower line to catch as many. Off by default (rule 17, session
# 26): on footage of dice leaning on the wall the line already flagged 98.5 % of the cocked
# dice, most of them leaning steeply, while it let through more of the shallow leans that
# decide the Props & Hops line. A floor protects only if the footage's cocked dice lean as
# shallowly as the ones a table must catch.
MIN_COCKED_RECALL = 0.97


@dataclass(frozen=True)
class Calibration:
    """The profile plus what the report draws."""

    profile: ModelProfile
    fit: Samples
    heldout: Samples
    accept: AcceptResult
    tilt: FlagResult | None
    stacked: FlagResult | None


def acceptable(samples: Samples, read: np.ndarray, rule: str) -> np.ndarray:
    """(N,) bool: the reads the verdict can auto-accept, whatever their confidence.

    The verdict sends a die whose pip count differs from the classifier's face (or whose
    pips are unreadable) to review as a dispute over the uppermost face (623a.9(c),
    `readings_disagree`), so only reads whose pips agree are ever auto-accepted, and the error
    rate that matters is the one among them. Under RULE_CONF (no pip readings recorded) every
    read counts, which bounds the same rate from above, more strictly than needed.
    """
    if rule == RULE_CONF:
        return np.ones(len(samples), bool)
    return samples.pip_face == read


def _agreeing_floor(fit: Samples, read: np.ndarray, conf: np.ndarray, ok: np.ndarray,
                    acc: AcceptResult, base: VerdictConfig, rule: str, target: float,
                    confidence: float, notes: list[str]) -> float:
    """The table's `agreeing_confidence`: the committed floor where this table's reads
    certify it, else 0 (off).

    Rule 46 (docs/verdicts.md) counts a face under `min_confidence` when its pips agree, it is
    not a 1 and it reaches the floor. The error bound certified for `min_confidence` covers
    only the reads over that line, so the floor's reads are put to the same test, after it
    and only if it passed (fixed-sequence testing): the fit half's reads the verdict would
    accept with the floor, wrong ones counted, upper bound at most `target`.
    """
    floor = base.agreeing_confidence
    if floor <= 0 or floor >= acc.threshold:
        return floor  # off, or it accepts nothing the certified line does not
    if rule != RULE_PIPS:
        notes.append("agreeing_confidence off (0): without pip readings the reads rule 46 "
                     "would add cannot be told from the rest")
        return 0.0
    # `ok`: the pips agree (RULE_PIPS); the verdict takes the line's reads and the floor's.
    taken = ok & ((conf >= acc.threshold) | agreeing_faces(read, fit.pip_face, conf, floor))
    n, wrong = int(taken.sum()), int((read[taken] != fit.face[taken]).sum())
    upper = clopper_pearson_upper(wrong, n, confidence)
    if acc.certified and upper <= target:
        notes.append(f"agreeing_confidence {floor}: with its reads, {wrong} of {n} accepted "
                     f"fit reads wrong, upper {upper:.2e} (certified for {target:g})")
        return floor
    notes.append(f"agreeing_confidence off (0): with the reads rule 46 would add, {wrong} of "
                 f"{n} accepted fit reads are wrong, upper {upper:.2e} over the target "
                 f"{target:g}" + ("" if acc.certified else ", and min_confidence is not "
                                  "certified"))
    return 0.0


def _flag(fit: Samples, held: Samples, which: str, max_false: float, default: float,
          notes: list[str], min_recall: float | None = None
          ) -> tuple[float, FlagResult | None, dict]:
    score_f, label_f = (fit.tilt, fit.cocked_label) if which == "tilt" else \
        (fit.stacked, fit.stacked_label)
    score_h, label_h = (held.tilt, held.cocked_label) if which == "tilt" else \
        (held.stacked, held.stacked_label)
    res = flag_threshold(score_f, label_f, max_false)
    if res is None:
        notes.append(f"{which}: the labels give no positives or no negatives; threshold left "
                     f"at {default}")
        return default, None, {}
    threshold = res.threshold
    if threshold > default:
        # The verdict's default was chosen so unsafe rolls are caught (docs/verdicts.md); a
        # missed cocked or stacked die can settle a no roll, a false flag only costs a review
        # or a rethrow. So the false-flag cap may lower a threshold, never raise it.
        at_default = flag_rates(score_f, label_f, default)
        notes.append(f"{which}: at most {max_false:.2%} false flags needs a threshold of "
                     f"{res.threshold:.3f} (recall {res.recall:.1%}); the default {default} "
                     f"(recall {at_default['recall']:.1%}, {at_default['false_rate']:.1%} "
                     f"false flags on the fit half) is kept, as the safer of the two")
        threshold = default
    floor = None if min_recall is None else recall_threshold(score_f, label_f, min_recall)
    if floor is not None and floor < threshold:
        # A missed cocked die can settle a no roll; the floor, like the cap, only lowers.
        before = flag_rates(score_f, label_f, threshold)
        notes.append(f"{which}: {threshold:.3f} flags {before['recall']:.1%} of the "
                     f"{res.positives} positives of the fit half, under the {min_recall:.1%} "
                     f"floor; lowered to {floor:.4f}")
        threshold = floor
    fitted = flag_rates(score_f, label_f, threshold)
    return threshold, res, {"threshold": threshold, "max_false_rate": max_false,
                            "min_recall": min_recall, "cap_threshold": res.threshold,
                            "fit": {"recall": fitted["recall"], "false_rate": fitted["false_rate"],
                                    "positives": res.positives, "negatives": res.negatives},
                            "heldout": flag_rates(score_h, label_h, threshold)}


def calibrate_samples(samples: Samples, source: str, target: float = 1e-4,
                      confidence: float = 0.95, max_false_flag: float = 0.005,
                      base: VerdictConfig | None = None, reader_sha256: str | None = None,
                      views: int | None = None, detector_sha256: str | None = None,
                      min_cocked_recall: float | None = None) -> Calibration:
    """Fits temperature and thresholds on the fit half and measures them on the held-out half.

    Args:
        samples: matched dice with labels.
        source: where they came from (recorded).
        target: error rate allowed among auto-accepted reads.
        confidence: one-sided level of the Clopper-Pearson bounds.
        max_false_flag: largest share of flat (or not stacked) dice that may be flagged; the
            DESIGN target is 0.5 % false no-rolls.
        base: verdict settings whose uncalibrated fields (void_margin) are kept.
        reader_sha256, views, detector_sha256: the reader model, views per crop and the
            detector whose boxes the crops were cut from (recorded, so the edge reads as the
            calibration did).
        min_cocked_recall: the tilt line is lowered, never raised, until it flags at least
            this share of the fit half's cocked dice (None, the default: no floor;
            MIN_COCKED_RECALL is the tuning suite's share at the default line). The stacked
            line has none: a die on a die mostly hides the one beneath, and the roll is caught
            a die short (docs/verdicts.md).

    Raises:
        CalibrationError: fewer than MIN_DICE dice in either half.
    """
    base = base or VerdictConfig()
    fit, held = samples.halves()
    if min(len(fit), len(held)) < MIN_DICE:
        raise CalibrationError(f"{len(fit)} fit and {len(held)} held-out dice; need at least "
                               f"{MIN_DICE} in each half to calibrate")
    notes: list[str] = []
    rule = RULE_PIPS if samples.has_pips else RULE_CONF
    if rule == RULE_CONF:
        missing = int((samples.pip_face < 0).sum())
        notes.append(f"no pip reading recorded for {missing} of {len(samples)} dice (a "
                     "samples file from before pip readings were collected, or simulated "
                     "without --pip-error): min_confidence is certified on all reads, not "
                     "only those whose pips agree, so it is stricter than needed; collect the "
                     "samples again to fit it on the reads the verdict can accept")
    temp = fit_temperature(fit.logits, fit.face)
    read, conf = confidences(fit.logits, temp)
    ok = acceptable(fit, read, rule)
    acc = accept_threshold(conf[ok], (read == fit.face)[ok], target, confidence)
    if not acc.certified:
        notes.append(f"NOT CERTIFIED: no threshold keeps the {confidence:.0%} upper bound on "
                     f"the error rate under {target:g} (fit half: {len(fit)} dice, "
                     f"{int(ok.sum())} the verdict can accept; at least "
                     f"{acc.needed} error-free accepted reads are needed); the strictest "
                     "threshold is written so the edge sends nearly every read to review")
    read_h, conf_h = confidences(held.logits, temp)
    ok_h = acceptable(held, read_h, rule)
    excluded_h = int((~ok_h).sum())
    ok_h &= conf_h >= acc.threshold
    err_h = int((read_h[ok_h] != held.face[ok_h]).sum())
    tilt_t, tilt, tilt_ev = _flag(fit, held, "tilt", max_false_flag, base.tilt_threshold, notes,
                                  min_cocked_recall)
    stk_t, stk, stk_ev = _flag(fit, held, "stacked", max_false_flag, base.stacked_threshold,
                               notes)
    agreeing = _agreeing_floor(fit, read, conf, ok, acc, base, rule, target, confidence, notes)
    agreeing_certified = agreeing > 0 and acc.certified
    verdict = VerdictConfig(**{**base.model_dump(), "min_confidence": acc.threshold,
                               "tilt_threshold": tilt_t, "stacked_threshold": stk_t,
                               "agreeing_confidence": agreeing})
    evidence = Evidence(
        source=source, reader_sha256=reader_sha256, detector_sha256=detector_sha256,
        dice_fit=len(fit), dice_heldout=len(held),
        target_error=target, confidence=confidence, certified=acc.certified,
        accept_rule=rule, fit_pips_disagree=int((~ok).sum()), heldout_pips_disagree=excluded_h,
        fit_accepted=acc.accepted, fit_errors=acc.errors, fit_upper=acc.upper,
        heldout_accepted=int(ok_h.sum()), heldout_errors=err_h,
        heldout_upper=clopper_pearson_upper(err_h, int(ok_h.sum()), confidence),
        nll_before=nll(held.logits, held.face, 1.0), nll_after=nll(held.logits, held.face, temp),
        tilt=tilt_ev, stacked=stk_ev, agreeing_certified=agreeing_certified, notes=notes)
    profile = ModelProfile(reader=ReaderCalibration(temperature=round(temp, 6), views=views),
                           verdict=verdict, evidence=evidence)
    return Calibration(profile, fit, held, acc, tilt, stk)


def summary_lines(cal: Calibration) -> list[str]:
    """A few lines for the terminal."""
    ev, v = cal.profile.evidence, cal.profile.verdict
    rate = ev.heldout_errors / max(ev.heldout_accepted, 1)
    if ev.accept_rule == RULE_PIPS:
        rule = (f"accept rule: confidence and pips agree ({ev.fit_pips_disagree} fit and "
                f"{ev.heldout_pips_disagree} held-out reads whose pips disagree or are "
                "unreadable go to review and are left out of the bound)")
    else:
        rule = "accept rule: confidence only (no pip readings; bound over all reads)"
    lines = [
        f"dice: {ev.dice_fit} fit, {ev.dice_heldout} held out ({ev.source})",
        f"temperature {cal.profile.reader.temperature:.4f}: held-out NLL {ev.nll_before:.4f} "
        f"-> {ev.nll_after:.4f}",
        f"min_confidence {v.min_confidence:.7f}: fit {ev.fit_errors}/{ev.fit_accepted} wrong, "
        f"upper {ev.fit_upper:.2e} ({'certified' if ev.certified else 'NOT certified'} for "
        f"{ev.target_error:g})",
        f"  {rule}",
        f"  held out: {ev.heldout_errors}/{ev.heldout_accepted} wrong = {rate:.2e}, "
        f"{ev.confidence:.0%} upper {ev.heldout_upper:.2e}, "
        f"{ev.heldout_accepted / max(ev.dice_heldout, 1):.1%} auto-accepted",
    ]
    for name, e in (("tilt_threshold", ev.tilt), ("stacked_threshold", ev.stacked)):
        if e:
            h = e["heldout"]
            recall, false = (None if h[k] is None else round(h[k], 4)
                             for k in ("recall", "false_rate"))
            lines.append(f"{name} {e['threshold']:.4f}: held-out recall {recall}, "
                         f"false flags {false}")
    return lines + [f"note: {n}" for n in ev.notes]
