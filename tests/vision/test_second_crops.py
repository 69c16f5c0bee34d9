"""Second crops of each die (`ReaderConfig.tilt_crop_scale`, `face_crop_scale`,
`margin_crop_scale`, session 16): the detector's box on a cocked die is often too small or
off its centre, and the runtime's 1.5 crop then cuts part of the die away (docs/verdicts.md).
Each second crop changes only the reading it is for; the pips and the die-on-die flag are
always read from the 1.5 crop."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dicecall.vision.config import ReaderConfig
from dicecall.vision.decode import sigmoid, softmax
from dicecall.vision.images import load_image
from dicecall.vision.preprocess import crops, die_geometry
from dicecall.vision.reader import DiceReader, read_batch

FRAME = Path(__file__).parents[1] / "data" / "frames" / "throwbox_0000005.jpg"


@pytest.fixture(scope="module")
def frame() -> np.ndarray:
    return load_image(FRAME)


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.asarray(p, np.float64)
    return np.log(p / (1.0 - p))


def test_the_tilt_is_the_mean_logit_of_the_two_crops_and_nothing_else_moves(frame) -> None:
    narrow = DiceReader(ReaderConfig(warmup=0, tilt_crop_scale=0.0))
    wide = DiceReader(ReaderConfig(warmup=0, tilt_crop_scale=2.1))
    a, b = narrow.read(frame), wide.read(frame)
    assert len(a) >= 2
    np.testing.assert_array_equal(b.centers, a.centers)
    np.testing.assert_array_equal(b.face_probs, a.face_probs)
    np.testing.assert_array_equal(b.pip_face, a.pip_face)
    np.testing.assert_array_equal(b.stacked, a.stacked)
    np.testing.assert_array_equal(b.up_margin, a.up_margin)
    far = _read_at(narrow, frame, a, 2.1)[2]  # the wider crop read on its own
    assert np.abs(far - a.tilt).max() > 1e-3  # the wider crop reads a different tilt
    want = sigmoid((_logit(a.tilt) + _logit(far)) / 2)
    np.testing.assert_allclose(b.tilt, want, rtol=1e-4, atol=1e-6)


def test_a_single_die_crop_reads_its_tilt_from_itself(frame) -> None:
    """`read_crop` is given one die already cut out; there is nothing wider to cut."""
    crop = frame[100:200, 100:200]
    narrow = DiceReader(ReaderConfig(warmup=0, tilt_crop_scale=0.0)).read_crop(crop)
    wide = DiceReader(ReaderConfig(warmup=0, tilt_crop_scale=2.1)).read_crop(crop)
    np.testing.assert_array_equal(wide.tilt, narrow.tilt)


def test_the_wide_crop_must_be_wider_or_off() -> None:
    with pytest.raises(ValueError):
        ReaderConfig(tilt_crop_scale=-1.0)
    with pytest.raises(ValueError):
        ReaderConfig(tilt_crop_scale=1.2)


def _read_at(reader: DiceReader, frame, dice, scale: float) -> tuple:
    """The reader on crops of side `scale` x each found die's box side, as the runtime cuts."""
    cfg = reader.config
    size = np.maximum(dice.boxes[:, 2] - dice.boxes[:, 0], dice.boxes[:, 3] - dice.boxes[:, 1])
    geom = die_geometry(dice.centers, size, frame.shape, None)
    return read_batch(reader.reader, crops(frame, dice.centers, scale * size, cfg.crop_size,
                                           cfg.soften_sigma), cfg, geom)


def test_the_face_is_the_mean_logit_of_the_two_crops(frame) -> None:
    one = DiceReader(ReaderConfig(warmup=0))
    two = DiceReader(ReaderConfig(warmup=0, face_crop_scale=1.8))
    a, b = one.read(frame), two.read(frame)
    np.testing.assert_array_equal(b.centers, a.centers)
    for name in ("tilt", "stacked", "pip_face", "up_margin"):
        np.testing.assert_array_equal(getattr(b, name), getattr(a, name))
    near, far = _read_at(one, frame, a, 1.5)[0], _read_at(one, frame, a, 1.8)[0]
    assert np.abs(far - near).max() > 1e-2  # the second crop reads other logits
    want = softmax((near + far) / 2, one.config.temperature)
    np.testing.assert_allclose(b.face_probs, want, rtol=1e-4, atol=1e-6)
    np.testing.assert_array_equal(b.face, want.argmax(1) + 1)


def test_one_second_read_serves_both_when_the_scales_agree(frame, monkeypatch) -> None:
    reader = DiceReader(ReaderConfig(warmup=0, face_crop_scale=2.1, tilt_crop_scale=2.1))
    calls = []
    real = DiceReader._read_at

    def spy(self, *args):
        calls.append(args[-1])
        return real(self, *args)

    monkeypatch.setattr(DiceReader, "_read_at", spy)
    assert len(reader.read(frame)) >= 2
    assert calls == [2.1]


def test_the_face_crop_must_differ_from_the_runtime_crop() -> None:
    with pytest.raises(ValueError):
        ReaderConfig(face_crop_scale=1.5)
    with pytest.raises(ValueError):
        ReaderConfig(face_crop_scale=0.9)


def test_the_up_margin_is_the_mean_of_the_two_crops_in_degrees(frame) -> None:
    one = DiceReader(ReaderConfig(warmup=0))
    two = DiceReader(ReaderConfig(warmup=0, margin_crop_scale=2.1))
    a, b = one.read(frame), two.read(frame)
    for name in ("face_probs", "tilt", "stacked", "pip_face"):
        np.testing.assert_array_equal(getattr(b, name), getattr(a, name))
    far = _read_at(one, frame, a, 2.1)[5]
    assert np.abs(far - a.up_margin).max() > 1e-3  # flat dice: both near the 45 cap
    np.testing.assert_allclose(b.up_margin, (a.up_margin + far) / 2, rtol=1e-5, atol=1e-4)
    with pytest.raises(ValueError):
        ReaderConfig(margin_crop_scale=1.5)
