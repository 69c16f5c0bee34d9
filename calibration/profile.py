"""The model profile the edge loads: the reader's temperature and the verdict thresholds,
with the evidence they were chosen on."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from dicecall.vision.config import STRICT, ReaderConfig
from dicecall.vision.verdict import VerdictConfig

from . import CalibrationError

# 2: evidence records the accept rule and the reads left out for disagreeing pips (version 1
# profiles still load; they were fitted under the "confidence" rule).
# 3: the reader's views per crop the values were fitted on (earlier profiles: one view).
# 4: the verdict's agreeing floor (rule 46) was put to the fit's test; earlier profiles
# never tested the reads it adds, so they load with it off.
PROFILE_VERSION = 4
# Evidence.accept_rule: the reads the min_confidence error bound is certified on.
RULE_PIPS, RULE_CONF = "confidence_and_pips", "confidence"


class ReaderCalibration(BaseModel):
    """The calibrated `ReaderConfig` fields (same names and bounds)."""

    model_config = STRICT

    temperature: float = Field(gt=0.0, le=10.0, description="face logit temperature")
    views: int | None = Field(None, ge=1, le=8,
                              description="views per crop the reads were averaged over "
                                          "(vision/views.py); None: not known (samples)")


class Evidence(BaseModel):
    """What the thresholds rest on; the held-out numbers are an independent check."""

    model_config = STRICT

    source: str = Field(description="labelled set or samples file")
    reader_sha256: str | None = Field(None, description="sha256 of the reader.onnx calibrated")
    # The crops, and so the scores fitted, come from the detector's boxes; since session 37
    # the no-game reading and Craps / High Roll share a reader behind different detectors.
    detector_sha256: str | None = Field(None, description="sha256 of the detector whose boxes "
                                        "the reads were cut from (None: not recorded)")
    dice_fit: int = Field(ge=0, description="matched dice in the fit half")
    dice_heldout: int = Field(ge=0, description="matched dice in the held-out half")
    target_error: float = Field(gt=0, lt=1, description="error rate allowed among accepted")
    confidence: float = Field(gt=0, lt=1, description="one-sided level of the bounds")
    certified: bool = Field(description="the fit half's upper bound meets the target")
    accept_rule: Literal[RULE_CONF, RULE_PIPS] = Field(
        RULE_CONF, description="reads the bound is over: confidence_and_pips, those whose "
                                  "pip reading agrees (the only ones the verdict accepts); "
                                  "confidence, all reads (no pip readings recorded)")
    fit_pips_disagree: int = Field(0, ge=0, description="fit-half reads whose pips disagree "
                                                        "or are unreadable, left out")
    heldout_pips_disagree: int = Field(0, ge=0, description="the same, held-out half")
    fit_accepted: int = Field(ge=0, description="reads accepted (confidence at the threshold "
                                                "and, by the rule, pips agree), fit half")
    fit_errors: int = Field(ge=0, description="wrong among them")
    fit_upper: float = Field(ge=0, le=1, description="Clopper-Pearson upper bound, fit half")
    heldout_accepted: int = Field(ge=0, description="reads accepted, held-out half")
    heldout_errors: int = Field(ge=0, description="wrong among them")
    heldout_upper: float = Field(ge=0, le=1, description="Clopper-Pearson upper bound, held out")
    nll_before: float = Field(ge=0, description="held-out NLL at temperature 1, nats")
    nll_after: float = Field(ge=0, description="held-out NLL at the fitted temperature, nats")
    tilt: dict = Field(default_factory=dict, description="cocked flag rates, fit and held out")
    stacked: dict = Field(default_factory=dict, description="die-on-die flag rates")
    agreeing_certified: bool = Field(
        False, description="the fit tested the reads rule 46's agreeing floor adds and they "
                           "met the target (or the floor adds none); without it a profile "
                           "may not turn the floor on")
    notes: list[str] = Field(default_factory=list, description="warnings a person must read")


class ModelProfile(BaseModel):
    """`dicecall calibrate model` output; `load_profile` turns it into the edge's configs."""

    model_config = STRICT

    profile_version: int = Field(PROFILE_VERSION, ge=1, le=PROFILE_VERSION,
                                 description="format version")
    reader: ReaderCalibration = Field(description="-> ReaderConfig")
    verdict: VerdictConfig = Field(description="-> VerdictConfig, every field")
    evidence: Evidence = Field(description="how the values were chosen")

    def save(self, path: str | Path) -> None:
        from .files import write_atomic

        write_atomic(path, self.model_dump_json(indent=2) + "\n")


