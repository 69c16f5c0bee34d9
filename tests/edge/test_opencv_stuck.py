"""The OpenCV source when a call into the capture never returns, against a fake
`cv2.VideoCapture` (no hardware): an open that hangs (a USB camera in a bad state, an RTSP
source that never answers) is a camera error within `open_timeout_s`, a capture whose
open or read is stuck is never opened again beside it (one stuck thread, never more), it
is released once the call returns, and the process can still exit."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import ClassVar

import numpy as np
import pytest

from dicecall.edge import camera, sources
from dicecall.edge.config import OpenCVSource as OpenCVConfig
from dicecall.edge.config import SettleConfig
from dicecall.edge.sources import CameraError, OpenCVSource

from .blocking import until, within

IMAGE = np.full((24, 32, 3), 80, np.uint8)


class HangingCapture:
    """Hangs in `where` ("__init__", "isOpened", "read", or "read-2": the read after the
    first) until `gate` is set; then gives frames."""

    where: ClassVar[str] = "read"
    gate: ClassVar[threading.Event] = threading.Event()
    made: ClassVar[list] = []  # constructors entered, in order

    def __init__(self, uri, *args) -> None:
        self.reads = 0
        self.released = False
        HangingCapture.made.append(self)
        self._hang("__init__")

    def _hang(self, where: str) -> None:
        if HangingCapture.where == where:
            HangingCapture.gate.wait()

    def isOpened(self) -> bool:
        self._hang("isOpened")
        return True

    def set(self, prop, value) -> bool:
        return True

    def get(self, prop) -> float:
        return 0.0

    def read(self):
        self.reads += 1
        self._hang("read" if self.reads == 1 else "read-2")
        return True, IMAGE.copy()

    def release(self) -> None:
        self.released = True


@pytest.fixture
def hanging(monkeypatch):
    monkeypatch.setattr(sources.cv2, "VideoCapture", HangingCapture)
    HangingCapture.gate, HangingCapture.made = threading.Event(), []
    yield HangingCapture
    HangingCapture.gate.set()  # let no stuck thread outlive the test


def _capture_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name.startswith("capture-")}


@pytest.mark.parametrize(("where", "message"), [
    ("__init__", "video source 0 did not open within 0.5 s (open_timeout_s)"),
    ("isOpened", "video source 0 did not open within 0.5 s (open_timeout_s)"),
    ("read", "video source 0 gave no first frame within 0.5 s (open_timeout_s)"),
])
def test_an_open_that_hangs_is_a_camera_error_within_open_timeout(hanging, where, message):
    """Before, VideoCapture() (and what opening does before the first frame) was called on
    the edge's own thread: a camera that hung there hung the edge for good, nothing logged."""
    hanging.where = where
    src = OpenCVSource(0, capture_timeout_s=0.2, open_timeout_s=0.5)
    began = time.monotonic()
    got = within(src.open, 5)
    assert got is not None, "open() still blocked after 5 s: not timed"
    assert isinstance(got, CameraError) and str(got) == message
    assert 0.45 < time.monotonic() - began < 2
    hanging.gate.set()  # the open returns at last: the capture it made is released
    assert until(lambda: hanging.made and hanging.made[0].released)
    assert len(hanging.made) == 1


def test_the_first_frame_read_by_open_is_the_first_frame_given(hanging):
    hanging.where = "nowhere"
    src = OpenCVSource(0, capture_timeout_s=0.2, open_timeout_s=0.5)
    src.open()
    assert hanging.made[0].reads == 1  # the camera is "up" once it gave a frame
    frames = src.frames()
    assert next(frames).label == "#1" and hanging.made[0].reads == 1
    assert next(frames).label == "#2" and hanging.made[0].reads == 2
    frames.close()
    src.close()
    assert hanging.made[0].released


@pytest.mark.parametrize(("where", "stuck"), [
    ("read-2", "video source 0 is not opened again until its stuck read returns (its "
               "capture is released then)"),
    ("__init__", "video source 0 is not opened again until its stuck open returns (its "
                 "capture is released then)"),
])
def test_repeated_timeouts_leave_one_stuck_thread_never_more(hanging, monkeypatch, where,
                                                              stuck):
    """Before, every reopen after a read timed out started one more capture and thread
    beside the stuck one, each stranded in turn by the same fault."""
    monkeypatch.setattr(camera, "BACKOFF_START_S", 0.02)
    hanging.where = where
    src = OpenCVSource(0, capture_timeout_s=0.1, open_timeout_s=0.5)
    before = _capture_threads()
    errors: list[str] = []
    stop = threading.Event()
    pump = threading.Thread(target=camera.pump, daemon=True, args=(
        src, lambda frame: None, stop, lambda state: None,
        lambda error, retry_in: errors.append(error)))
    pump.start()
    try:
        assert until(lambda: errors.count(stuck) >= 4), errors
        assert len(hanging.made) == 1 and len(_capture_threads() - before) == 1
        first = hanging.made[0]
        assert not first.released  # never under a call in progress
        hanging.gate.set()  # the stuck call returns: released, its thread ends
        assert until(lambda: first.released)
        assert until(lambda: len(hanging.made) == 2)  # and only then opened again
    finally:
        stop.set()
        pump.join(5)
    assert not pump.is_alive()
    assert errors[0] in ("no frame from video source 0 for 0.1 s (read timed out)",
                         "video source 0 did not open within 0.5 s (open_timeout_s)")


