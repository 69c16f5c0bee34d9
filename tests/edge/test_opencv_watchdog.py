"""The OpenCV source's capture watchdog, against a fake `cv2.VideoCapture` (no hardware): a
read that blocks (USB camera unplugged, RTSP stream stalled) or keeps failing is a camera
error, the capture is released and opened again, and the roll already read stays one roll."""

from __future__ import annotations

import threading
import time
from typing import ClassVar

import numpy as np
import pytest

from dicecall.edge import camera, sources
from dicecall.edge.outbox import Outbox
from dicecall.edge.runner import EdgeRunner
from dicecall.edge.sources import CameraError, OpenCVSource

W, H = 320, 240


class FakeCapture:
    """Scripted like a camera: each opening takes the next plan, (images, then), and once
    the images are given `then` is "block" (read never returns until `unblock`), "fail"
    (read gives (False, None)) or "still" (the last image again, forever)."""

    plans: ClassVar[list] = []
    opened: ClassVar[list] = []

    def __init__(self, uri, *args) -> None:
        plan = FakeCapture.plans[min(len(FakeCapture.opened), len(FakeCapture.plans) - 1)]
        self.images, self.then = plan
        self.n = 0
        self.released = False
        self.reading = False
        self.unblock = threading.Event()
        FakeCapture.opened.append(self)

    def isOpened(self) -> bool:
        return self.images is not None

    def set(self, prop, value) -> bool:
        return True

    def get(self, prop) -> float:
        return 0.0

    def read(self):
        if self.released:
            raise AssertionError("read after release")
        self.reading = True
        try:
            if self.n < len(self.images):
                self.n += 1
                time.sleep(0.002)
                image = self.images[self.n - 1]
                return (True, image.copy()) if image is not None else (False, None)
            if self.then == "block":
                self.unblock.wait()
                return False, None
            if self.then == "fail":
                return False, None
            time.sleep(0.005)
            return True, self.images[-1].copy()
        finally:
            self.reading = False

    def release(self) -> None:
        if self.reading:
            raise AssertionError("released while a read is in progress")
        self.released = True


@pytest.fixture
def fake_capture(monkeypatch):
    monkeypatch.setattr(sources.cv2, "VideoCapture", FakeCapture)
    FakeCapture.plans, FakeCapture.opened = [], []
    yield FakeCapture
    for cap in FakeCapture.opened:  # let no blocked reader thread outlive the test
        cap.unblock.set()


def _next_within(frames, seconds: float):
    """next(frames) on a thread: (the frame or the exception raised, seconds taken), or
    (None, None) when it is still blocked after `seconds`."""
    out: list = []

    def step() -> None:
        try:
            out.append(next(frames))
        except BaseException as exc:  # handed back to the test
            out.append(exc)

    began = time.monotonic()
    worker = threading.Thread(target=step, daemon=True)
    worker.start()
    worker.join(seconds)
    return (out[0], time.monotonic() - began) if out else (None, None)


def _images(n: int, value: int = 80) -> list[np.ndarray]:
    return [np.full((H, W, 3), value, np.uint8) for _ in range(n)]


def test_a_blocked_read_is_a_camera_error_within_the_timeout(fake_capture):
    fake_capture.plans = [(_images(2), "block")]
    src = OpenCVSource(0, capture_timeout_s=0.2)
    src.open()
    frames = src.frames()
    assert _next_within(frames, 1)[0].image.shape == (H, W, 3)
    assert _next_within(frames, 1)[0] is not None
    got, took = _next_within(frames, 3)
    assert got is not None, "read() still blocked after 3 s: no watchdog"
    assert isinstance(got, CameraError) and 0.15 < took < 1.5
    assert str(got) == "no frame from video source 0 for 0.2 s (read timed out)"
    began = time.monotonic()
    src.close()  # the read is still blocked: closing must not wait on it
    assert time.monotonic() - began < 0.5
    cap = fake_capture.opened[0]
    assert not cap.released  # never under a read in progress...
    cap.unblock.set()
    deadline = time.monotonic() + 2
    while not cap.released and time.monotonic() < deadline:
        time.sleep(0.01)
    assert cap.released  # ...but as soon as it returns