def file_sha256(path: str | Path) -> str | None:
    p = Path(path)
    return hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else None


# What `calibrate model` fits (calibration/model.py): the flag lines only ever lowered, the
# face confidence line from its certified error bound. Every other verdict value is the
# committed one, chosen on untouched suites (docs/verdicts.md).
_LOWERED = ("tilt_threshold", "stacked_threshold")


def _no_looser(path: Path, prof: ModelProfile) -> None:
    """Refuses a profile whose verdict is looser than the committed one where the fit could
    not have made it so: a hand-edited file, a rule switched off, or an uncertified
    confidence line below the default. A profile is a table's evidence-backed tightening,
    never a way round the lines a regulator was shown (session 39)."""
    have, base = prof.verdict.model_dump(), VerdictConfig().model_dump()
    looser = [f"{k} {have[k]} (committed {base[k]})" for k in _LOWERED if have[k] > base[k]]
    looser += [f"{k} {have[k]} (committed {v})" for k, v in base.items()
               if k not in (*_LOWERED, "min_confidence", "agreeing_confidence")
               and have[k] != v]
    # Rule 46's floor: 0 turns it off and a higher one takes fewer faces, both stricter; on,
    # under the profile's own confidence line, it needs the fit's test of its reads.
    floor = have["agreeing_confidence"]
    if 0 < floor < base["agreeing_confidence"] or (floor > 0 and base["agreeing_confidence"] == 0):
        looser.append(f"agreeing_confidence {floor} (committed {base['agreeing_confidence']})")
    elif 0 < floor < have["min_confidence"] and not prof.evidence.agreeing_certified \
            and prof.profile_version >= 4:  # earlier ones load with the floor off
        looser.append(f"agreeing_confidence {floor} under min_confidence "
                      f"{have['min_confidence']} without the fit's test of its reads")
    if have["min_confidence"] < base["min_confidence"] and not prof.evidence.certified:
        looser.append(f"min_confidence {have['min_confidence']} below the committed "
                      f"{base['min_confidence']} without a certified error bound")
    if looser:
        raise CalibrationError(f"{path}: its verdict differs from what `dicecall calibrate "
                               "model` writes: " + "; ".join(looser) + ". Fit the profile "
                               "again; the committed lines change only in the code")


def load_profile(path: str | Path, reader: ReaderConfig | None = None,
                 check_model: bool = True) -> tuple[ReaderConfig, VerdictConfig]:
    """Reads a profile into the edge's configs.

    Args:
        path: the profile JSON.
        reader: the reader settings to apply the temperature to (default settings if None).
        check_model: refuse a profile calibrated on a different reader.onnx than
            `reader.reader`, or behind a different detector than `reader.detector` when the
            profile records one (thresholds do not carry over between models).

    Returns:
        (ReaderConfig with the calibrated temperature and views, VerdictConfig).

    Raises:
        CalibrationError: missing or malformed file, a profile for another model, or a
            verdict looser than the fit could have written (`_no_looser`).
    """
    p = Path(path)
    if not p.is_file():
        raise CalibrationError(f"{p}: no such model profile")
    try:
        prof = ModelProfile.model_validate_json(p.read_text())
    except ValueError as exc:
        raise CalibrationError(f"{p}: not a model profile ({exc})") from exc
    base = reader or ReaderConfig()
    checks = ((("reader", prof.evidence.reader_sha256, base.reader),
               ("detector", prof.evidence.detector_sha256, base.detector))
              if check_model else ())
    for kind, want, path in checks:  # a file is hashed only when it is to be checked
        have = file_sha256(path) if want else None
        if want and have and want != have:
            raise CalibrationError(f"{p} was calibrated for another {kind} model (sha256 "
                                   f"{want[:12]}, {path} is {have[:12]}); calibrate again")
    _no_looser(p, prof)
    # Averaging views changes the logits and the flags' scores, so the reader reads as it did
    # when the values were fitted: profiles from before views existed were fitted on one.
    views = prof.reader.views or (1 if prof.profile_version < 3 else base.views)
    # only the fields `base` set, so `for_game`'s own choices (unsoftened crops) still hold
    cfg = ReaderConfig(**{**base.model_dump(exclude_unset=True),
                          "temperature": prof.reader.temperature, "views": views})
    verdict = prof.verdict if prof.profile_version >= 4 else \
        prof.verdict.model_copy(update={"agreeing_confidence": 0.0})
    return cfg, verdict
