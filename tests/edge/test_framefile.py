"""Replay frame files: the JPEG's size from its header, motion from a small decode, the whole
frame decoded only when read (edge/framefile.py)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicecall.edge.framefile import jpeg_size, motion_grey
from dicecall.edge.sources import ReplaySource, lores_grey


def _scene(w: int, h: int, seed: int = 0) -> np.ndarray:
    """Felt with a few bright squares (dice) and sensor noise, as a table frame."""
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 3), (40, 110, 30), np.uint8)
    side = max(4, w // 20)
    for _ in range(4):
        x, y = rng.integers(0, w - side), rng.integers(0, h - side)
        img[y:y + side, x:x + side] = 235
    noise = rng.integers(-6, 7, img.shape)
    return np.clip(img.astype(int) + noise, 0, 255).astype(np.uint8)


@settings(max_examples=25, deadline=None)
@given(w=st.integers(16, 2100), h=st.integers(16, 1600), progressive=st.booleans())
def test_jpeg_size_is_the_decoded_size(w, h, progressive):
    data = cv2.imencode(".jpg", np.zeros((h, w, 3), np.uint8),
                        [cv2.IMWRITE_JPEG_PROGRESSIVE, int(progressive)])[1].tobytes()
    assert jpeg_size(data) == (w, h)


def test_jpeg_size_refuses_what_is_not_a_jpeg_header():
    png = cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))[1].tobytes()
    assert jpeg_size(png) is None
    assert jpeg_size(b"\xff\xd8") is None
    assert jpeg_size(b"\xff\xd8\xff\xda\x00\x08" + bytes(8)) is None  # scan before any frame


@pytest.mark.parametrize(("w", "h"), [(1920, 1080), (1920, 1440), (640, 480), (4032, 3024),
                                      (300, 200), (1001, 751)])
def test_motion_grey_is_the_whole_decodes_within_a_few_levels(w, h):
    data = cv2.imencode(".jpg", _scene(w, h))[1].tobytes()
    small = motion_grey(data, (w, h), 160)
    whole = lores_grey(cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR), 160)
    assert small.shape == whole.shape and small.dtype == np.uint8
    diff = np.abs(small.astype(int) - whole.astype(int))
    assert diff.mean() < 0.5 and diff.max() <= 6


def test_a_replay_frame_is_decoded_whole_only_when_read(tmp_path):
    image = _scene(1920, 1080, seed=3)
    data = cv2.imencode(".jpg", image)[1].tobytes()
    (tmp_path / "a.jpg").write_bytes(data)
    cv2.imwrite(str(tmp_path / "b.png"), image)  # not a JPEG: decoded whole as before
    (tmp_path / "frames.csv").write_text("file,t_ms\na.jpg,0\nb.png,33\n")
    src = ReplaySource(tmp_path, speed=0)
    src.open()
    a, b = list(src.frames())
    assert a.image is None and a.main_size() == (1920, 1080) and a.grey.shape == (90, 160)
    assert np.array_equal(a.bgr(), cv2.imdecode(np.frombuffer(data, np.uint8),
                                                cv2.IMREAD_COLOR))
    assert b.image is not None and b.main_size() == (1920, 1080)
    assert np.array_equal(b.bgr(), image)


def test_a_jpeg_whose_header_is_garbage_is_a_frame_error(tmp_path):
    data = bytearray(cv2.imencode(".jpg", _scene(320, 240))[1].tobytes())
    data[data.index(b"\xff\xc0") + 4] = 7  # sample precision 7 bits: no decoder takes it
    (tmp_path / "bad.jpg").write_bytes(bytes(data))
    (tmp_path / "frames.csv").write_text("file,t_ms\nbad.jpg,0\n")
    src = ReplaySource(tmp_path, speed=0)
    src.open()
    (bad,) = list(src.frames())
    assert bad.error == "bad.jpg: cannot be decoded" and bad.grey is None and bad.load is None


def test_a_frame_that_cannot_be_decoded_when_read_names_itself():
    from dicecall.edge.framefile import decode_bgr

    with pytest.raises(ValueError, match=r"f0001\.jpg: cannot be decoded"):
        decode_bgr(b"\xff\xd8 not a jpeg \xff\xd9", "f0001.jpg")
