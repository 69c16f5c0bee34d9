"""Exposure, gain and white balance from one frame of an 18 % grey card.

The frame is gamma-encoded (picamera2's processed output); means are taken in linear light
(sRGB curve, close to the Pi's default tuning) because gains and exposure act on linear
sensor values. The result is a set of fixed picamera2 controls, with AE and AWB off, so
every frame of a shift is read under the same colour and brightness.
"""

from __future__ import annotations

from typing import Annotated

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from dicecall.vision.config import FROM_ARRAY, STRICT

from . import CalibrationError

TARGET_GREY = 0.18  # linear reflectance of a standard grey card
MAX_COLOUR_GAIN = 32.0  # libcamera's ColourGains range is 0-32


class CameraControls(BaseModel):
    """picamera2 controls to set once (names as in `Picamera2.set_controls`)."""

    # Strict like vision/config.py's STRICT, but a NaN gain reaches `_gains`, whose message
    # gives the range the camera takes.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    AeEnable: bool = Field(False, description="auto exposure off: the values below hold")
    AwbEnable: bool = Field(False, description="auto white balance off: ColourGains hold")
    ColourGains: Annotated[tuple[float, float], FROM_ARRAY] = Field(
        description="(red, blue) gains relative to green, each in (0, 32]")
    AnalogueGain: float = Field(ge=1.0, le=64.0, description="sensor analogue gain")
    ExposureTime: int = Field(ge=1, le=10_000_000, description="exposure time, microseconds")


    @field_validator("ColourGains")
    @classmethod
    def _gains(cls, v: tuple[float, float]) -> tuple[float, float]:
        if not all(np.isfinite(g) and 0 < g <= MAX_COLOUR_GAIN for g in v):
            raise ValueError(f"ColourGains must each be in (0, {MAX_COLOUR_GAIN:g}], got {v}")
        return v


class ExposureResult(BaseModel):
    """Controls plus what was measured, for the record."""

    model_config = STRICT

    controls: CameraControls = Field(description="what to set on the camera")
    region: Annotated[tuple[int, int, int, int], FROM_ARRAY] = Field(
        description="grey patch (x, y, w, h), pixels")
    mean_linear_bgr: Annotated[tuple[float, float, float], FROM_ARRAY] = Field(
        description="patch mean, linear 0-1")
    exposure_scale: float = Field(gt=0, description="total exposure change to reach 18 %")
    limited: bool = Field(description="True when the gain limit kept the patch below 18 %")


