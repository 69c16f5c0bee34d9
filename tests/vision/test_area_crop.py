"""A crop cut far down averages the square it covers (`preprocess._area_crop`). Inside the
frame it is cut by a slice, at its edges by repeating the edge pixels; both must give the
pixels the reader was judged on, so a die near the frame's edge reads as it did."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dicecall.vision.preprocess import _area_crop, crops

FRAME = np.random.default_rng(5).integers(0, 256, (120, 160, 3), np.uint8)


def _repeated_edges(frame: np.ndarray, x0: int, y0: int, side: int, size: int) -> np.ndarray:
    """The square with the frame's edge pixels repeated outside it, resized by averaging."""
    h, w = frame.shape[:2]
    ys = np.clip(np.arange(y0, y0 + side), 0, h - 1)
    xs = np.clip(np.arange(x0, x0 + side), 0, w - 1)
    return cv2.resize(frame[np.ix_(ys, xs)], (size, size), interpolation=cv2.INTER_AREA)


@settings(max_examples=200, deadline=None)
@given(x0=st.integers(-200, 200), y0=st.integers(-150, 150), side=st.integers(40, 130))
def test_the_square_is_averaged_with_its_edges_repeated(x0: int, y0: int, side: int) -> None:
    np.testing.assert_array_equal(_area_crop(FRAME, x0, y0, side, 16),
                                  _repeated_edges(FRAME, x0, y0, side, 16))


def test_a_crop_cut_at_under_half_scale_averages_the_square_it_covers() -> None:
    got = crops(FRAME, np.array([[80.0, 60.0]], np.float32), np.array([100.0], np.float32), 16)
    want = cv2.cvtColor(_repeated_edges(FRAME, 30, 10, 100, 16), cv2.COLOR_BGR2RGB)
    np.testing.assert_allclose(got[0], want.transpose(2, 0, 1) / 255, atol=1e-7)