def test_one_failed_read_is_skipped_failed_reads_in_a_row_are_a_camera_error(fake_capture):
    # an RTSP stream drops a packet now and then: one failed read is not worth a reopen
    good = _images(1)[0]
    fake_capture.plans = [([good, None, good, None, None], "fail")]
    src = OpenCVSource("rtsp://cam/stream", capture_timeout_s=0.5, failed_reads=3)
    src.open()
    frames = src.frames()
    first, _ = _next_within(frames, 1)
    second, _ = _next_within(frames, 1)
    assert first.label == "#1" and second.label == "#2"
    got, _ = _next_within(frames, 2)
    assert isinstance(got, CameraError)
    assert str(got) == "video source 'rtsp://cam/stream' gave no frame in 3 reads in a row"
    src.close()
    assert fake_capture.opened[0].released


def test_the_timeout_is_at_least_three_frame_times(fake_capture):
    src = OpenCVSource(0, fps=2, capture_timeout_s=0.1)
    assert src.timeout_s == pytest.approx(1.5)


def test_a_stalled_camera_is_reopened_and_its_roll_neither_lost_nor_read_again(
        fake_capture, tmp_path, kit, monkeypatch, caplog):
    monkeypatch.setattr(camera, "BACKOFF_START_S", 0.05)  # the reopen's backoff, shortened
    empty = np.full((H, W, 3), 60, np.uint8)
    scene = kit.scenes(1, size=(H, W), seed=4)[0]
    flying = [scene // 3, scene // 2]
    fake_capture.plans = [
        ([empty] * 6 + flying + [scene] * 8, "block"),  # read, then the stream stalls
        (None, None),  # the device is not back yet: cannot open
        ([scene // 2] * 2 + [scene] * 3, "still"),  # back (exposure ramping), same dice
    ]
    svc = kit.Service(tmp_path)  # never started: the roll waits in the outbox
    cfg = kit.config(tmp_path, svc, kit.TABLE, kit.DEVICE, "s" * 32, tmp_path,
                     source={"kind": "opencv", "uri": 0, "capture_timeout_s": 0.2})
    events = []
    runner = EdgeRunner(cfg, on_event=events.append, reader=kit.Reader([(3, 5)]))
    stop = threading.Event()
    thread = threading.Thread(target=runner.run, args=(stop,), daemon=True)
    with caplog.at_level("ERROR", logger="dicecall.edge"):
        thread.start()
        _wait_reopened(fake_capture, runner, events)
    stop.set()
    thread.join(5)
    assert not thread.is_alive(), "the edge did not stop: blocked in read()"
    logged = [r for r in caplog.records if r.getMessage() == "camera error; reopening"]
    assert logged[0].error == "no frame from video source 0 for 0.2 s (read timed out)"
    errors = [e["error"] for e in events if e["kind"] == "camera_error"]
    # not opened again while the stalled read is stuck: one stuck thread, never more
    retry = errors.index("cannot open video source 0")
    assert errors[0] == logged[0].error and retry >= 2
    assert set(errors[1:retry]) == {STUCK_READ}
    assert fake_capture.opened[0].released  # its read returned (unblocked): released then
    reads = [e for e in events if e["kind"] == "read"]
    assert len(reads) == 1 and reads[0]["faces"] == [3, 5]
    assert any(e["kind"] == "unchanged" for e in events)  # the same dice: not read again
    outbox = Outbox(cfg.outbox.path, cfg.outbox.max_bytes, cfg.outbox.alarm_fraction)
    assert outbox.depth() == 1  # kept for the service, once
    outbox.close()


STUCK_READ = ("video source 0 is not opened again until its stuck read returns (its "
              "capture is released then)")


def _until(condition, seconds: float = 8) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert condition()


def _wait_reopened(fake_capture, runner, events) -> None:
    """Until the camera, refused while its read is stuck, is reopened once the read returns
    and the third opening gives frames, camera up again."""
    _until(lambda: any(e.get("error") == STUCK_READ for e in events))
    assert len(fake_capture.opened) == 1
    fake_capture.opened[0].unblock.set()  # the stalled read returns at last
    _until(lambda: len(fake_capture.opened) >= 3)
    time.sleep(0.4)  # frames of the reopened camera flow
    assert runner.metrics.value("dicecall_edge_camera_up") == 1
