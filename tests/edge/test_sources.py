"""Replay folder and OpenCV sources: timestamps, pacing, resume, bad indexes, video files."""

from __future__ import annotations

import itertools
import time

import cv2
import numpy as np
import pytest

from dicecall.edge.replaykit import write_replay
from dicecall.edge.sources import CameraError, OpenCVSource, ReplaySource


def _scenes(n):
    return [np.full((120, 160, 3), 40 * (i + 1), np.uint8) for i in range(n)]


def test_replay_times_labels_and_resume(tmp_path):
    rest = write_replay(tmp_path, _scenes(2), fps=30, motion=2, still=3, lead_in=2)
    src = ReplaySource(tmp_path, speed=0)
    src.open()
    frames = list(src.frames())
    assert len(frames) == 2 + 2 * (2 + 3)
    assert frames[0].label == "background.jpg" and frames[4].label == "throw0000_rest.jpg"
    assert [f.t for f in frames[:3]] == pytest.approx([0, 1 / 30, 2 / 30], abs=1e-5)
    assert frames[0].grey.shape == (120, 160)
    resumed = ReplaySource(tmp_path, speed=0, skip_until_ms=rest[0])
    resumed.open()
    assert next(f.t for f in resumed.frames()) * 1000 > rest[0]


def test_replay_speed_one_is_real_time(tmp_path):
    write_replay(tmp_path, _scenes(1), fps=30, motion=2, still=7, lead_in=0)  # 9 frames
    src = ReplaySource(tmp_path, speed=1.0)
    src.open()
    start = time.monotonic()
    frames = list(src.frames())
    elapsed = time.monotonic() - start
    assert len(frames) == 9 and 8 / 30 - 0.01 <= elapsed < 8 / 30 + 1.0  # slack: shared CPU


@pytest.mark.parametrize(("csv", "message"), [
    ("name,t\na.jpg,0\n", "header must be file,t_ms"),
    ("file,t_ms\na.jpg,0\nb.jpg,0\n", "must increase"),
    ("file,t_ms\na.jpg,soon\n", "is not a number"),
])
def test_a_bad_index_is_refused_with_the_line(tmp_path, csv, message):
    (tmp_path / "frames.csv").write_text(csv)
    with pytest.raises(CameraError, match=message):
        ReplaySource(tmp_path).open()


def test_opencv_reads_a_video_file_to_its_end(tmp_path):
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 30, (160, 120))
    for img in _scenes(5):
        writer.write(img)
    writer.release()
    src = OpenCVSource(str(path), lores_width=80)
    assert src.finite
    src.open()
    frames = list(src.frames())
    src.close()
    assert len(frames) == 5 and frames[0].grey.shape == (60, 80)
    assert all(b.t > a.t for a, b in itertools.pairwise(frames))


def test_a_truncated_jpeg_in_a_replay_is_a_frame_error_not_an_image(tmp_path):
    # an interrupted copy or a failing SD card: OpenCV would decode the first third and fill
    # the rest with grey, and a settled frame like that would be read as a roll
    image = np.random.default_rng(5).integers(0, 255, (120, 160, 3), np.uint8)
    data = cv2.imencode(".jpg", image)[1].tobytes()
    (tmp_path / "good.jpg").write_bytes(data)
    (tmp_path / "padded.jpg").write_bytes(data + b"\x00" * 16)  # padding after the EOI is fine
    (tmp_path / "cut.jpg").write_bytes(data[: len(data) // 3])
    (tmp_path / "frames.csv").write_text("file,t_ms\ngood.jpg,0\npadded.jpg,33\ncut.jpg,66\n")
    src = ReplaySource(tmp_path, speed=0)
    src.open()
    good, padded, cut = list(src.frames())
    assert good.error is None and padded.error is None and good.bgr().shape == (120, 160, 3)
    assert cut.image is None and cut.grey is None and cut.load is None
    assert cut.error == "cut.jpg: cannot be decoded (truncated JPEG: no end-of-image marker)"
