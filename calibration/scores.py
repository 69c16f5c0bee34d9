"""Per-die reader outputs matched to labels (`Samples`), saved as .npz so thresholds can be
refitted without the model, and synthetic score distributions with a known answer."""

from __future__ import annotations

import hashlib
import zipfile
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from . import CalibrationError

UNKNOWN = -1  # label value for a flag the source does not give (YOLO has no cocked labels)
# Fields an old samples file may lack, and the value they load with. pip_face was added
# later: a file saved before it loads with every pip reading UNKNOWN.
OPTIONAL = ("pip_face",)


@dataclass(frozen=True, eq=False)
class Samples:
    """N labelled dice the reader found.

    Attributes:
        logits: (N, 6) float32 raw face logits (temperature 1), faces 1-6.
        face: (N,) int8 labelled face 1-6.
        tilt: (N,) float32 tilt probability from the reader.
        stacked: (N,) float32 stacked probability from the reader.
        cocked_label: (N,) int8 1 cocked, 0 flat, -1 unknown.
        stacked_label: (N,) int8 1 die on die, 0 not, -1 unknown.
        group: (N,) int64 image key (dice of one image share it; the split is by image).
        pip_face: (N,) int8 the independent pip reading (`Dice.pip_face`): 1-6, 0 when the
            pips were unreadable, -1 (UNKNOWN) when it was not recorded (old samples files).
    """

    logits: np.ndarray
    face: np.ndarray
    tilt: np.ndarray
    stacked: np.ndarray
    cocked_label: np.ndarray
    stacked_label: np.ndarray
    group: np.ndarray
    pip_face: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = len(self.face)
        pips = np.full(n, UNKNOWN) if self.pip_face is None else np.asarray(self.pip_face)
        if pips.size and not ((pips >= UNKNOWN) & (pips <= 6)).all():
            raise ValueError("Samples.pip_face: readings must be 1-6, 0 or -1 (unknown)")
        object.__setattr__(self, "pip_face", pips.astype(np.int8))
        for f in fields(self):
            v = getattr(self, f.name)
            want = (n, 6) if f.name == "logits" else (n,)
            if v.shape != want:
                raise ValueError(f"Samples.{f.name}: expected shape {want}, got {v.shape}")
        if n and not ((self.face >= 1) & (self.face <= 6)).all():
            raise ValueError("Samples.face: labels must be 1-6")

    @property
    def has_pips(self) -> bool:
        """Every die carries its pip reading (0 included), so the verdict's pip check can be
        applied to these samples."""
        return bool((self.pip_face != UNKNOWN).all())

    def __len__(self) -> int:
        return len(self.face)

    def __getitem__(self, mask) -> Samples:
        return Samples(**{f.name: getattr(self, f.name)[mask] for f in fields(self)})

    def halves(self) -> tuple[Samples, Samples]:
        """(fit, held-out): a deterministic split by image key, so both halves are the same
        whichever order the images were read in, and no image is in both."""
        fit = self.group % 2 == 0
        return self[fit], self[~fit]

    def save(self, path: str | Path, **meta) -> None:
        import io

        from .files import write_atomic

        buf = io.BytesIO()  # written whole: a cut-short .npz is not a samples file
        np.savez_compressed(buf, **{f.name: getattr(self, f.name) for f in fields(self)},
                            **{f"meta_{k}": np.asarray(v) for k, v in meta.items()})
        write_atomic(path, buf.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> Samples:
        p = Path(path)
        if not p.is_file():
            raise CalibrationError(f"{p}: no such samples file")
        try:
            with np.load(p) as data:
                if not hasattr(data, "files"):
                    raise CalibrationError(f"{p}: not a samples file (one array, not a .npz)")
                missing = {f.name for f in fields(cls)} - set(data.files) - set(OPTIONAL)
                if missing:
                    raise CalibrationError(f"{p}: not a samples file (missing "
                                           f"{sorted(missing)})")
                return cls(**{f.name: data[f.name] for f in fields(cls)
                              if f.name in data.files})
        except CalibrationError:
            raise
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            # numpy reads a non-.npz as a pickle it refuses, or a cut-short zip: a traceback.
            raise CalibrationError(f"{p}: not a samples .npz ({exc})") from exc

    @staticmethod
    def meta(path: str | Path) -> dict:
        """What `save` recorded beside the arrays (`meta_*`): the reader's and detector's
        sha256 and the views of the reads, for a profile fitted on them to bind to."""
        with np.load(Path(path)) as data:
            return {k[5:]: data[k].item() for k in data.files if k.startswith("meta_")}

    @classmethod
    def concat(cls, parts: list[Samples]) -> Samples:
        if not parts:
            raise CalibrationError("no labelled dice were matched; nothing to calibrate")
        return cls(**{f.name: np.concatenate([getattr(p, f.name) for p in parts])
                      for f in fields(cls)})


def image_key(name: str) -> int:
    """A stable 63-bit key of an image name (the split must not depend on Python's hash)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little") >> 1


def synthetic_samples(n: int, temperature: float, seed: int, hard_fraction: float = 0.08,
                      cocked_rate: float = 0.05, stacked_rate: float = 0.03,
                      pip_error: float | None = None) -> Samples:
    """Dice whose true answers are known, for tests and for reports before a model exists.

    Calibrated logits z are drawn first (one class with a margin: most dice easy, a
    `hard_fraction` with small margins); the label is then DRAWN from softmax(z), so z is
    calibrated by construction; the logits returned are temperature * z, so the temperature
    that calibrates them is `temperature`. Tilt and stacked probabilities are sigmoids of
    Gaussian logits that separate the classes well but not perfectly.

    The pip reading, when simulated, is the labelled face except for a `pip_error` share of
    dice: half of those are unreadable (0) and half repeat the classifier's reading, a
    failure both readers share (glare hiding a pip fools both). So a wrong classifier read
    is caught by the pips except in pip_error / 2 of cases, as with an independent reader.

    Args:
        n: dice; two dice per image for the split.
        temperature: the answer temperature scaling should find, > 0.
        seed: random seed.
        pip_error: share of dice whose pips are misread, in [0, 1]; None: no pip readings
            (every pip_face UNKNOWN, as in samples saved before they were recorded).
    """
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 1.0, (n, 6))
    top = rng.integers(0, 6, n)
    hard = rng.random(n) < hard_fraction
    margin = np.where(hard, rng.uniform(0.0, 9.0, n), rng.normal(15.0, 2.5, n))
    z[np.arange(n), top] += margin
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    face = (p.cumsum(1) < rng.random((n, 1))).sum(1).clip(0, 5) + 1
    cocked = rng.random(n) < cocked_rate
    stacked = rng.random(n) < stacked_rate
    tilt = np.where(cocked, rng.normal(3.0, 1.6, n), rng.normal(-4.5, 1.6, n))
    stack = np.where(stacked, rng.normal(3.5, 1.5, n), rng.normal(-5.0, 1.5, n))
    group = np.array([image_key(f"synthetic-{seed}-{i // 2}") for i in range(n)], np.int64)
    pips = None
    if pip_error is not None:  # drawn last, so the other arrays do not depend on it
        miss = rng.random(n)
        pips = np.where(miss >= pip_error, face, np.where(miss < pip_error / 2, 0,
                                                           z.argmax(1) + 1))
    return Samples(logits=(temperature * z).astype(np.float32), face=face.astype(np.int8),
                   tilt=(1 / (1 + np.exp(-tilt))).astype(np.float32),
                   stacked=(1 / (1 + np.exp(-stack))).astype(np.float32),
                   cocked_label=cocked.astype(np.int8), stacked_label=stacked.astype(np.int8),
                   group=group, pip_face=pips)