def test_the_process_exits_with_threads_stuck_in_open_and_in_read(tmp_path: Path):
    """Stuck threads are daemons outside any pool the interpreter joins at exit."""
    script = tmp_path / "stuck.py"
    script.write_text(textwrap.dedent("""
        import threading
        from dicecall.edge import sources

        class Capture:
            def __init__(self, uri):
                if uri == 0:
                    threading.Event().wait()  # the open never returns
                self.n = 0
            def isOpened(self):
                return True
            def set(self, prop, value):
                return True
            def read(self):
                self.n += 1
                if self.n > 1:
                    threading.Event().wait()  # the second read never returns
                return True, None
            def release(self):
                pass

        sources.cv2.VideoCapture = Capture
        for uri in (0, 1):
            src = sources.OpenCVSource(uri, capture_timeout_s=0.1, open_timeout_s=0.5)
            try:
                src.open()
                for _ in src.frames():
                    pass
            except sources.CameraError as exc:
                print(exc)
            src.close()
    """))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=30, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "video source 0 did not open within 0.5 s (open_timeout_s)",
        "no frame from video source 1 for 0.1 s (read timed out)"]


def test_open_timeout_is_configured_and_never_below_the_read_timeout():
    cfg = SimpleNamespace(source=OpenCVConfig(kind="opencv", uri=0, open_timeout_s=4.0),
                          settle=SettleConfig())
    assert sources.build_source(cfg).open_timeout_s == 4.0
    assert OpenCVConfig(kind="opencv", uri=0).open_timeout_s == 10.0
    # 3 frame times at 0.2 fps: the first frame is not given less than any other
    assert OpenCVSource(0, fps=0.2, capture_timeout_s=1, open_timeout_s=2).open_timeout_s == 15


@pytest.fixture
def silent_server():
    """A TCP server that accepts connections and never answers, as a stalled RTSP or HTTP
    camera does; yields its port."""
    import socket

    srv = socket.create_server(("127.0.0.1", 0))
    conns: list = []

    def accept() -> None:
        while True:
            try:
                conns.append(srv.accept()[0])
            except OSError:  # closed at the end of the test
                return

    threading.Thread(target=accept, daemon=True).start()
    yield srv.getsockname()[1]
    srv.close()
    for c in conns:
        c.close()


@pytest.mark.parametrize("scheme", ["rtsp", "http"])
def test_a_stream_that_never_answers_can_be_opened_again_soon_after_its_timeout(
        silent_server, scheme):
    """Real OpenCV (FFmpeg), no fake: the open times out at open_timeout_s and the backend
    gives up at the same time, so the next open is tried again instead of being refused as
    stuck (OpenCV's own default would hold the call 30 s)."""
    src = OpenCVSource(f"{scheme}://127.0.0.1:{silent_server}/table", open_timeout_s=1.0,
                       capture_timeout_s=1.0)
    with pytest.raises(CameraError, match="did not open within 1 s"):
        src.open()
    assert until(lambda: src._stuck is None or not src._stuck.alive, 5.0)
    with pytest.raises(CameraError) as second:
        src.open()
    assert "not opened again" not in str(second.value)
    assert "did not open within 1 s" in str(second.value) or "cannot open" in str(second.value)


@pytest.mark.parametrize(("uri", "timeouts"), [
    ("rtsp://user:pw@cam.local/stream1", True), ("HTTP://10.0.0.5/video.mjpg", True),
    (0, False), ("/var/footage/table1.mp4", False),
    ("rtspsrc location=rtsp://cam.local/s ! decodebin ! appsink", False)])
def test_only_a_url_is_given_the_backend_timeouts(monkeypatch, uri, timeouts):
    made = []

    class Recorder:
        def __init__(self, *args) -> None:
            made.append(args)

        def isOpened(self) -> bool:
            return True

        def set(self, prop, value) -> bool:
            return True

    monkeypatch.setattr(sources.cv2, "VideoCapture", Recorder)
    OpenCVSource(uri, open_timeout_s=4.0, capture_timeout_s=1.5)._make()
    if timeouts:
        assert made == [(uri, sources.cv2.CAP_FFMPEG, [
            sources.cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, 4000,
            sources.cv2.CAP_PROP_READ_TIMEOUT_MSEC, 1500])]
    else:
        assert made == [(uri,)]
