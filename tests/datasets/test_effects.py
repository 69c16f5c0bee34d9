"""datasets/effects.finish: the frames of a still scene differ only in their noise."""

import sys
from pathlib import Path

import numpy as np

from dicecall.datasets.effects import finish

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import probe_still_frames as probe


def _scene() -> np.ndarray:
    img = np.full((120, 160, 3), 90, np.uint8)
    img[40:80, 60:100] = 230  # a light die on dark felt
    return img


def test_without_a_noise_generator_the_frame_is_as_generated_before():
    """The datasets' frames must not change: the default draws the noise from `rng`."""
    a = finish(_scene(), np.random.default_rng(5))
    b = finish(_scene(), np.random.default_rng(5), noise_rng=None)
    rng = np.random.default_rng(5)
    c = finish(_scene(), rng, noise_rng=rng)
    assert np.array_equal(a, b) and np.array_equal(a, c)


def test_still_frames_differ_in_noise_alone():
    """Frames of one still scene keep its exposure, glare and blur; only the noise moves.
    A probe that let the exposure change would measure another picture, not another frame."""
    rng = np.random.default_rng(11)
    state = rng.bit_generator.state
    frames = probe.still_frames(_scene(), rng, 3)
    assert rng.bit_generator.state == state  # the scene's own draws go on as before
    diff = frames[0].astype(np.float32) - frames[1].astype(np.float32)
    assert np.abs(diff).max() > 0
    assert abs(float(diff.mean())) < 0.5  # zero-mean: no change of exposure
    again = probe.still_frames(_scene(), np.random.default_rng(11), 3)
    assert all(np.array_equal(x, y) for x, y in zip(frames, again, strict=True))
