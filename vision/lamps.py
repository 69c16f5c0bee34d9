"""The tilt of each die's top face from lamps the camera switches (Props & Hops, 668a.3(h)).

One frame under the room's light cannot tell a die leaning 5-12 degrees from a flat one
(`docs/verdicts.md`, sessions 23-50). Three lamps around the camera, switched on one frame
each while the dice are still, can: a face's brightness under lamp k, less the frame with
every lamp off, is rho x (n . l_k), and the three give the face's normal n whatever its
colour rho (photometric stereo, Woodham 1980). The angle between n and the floor's normal
is the die's tilt in degrees, read from pixels with no model.

Pure: frames and boxes in, degrees out. The edge captures the frames (`edge/lamps.py`), the
verdict judges the degrees (`VerdictConfig.lamp_cocked_deg`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Annotated

import numpy as np
from pydantic import BaseModel, Field, field_validator

from .config import FROM_ARRAY, STRICT

Three = Annotated[tuple[float, float, float], FROM_ARRAY]

# The face is read inside the central half of the die's box: on a die seen from above that
# is its top face whatever the box's slack, and a die leaning 5-12 degrees barely moves it.
# Session 61 on seed 5600 (scratch): the central 0.3 / 0.5 / 0.7 of the runtime's box
# flagged 9.4 / 7.7 / 20.9 % of flat dice at 95 % of the shallow leans caught, the labelled
# top face drawn 15 % in 8.1 %; at 0.7 the side faces of a leaning die come in.
FACE_SHARE = 0.5
CLIPPED = 250  # a channel this bright in a lamp's frame may be clipped: no shading left
MIN_SIDE = 3  # pixels across the square read: fewer hold no face, only its edge or a pip


class LampRig(BaseModel):
    """Where the three lamps are, seen from the dice, in the floor's frame (x, y along the
    floor, z up). Lamps far from the shaker compared with its size light every die from
    the same direction; the rig is measured once per table.

    Attributes:
        azimuth_deg: each lamp's direction around the vertical, degrees.
        elevation_deg: each lamp's height above the floor's plane, degrees.
        min_signal: the weakest lamp shading (B + G + R levels of rho x |n|, over the three
            lamps) a die may give and still be read: a black die under dim lamps is noise.
    """

    model_config = STRICT

    azimuth_deg: Three = Field(
        (90.0, 210.0, 330.0), description="each lamp's azimuth around the vertical, degrees")
    elevation_deg: Three = Field(
        (45.0, 45.0, 45.0), description="each lamp's elevation above the floor, degrees")
    min_signal: float = Field(30.0, ge=0.0, le=765.0,
                              description="weakest shading (B+G+R levels) read as a normal")
    # No two lamps shine alike: a lamp 10 % brighter leans every face's normal 2-3 degrees
    # towards it. `dicecall calibrate lamps` measures them on the flat, empty floor.
    gains: Three = Field((1.0, 1.0, 1.0), description="each lamp's brightness relative to "
                                                      "their mean (dicecall calibrate lamps)")

    @field_validator("gains")
    @classmethod
    def _positive(cls, gains: tuple[float, float, float]) -> tuple[float, float, float]:
        if not all(0.05 <= g <= 20 for g in gains):
            raise ValueError(f"each lamp's gain is 0.05-20, got {list(gains)}")
        return gains

    def directions(self) -> np.ndarray:
        """(3, 3) unit vectors towards the lamps, one per row; raises ValueError when the
        three lie in one plane with the die (no normal can be solved)."""
        az, el = np.radians(self.azimuth_deg), np.radians(self.elevation_deg)
        dirs = np.stack([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)], 1)
        if abs(np.linalg.det(dirs)) < 1e-3:
            raise ValueError(f"lamps at azimuths {self.azimuth_deg} and elevations "
                             f"{self.elevation_deg} do not span three directions")
        return dirs


def face_light(frames: Sequence[np.ndarray], boxes: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """Each die's top-face brightness in each frame: a square of `FACE_SHARE` x the box's
    shorter side about its centre.

    Args:
        frames: K BGR uint8 frames (H, W, 3) of one still scene.
        boxes: (N, 4) x0, y0, x1, y1 in pixels of the frames.

    Returns:
        (N, K) float: the median over the square of B + G + R (the median is the body's,
        not its pips'; the sum keeps a red or blue die's light), NaN where the square is
        under `MIN_SIDE` pixels across; and (N,) bool, True where a channel of a lamp's
        frame reaches `CLIPPED` in over a tenth of the square.
    """
    n, k = len(boxes), len(frames)
    out, clipped = np.full((n, k), np.nan), np.zeros(n, bool)
    if not k:
        return out, clipped
    h, w = frames[0].shape[:2]
    for i, (x0, y0, x1, y1) in enumerate(np.asarray(boxes, np.float64).tolist()):
        half = min(x1 - x0, y1 - y0) * FACE_SHARE / 2
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        a, b = max(math.floor(cx - half), 0), max(math.floor(cy - half), 0)
        c, d = min(math.ceil(cx + half), w), min(math.ceil(cy + half), h)
        if c - a < MIN_SIDE or d - b < MIN_SIDE:
            continue
        for j, f in enumerate(frames):
            px = f[b:d, a:c].reshape(-1, 3)
            out[i, j] = float(np.median(px.astype(np.float32).sum(1)))
            clipped[i] |= bool(j and np.mean(px.max(1) >= CLIPPED) > 0.1)
    return out, clipped


def lamp_tilt(frames: Sequence[np.ndarray], boxes: np.ndarray, rig: LampRig) -> np.ndarray:
    """Degrees between each die's top face and the floor, from the lamps' frames.

    Args:
        frames: four BGR uint8 frames of the still scene, the camera's exposure fixed: every
            lamp off, then lamp 1, 2 and 3 alone on, in `rig`'s order.
        boxes: (N, 4) the dice's boxes in pixels of the frames.
        rig: where the lamps are.

    Returns:
        (N,) float32 degrees, 0 for a face level with the floor; NaN where the face cannot
        be read (too small, clipped, or too dark for the lamps to shade).

    Raises:
        ValueError: not four frames, or frames of different sizes.
    """
    if len(frames) != 4:
        raise ValueError(f"lamp_tilt: expected 4 frames (lamps off, then each lamp), got "
                         f"{len(frames)}")
    if len({f.shape for f in frames}) != 1:
        raise ValueError(f"lamp_tilt: frames differ in size: {[f.shape for f in frames]}")
    light, clipped = face_light(frames, boxes)
    # rho x n, one row per die: the three lamps' shading solved for the normal
    shading = (light[:, 1:] - light[:, :1]) / np.asarray(rig.gains)
    g = np.linalg.solve(rig.directions(), shading.T).T
    size = np.linalg.norm(g, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        deg = np.degrees(np.arccos(np.clip(g[:, 2] / size, -1.0, 1.0)))
    deg[clipped | ~(size >= rig.min_signal)] = np.nan
    return deg.astype(np.float32)


def fit_gains(frames: Sequence[np.ndarray], region: tuple[int, int, int, int],
              rig: LampRig) -> tuple[float, float, float]:
    """Each lamp's brightness, from its frames of a flat, level, plain surface (the empty
    shaker's floor): its shading there, less every lamp off, is gain_k x rho x sin(elevation_k).

    Args:
        frames: the four lamp frames (every lamp off, then each lamp alone).
        region: x, y, w, h of the flat surface in pixels.
        rig: the lamps' directions (its gains are not used).

    Returns:
        The three gains, scaled to a mean of 1.

    Raises:
        ValueError: not four frames, a region outside them, a clipped or unlit surface.
    """
    if len(frames) != 4:
        raise ValueError(f"expected 4 frames (lamps off, then each lamp), got {len(frames)}")
    x, y, w, h = region
    if w < MIN_SIDE or h < MIN_SIDE or x < 0 or y < 0 or any(
            x + w > f.shape[1] or y + h > f.shape[0] for f in frames):
        raise ValueError(f"region {list(region)} is not a patch inside the frames")
    patches = [f[y:y + h, x:x + w].reshape(-1, 3) for f in frames]
    if any(np.mean(px.max(1) >= CLIPPED) > 0.1 for px in patches[1:]):
        raise ValueError("the surface clips under a lamp: lower the exposure or the lamps")
    light = np.array([np.median(px.astype(np.float32).sum(1)) for px in patches])
    shading = light[1:] - light[0]
    if not (shading >= rig.min_signal).all():
        raise ValueError(f"the lamps shade the surface by {np.round(shading, 1).tolist()} "
                         f"levels, under min_signal {rig.min_signal:g}: brighter lamps or "
                         "a lighter surface")
    gains = shading / rig.directions()[:, 2]
    return tuple(float(g) for g in gains / gains.mean())
