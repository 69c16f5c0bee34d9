"""`Dice`: the one dataclass of parallel numpy arrays that flows through vision.

Coordinates are pixels of the original frame, x to the right and y down, origin at the
top-left corner of the top-left pixel. Row k of every array describes die k.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

_SHAPES = {  # field -> (trailing shape, dtype)
    "centers": ((2,), np.float32),
    "boxes": ((4,), np.float32),
    "face": ((), np.int8),
    "face_probs": ((6,), np.float32),
    "pip_face": ((), np.int8),
    "tilt": ((), np.float32),
    "stacked": ((), np.float32),
    "det_score": ((), np.float32),
    "up_margin": ((), np.float32),
    "lamp_tilt": ((), np.float32),
    "die_prob": ((), np.float32),
}

_RANGES = {"face": (1, 6), "pip_face": (0, 6)}  # pip_face 0: the count is not a face


@dataclass(frozen=True, eq=False)
class Dice:
    """Every die found in one frame.

    Attributes:
        centers: (N, 2) float32, die centre (x, y) in pixels.
        boxes: (N, 4) float32, (x0, y0, x1, y1) in pixels of the whole visible die.
        face: (N,) int8, the face classifier's reading 1-6.
        face_probs: (N, 6) float32, calibrated probabilities of faces 1-6 (rows sum to 1).
        pip_face: (N,) int8, the independent reading from the pip heatmap: pips counted,
            1-6, or 0 when the count is not a valid face.
        tilt: (N,) float32, probability that the die is not flat (cocked).
        stacked: (N,) float32, probability that the die rests on another die.
        det_score: (N,) float32, detector confidence that this is a die.
        up_margin: (N,) float32, the reader's estimate in degrees of how much nearer the
            top face points up than the next face, read up to 45 (45 = 45 or more, as a
            flat die's 90; under 10 the die rests on an edge, a void). NaN, the default,
            when the reader has no such output.
        lamp_tilt: (N,) float32, degrees between the die's top face and the floor read from
            the lamps the camera switches (`vision.lamps`), independent of the reader. NaN,
            the default, where the table has no lamps or the face could not be read.
        die_prob: (N,) float32, the reader's die-or-not probability of the place: at least
            its line for every die it keeps from a frame, under it only for a place added
            to fill a count it was short of (`ReaderConfig.short_die`; a crop read alone,
            `read_crop`, is vouched a die whatever it reads). NaN, the default, where not
            read.
    """

    centers: np.ndarray
    boxes: np.ndarray
    face: np.ndarray
    face_probs: np.ndarray
    pip_face: np.ndarray
    tilt: np.ndarray
    stacked: np.ndarray
    det_score: np.ndarray
    up_margin: np.ndarray | None = None
    lamp_tilt: np.ndarray | None = None
    die_prob: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = None
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:  # an optional reading the reader did not make
                value = np.full(n, np.nan)
            value = np.asarray(value)
            tail, dtype = _SHAPES[f.name]
            if n is None:
                n = value.shape[0] if value.ndim else -1
            expected = (n, *tail)
            if value.shape != expected:
                raise ValueError(f"Dice.{f.name}: expected shape {expected}, got {value.shape}")
            if f.name in _RANGES and value.size:
                lo, hi = _RANGES[f.name]
                # `confidence` indexes face_probs by face - 1: a 0 would read face 6's.
                if not (np.all(value >= lo) and np.all(value <= hi)):
                    raise ValueError(f"Dice.{f.name}: values must be {lo}-{hi}, got "
                                     f"{sorted(set(np.asarray(value).ravel().tolist()))}")
            object.__setattr__(self, f.name, value.astype(dtype, copy=False))

    def __len__(self) -> int:
        return int(self.centers.shape[0])

    def __getitem__(self, index) -> Dice:
        """Selects dice by boolean mask, index array or slice; always returns `Dice`."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        return Dice(**{f.name: getattr(self, f.name)[index] for f in fields(self)})

    @property
    def confidence(self) -> np.ndarray:
        """(N,) float32: probability of the face read."""
        return self.face_probs[np.arange(len(self)), self.face.astype(np.int64) - 1]

    @classmethod
    def empty(cls) -> Dice:
        return cls(**{name: np.zeros((0, *tail), dtype) for name, (tail, dtype) in _SHAPES.items()})

    @classmethod
    def concat(cls, parts: list[Dice]) -> Dice:
        if not parts:
            return cls.empty()
        return cls(**{f.name: np.concatenate([getattr(p, f.name) for p in parts])
                      for f in fields(cls)})

    def to_json(self) -> list[dict]:
        """The per-die objects of the `dicecall predict --json` contract (DESIGN.md)."""
        out = []
        for k in range(len(self)):
            x0, y0, x1, y1 = (float(v) for v in self.boxes[k])
            out.append({
                "x": round(float(self.centers[k, 0]), 2), "y": round(float(self.centers[k, 1]), 2),
                "w": round(x1 - x0, 2), "h": round(y1 - y0, 2), "face": int(self.face[k]),
                "confidence": round(float(self.confidence[k]), 5),
                "pip_face": int(self.pip_face[k]),
                "tilted": bool(self.tilt[k] >= 0.5), "stacked": bool(self.stacked[k] >= 0.5),
            })
        return out