def srgb_to_linear(v: np.ndarray) -> np.ndarray:
    """sRGB-encoded values in 0-1 -> linear light."""
    v = np.asarray(v, np.float64)
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def find_grey_patch(image: np.ndarray, min_fraction: float = 0.005) -> tuple[int, int, int, int]:
    """The largest uniform, patch that is not strongly coloured: (x, y, w, h) in pixels.

    Uniform means a local standard deviation (7x7 window) below 4 % of the local mean in
    every channel; the region is eroded so its border, where blur mixes in the
    surroundings, is left out.

    Raises:
        CalibrationError: no uniform patch covers `min_fraction` of the frame.
    """
    f = image.astype(np.float32)
    mean = cv2.boxFilter(f, -1, (7, 7))
    std = np.sqrt(np.maximum(cv2.boxFilter(f * f, -1, (7, 7)) - mean * mean, 0))
    lum = mean.mean(axis=2)
    chroma = (mean.max(axis=2) - mean.min(axis=2)) / np.maximum(lum, 1)
    # A grey card under a colour cast is off-neutral but never strongly coloured (felt is).
    # Clipped patches are kept: the caller then says "clipped", the useful message.
    flat = (std < np.maximum(2.0, 0.04 * mean)).all(axis=2) & (lum > 15) & \
           (chroma < 0.6)
    flat = cv2.erode(flat.astype(np.uint8), np.ones((9, 9), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(flat, connectivity=4)
    if n < 2:
        raise CalibrationError("no uniform grey patch found; pass the card's region")
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    area = int(stats[best, cv2.CC_STAT_AREA])
    if area < min_fraction * flat.size:
        raise CalibrationError(f"the largest uniform patch has {area} px, under "
                               f"{min_fraction:.1%} of the frame; pass the card's region")
    x, y, w, h = (int(v) for v in stats[best, :4])
    return x, y, w, h


def calibrate_exposure(image: np.ndarray, region: tuple[int, int, int, int] | None = None,
                       gains: tuple[float, float] = (1.0, 1.0), exposure_us: int = 10_000,
                       analogue_gain: float = 1.0, max_exposure_us: int = 20_000,
                       max_gain: float = 8.0) -> ExposureResult:
    """Controls that make the grey card neutral and put it at 18 % grey.

    Args:
        image: (H, W, 3) uint8 BGR frame taken with the controls given.
        region: the card (x, y, w, h) in pixels, or None to find it.
        gains: the ColourGains (red, blue) the frame was taken with.
        exposure_us, analogue_gain: the exposure the frame was taken with.
        max_exposure_us: longest exposure allowed (motion blur); the rest goes to gain.
        max_gain: highest analogue gain allowed (noise).

    Raises:
        CalibrationError: the patch is clipped, too dark, or not found.
    """
    if not (all(np.isfinite(g) and 0 < g <= MAX_COLOUR_GAIN for g in gains)
            and exposure_us >= 1 and max_exposure_us >= 1 and np.isfinite(analogue_gain)
            and 1.0 <= analogue_gain <= 64.0):
        raise CalibrationError(
            f"the frame's controls must be what a camera can be set to: ColourGains in "
            f"(0, {MAX_COLOUR_GAIN:g}] (got {gains}), ExposureTime and the longest exposure at "
            f"least 1 us (got {exposure_us}, {max_exposure_us}), AnalogueGain 1-64 (got "
            f"{analogue_gain})")
    if region is not None:
        x, y, w, h = region
        ih, iw = image.shape[:2]
        if w <= 0 or h <= 0 or x < 0 or y < 0 or x + w > iw or y + h > ih:
            # Slicing would measure something else: a negative x counts from the right edge,
            # a region past the edge is cut short, and the felt is taken for the card.
            raise CalibrationError(f"region {tuple(region)} is not inside the {iw}x{ih} "
                                   "image; give the card as x,y,w,h within it")
    x, y, w, h = region or find_grey_patch(image)
    patch = image[y:y + h, x:x + w].reshape(-1, 3)
    if len(patch) < 16:
        raise CalibrationError(f"region {(x, y, w, h)} holds {len(patch)} pixels, need 16")
    if (patch >= 254).mean() > 0.01:
        raise CalibrationError("the grey card is clipped (over-exposed); halve the exposure "
                               "and take the frame again")
    lin = srgb_to_linear(patch.mean(axis=0) / 255.0)  # B, G, R
    if lin.min() < 0.005:
        raise CalibrationError("the grey card is too dark to measure; raise the exposure")
    b, g, r = lin
    new_gains = (gains[0] * g / r, gains[1] * g / b)
    scale = TARGET_GREY / g
    total = exposure_us * analogue_gain * scale
    exp = min(float(max_exposure_us), total)  # longer exposure first: gain adds noise
    gain = total / exp
    limited = bool(gain > max_gain)  # numpy bool from the card's mean; the model is strict
    gain = min(max(gain, 1.0), max_gain)
    if not all(0 < g <= MAX_COLOUR_GAIN for g in new_gains):
        raise CalibrationError(f"the patch {(x, y, w, h)} is not grey: it needs ColourGains "
                               f"{tuple(round(g, 2) for g in new_gains)}, outside what the camera "
                               f"takes (0-{MAX_COLOUR_GAIN:g}); pass the card's region")
    controls = CameraControls(ColourGains=(round(new_gains[0], 4), round(new_gains[1], 4)),
                              AnalogueGain=round(gain, 4), ExposureTime=max(1, round(exp)))
    return ExposureResult(controls=controls, region=(x, y, w, h),
                          mean_linear_bgr=tuple(round(float(v), 5) for v in lin),
                          exposure_scale=round(scale, 5), limited=limited)
