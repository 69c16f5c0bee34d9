"""The detector's input from a window of the frame, a view, is the copy's to the bit; the
blank-frame check sees a range anywhere in the frame."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicecall.vision.images import ImageError, check_frame
from dicecall.vision.preprocess import letterbox

FRAME = np.random.default_rng(7).integers(0, 256, (270, 480, 3), np.uint8)


@settings(max_examples=40, deadline=None)
@given(x0=st.integers(0, 400), y0=st.integers(0, 200), w=st.integers(16, 480),
       h=st.integers(16, 270), shrink=st.sampled_from([1.0, 1.5]))
def test_a_window_is_letterboxed_as_its_copy(x0, y0, w, h, shrink):
    view = FRAME[y0:y0 + h, x0:x0 + w]
    got, s1 = letterbox(view, 64, shrink)
    want, s2 = letterbox(np.ascontiguousarray(view), 64, shrink)
    assert s1 == s2 and np.array_equal(got, want)


@pytest.mark.parametrize(("y", "x"), [(0, 0), (3, 5), (269, 479), (100, 1)])
def test_one_pixel_off_the_sample_grid_makes_a_frame_not_blank(y, x):
    image = np.full((270, 480, 3), 90, np.uint8)
    with pytest.raises(ImageError, match="blank frame"):
        check_frame(image)
    image[y, x, 1] = 120
    check_frame(image)  # the range is there, though every 8th pixel is flat
