"""Grey card: gains that neutralise a known colour cast, exposure that reaches 18 %."""

from __future__ import annotations

import numpy as np
import pytest

from dicecall.calibration import CalibrationError
from dicecall.calibration.exposure import calibrate_exposure, find_grey_patch


def _encode(linear: np.ndarray) -> np.ndarray:
    v = np.clip(linear, 0, 1)
    srgb = np.where(v <= 0.0031308, 12.92 * v, 1.055 * v ** (1 / 2.4) - 0.055)
    return np.round(srgb * 255).astype(np.uint8)


def _scene(cast_bgr, exposure: float, seed: int = 0) -> np.ndarray:
    """A cluttered frame (felt, chips, dice-like blobs) with a grey card at (200, 120)."""
    rng = np.random.default_rng(seed)
    lin = np.empty((360, 480, 3))
    lin[:] = (0.03, 0.20, 0.05)  # green felt
    lin += rng.normal(0, 0.02, lin.shape)  # felt texture: not uniform
    for _ in range(40):
        x, y = rng.integers(0, 440), rng.integers(0, 320)
        lin[y:y + 30, x:x + 30] = rng.uniform(0, 0.9, 3) + rng.normal(0, 0.05, (30, 30, 3))
    lin[120:240, 200:360] = 0.18  # the card
    lin = lin * np.asarray(cast_bgr) * exposure
    return _encode(lin + rng.normal(0, 0.002, lin.shape))


def test_gains_and_exposure_recovered():
    cast = (0.7, 1.0, 1.35)  # B, G, R: warm light
    img = _scene(cast, exposure=0.5)
    res = calibrate_exposure(img, gains=(1.0, 1.0), exposure_us=8000, analogue_gain=1.0)
    x, y, w, h = res.region
    assert x >= 200 and x + w <= 360 and y >= 120 and y + h <= 240 and w * h > 5000
    red, blue = res.controls.ColourGains
    assert red == pytest.approx(1 / 1.35, rel=0.02) and blue == pytest.approx(1 / 0.7, rel=0.02)
    assert res.exposure_scale == pytest.approx(2.0, rel=0.03)
    total = res.controls.ExposureTime * res.controls.AnalogueGain
    assert total == pytest.approx(16000, rel=0.03)
    assert res.controls.ExposureTime == pytest.approx(16000, rel=0.03)
    assert res.controls.AnalogueGain == 1.0  # exposure time first, gain adds noise
    assert not res.controls.AeEnable and not res.controls.AwbEnable


def test_long_exposure_goes_to_gain_and_region_can_be_given():
    img = _scene((1, 1, 1), exposure=0.1)
    res = calibrate_exposure(img, region=(220, 140, 100, 80), exposure_us=10000,
                             max_exposure_us=20000)
    assert res.controls.ExposureTime == 20000
    assert res.controls.AnalogueGain == pytest.approx(5.0, rel=0.03)
    assert res.controls.ColourGains == pytest.approx((1.0, 1.0), rel=0.02)


def test_bad_frames_are_refused():
    with pytest.raises(CalibrationError, match="clipped"):
        calibrate_exposure(_scene((1, 1, 1), exposure=6.0))
    with pytest.raises(CalibrationError, match=r"no uniform grey patch|largest uniform patch"):
        find_grey_patch(np.random.default_rng(0).integers(0, 255, (200, 200, 3), np.uint8))
    with pytest.raises(CalibrationError, match="too dark"):
        calibrate_exposure(np.zeros((100, 100, 3), np.uint8), region=(10, 10, 50, 50))
