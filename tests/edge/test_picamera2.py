"""Picamera2Source against a fake `picamera2` module: configuration, controls from the
calibration file, capture_request and release, lores (YUV420) motion."""

from __future__ import annotations

import json
import sys
import threading
import time
import types
from typing import ClassVar

import numpy as np
import pytest

from dicecall.edge.config import Picamera2Source as PiConfig
from dicecall.edge.picam import Picamera2Source, y_plane
from dicecall.edge.runner import EdgeRunner
from dicecall.edge.sources import CameraError

MAIN, LORES = (640, 480), (160, 120)


class FakeRequest:
    def __init__(self, cam, main: np.ndarray, y: np.ndarray, ts: int) -> None:
        self.cam, self.main, self.y, self.ts = cam, main, y, ts
        self.released = False

    def make_array(self, stream: str) -> np.ndarray:
        if self.released:
            raise RuntimeError("request used after release")
        if self.cam.fail_make_array:
            raise RuntimeError("dmabuf gone")
        self.cam.arrays.append(stream)
        if stream == "main":
            return self.main.copy()
        w, h = LORES
        stride = w + 32  # row padding, as the ISP gives it
        out = np.full((h * 3 // 2, stride), 128, np.uint8)  # Y then U, V quarter planes
        out[:h, :w] = self.y
        return out

    def get_metadata(self) -> dict:
        return {"SensorTimestamp": self.ts, "ExposureTime": 10000}

    def release(self) -> None:
        self.released = True
        self.cam.outstanding -= 1


class FakeJob:
    """What picamera2 returns for capture_request(wait=False): resolved by Picamera2.wait."""

    def __init__(self, request: FakeRequest | None) -> None:
        self.request = request


class FakePicamera2:
    instances: ClassVar[list] = []
    script: ClassVar[list] = []
    # frames each camera opened gives before its driver wedges (None: never), in open order
    hang_after: ClassVar[list] = []

    def __init__(self, camera_num: int = 0) -> None:
        self.camera_num = camera_num
        self.calls: list = []
        self.requests: list[FakeRequest] = []
        self.outstanding = 0
        self.fail_make_array = False
        self.arrays: list[str] = []  # streams copied out, in order
        self.started = self.closed = False
        self.n = 0
        plan = FakePicamera2.hang_after
        self.hangs_at = plan[len(FakePicamera2.instances)] \
            if len(FakePicamera2.instances) < len(plan) else None
        self.waits: list[float | None] = []
        FakePicamera2.instances.append(self)

    def create_video_configuration(self, main=None, lores=None, controls=None,
                                   buffer_count=6, **kw) -> dict:
        self.calls.append(("create_video_configuration", main, lores, controls, buffer_count))
        return {"main": main, "lores": lores, "controls": controls}

    def configure(self, config) -> None:
        self.calls.append(("configure", config))

    def set_controls(self, controls) -> None:
        self.calls.append(("set_controls", dict(controls)))

    def start(self) -> None:
        self.started = True

    def capture_request(self, wait=None, flush=None):
        if self.hangs_at is not None and self.n >= self.hangs_at:
            if wait is False:
                return FakeJob(None)  # never completes
            threading.Event().wait()  # the real blocking call never returns either
        req = self._request()
        return FakeJob(req) if wait is False else req

    def wait(self, job: FakeJob, timeout=None) -> FakeRequest:
        self.waits.append(timeout)
        if job.request is None:
            time.sleep(timeout)  # Job.get_result(timeout) on a wedged camera
            raise TimeoutError
        return job.request

    def _request(self) -> FakeRequest:
        if self.outstanding >= 2:
            raise RuntimeError("buffers exhausted: requests are not released")
        main, y = self.script[min(self.n, len(self.script) - 1)]
        self.n += 1
        req = FakeRequest(self, main, y, ts=1_000_000_000 + self.n * 33_333_333)
        self.outstanding += 1
        self.requests.append(req)
        time.sleep(0.001)
        return req

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def fake_picamera2(monkeypatch):
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2
    FakePicamera2.instances = []
    FakePicamera2.hang_after = []
    monkeypatch.setitem(sys.modules, "picamera2", module)
    return FakePicamera2


@pytest.fixture
def exposure_file(tmp_path):
    path = tmp_path / "exposure.json"
    path.write_text(json.dumps({
        "controls": {"AeEnable": False, "AwbEnable": False, "ColourGains": [1.8, 1.4],
                     "AnalogueGain": 2.0, "ExposureTime": 8000},
        "region": [10, 10, 50, 50], "mean_linear_bgr": [0.18, 0.18, 0.18],
        "exposure_scale": 1.0, "limited": False}))
    return path


def _frames(n_still: int, scene_y: np.ndarray) -> list:
    main = np.zeros((MAIN[1], MAIN[0], 3), np.uint8)
    return [(main, scene_y)] * n_still


def test_configuration_controls_and_release(fake_picamera2, exposure_file):
    y = np.full((LORES[1], LORES[0]), 90, np.uint8)
    fake_picamera2.script = _frames(3, y)
    cfg = PiConfig(kind="picamera2", main_size=MAIN, lores_size=LORES, fps=30,
                   lens_position=2.5)
    source = Picamera2Source(cfg, exposure_file)
    source.open()
    cam = fake_picamera2.instances[0]
    name, main, lores, controls, buffers = cam.calls[0]
    assert name == "create_video_configuration"
    assert main == {"size": MAIN, "format": "RGB888"}
    assert lores == {"size": LORES, "format": "YUV420"}
    assert controls == {"FrameRate": 30} and buffers == 4
    assert cam.calls[1][0] == "configure"
    assert cam.calls[2] == ("set_controls", {
        "AeEnable": False, "AwbEnable": False, "ColourGains": (1.8, 1.4),
        "AnalogueGain": 2.0, "ExposureTime": 8000, "AfMode": 0, "LensPosition": 2.5})
    frames = source.frames()
    first = next(frames)
    assert first.bgr().shape == (MAIN[1], MAIN[0], 3)  # copied out while the request is held
    got = [first] + [next(frames) for _ in range(4)]
    assert all(r.released for r in cam.requests[:-1])  # given back as soon as we move on
    frames.close()
    assert all(r.released for r in cam.requests)
    assert cam.arrays.count("main") == 1 and cam.arrays.count("lores") == 5
    assert got[0].grey.shape == (LORES[1], LORES[0]) and (got[0].grey == 90).all()
    assert got[1].t - got[0].t == pytest.approx(1 / 30, abs=1e-6)  # sensor timestamps
    source.close()
    assert cam.closed and not cam.started


def test_a_failing_request_is_still_released_and_reported(fake_picamera2):
    y = np.full((LORES[1], LORES[0]), 90, np.uint8)
    fake_picamera2.script = _frames(2, y)
    source = Picamera2Source(PiConfig(kind="picamera2", main_size=MAIN, lores_size=LORES))
    source.open()
    cam = fake_picamera2.instances[0]
    cam.fail_make_array = True
    with pytest.raises(CameraError, match="dmabuf gone"):
        next(source.frames())
    assert cam.requests[0].released


def test_missing_picamera2_is_a_camera_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)
    source = Picamera2Source(PiConfig(kind="picamera2"))
    with pytest.raises(CameraError, match="apt install python3-picamera2"):
        source.open()


def test_y_plane_refuses_a_wrong_shape():
    with pytest.raises(CameraError, match="not YUV420"):
        y_plane(np.zeros((10, 10), np.uint8), 120, 160)


def test_lores_motion_drives_a_read_through_the_runner(fake_picamera2, tmp_path, kit):
    """Motion is measured on the lores Y plane only: the main frame never changes here."""
    empty = np.full((LORES[1], LORES[0]), 80, np.uint8)
    landed = empty.copy()
    landed[50:60, 70:80] = 230
    flying = [empty.copy() for _ in range(3)]
    for k, f in enumerate(flying):
        f[20:40, 20 + 30 * k:40 + 30 * k] = 20
    main = np.zeros((MAIN[1], MAIN[0], 3), np.uint8)
    fake_picamera2.script = [(main, g) for g in [empty] * 8 + flying + [landed] * 10]
    svc = kit.Service(tmp_path)  # never started: the roll stays in the outbox
    cfg = kit.config(tmp_path, svc, kit.TABLE, kit.DEVICE, "s" * 32, tmp_path,
                     source={"kind": "picamera2", "main_size": MAIN, "lores_size": LORES})
    events = []
    runner = EdgeRunner(cfg, on_event=events.append, reader=kit.Reader([(3, 5)]))
    stop = threading.Event()
    thread = threading.Thread(target=runner.run, args=(stop,), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not any(e["kind"] == "read" for e in events) and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.2)
    stop.set()
    thread.join(10)
    reads = [e for e in events if e["kind"] == "read"]
    assert len(reads) == 1 and reads[0]["faces"] == [3, 5]
    cam = fake_picamera2.instances[0]
    assert all(r.released for r in cam.requests)
    assert cam.arrays.count("main") == 1  # only the settled frame is copied out in full


def test_a_wedged_capture_is_a_camera_error_the_camera_is_reopened_and_stop_returns(
        fake_picamera2, tmp_path, kit):
    """picamera2's capture_request() can wait forever on a wedged sensor or driver (audit
    t5): the camera stayed "up", was never reopened, and SIGTERM could not stop the edge."""
    import urllib.request

    still = np.full((LORES[1], LORES[0]), 80, np.uint8)
    fake_picamera2.script = _frames(1, still)
    fake_picamera2.hang_after = [5, 3, None]  # wedges after 5 frames, then 3, then never
    svc = kit.Service(tmp_path)  # never started
    cfg = kit.config(tmp_path, svc, kit.TABLE, kit.DEVICE, "s" * 32, tmp_path,
                     health={"port": 0},
                     source={"kind": "picamera2", "main_size": MAIN, "lores_size": LORES,
                             "capture_timeout_s": 0.3})
    events = []
    runner = EdgeRunner(cfg, on_event=events.append, reader=kit.Reader([(3, 5)]))
    stop = threading.Event()
    thread = threading.Thread(target=runner.run, args=(stop,), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while len(fake_picamera2.instances) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    errors = [e for e in events if e["kind"] == "camera_error"]
    assert errors and "no frame from camera 0 for 0.3 s" in errors[0]["error"]
    first = fake_picamera2.instances[0]
    assert first.closed and first.waits[-1] == pytest.approx(0.3)
    # the second camera wedges too: down (camera_up 0) while it waits to be reopened
    while not runner.metrics.value("dicecall_edge_camera_errors_total") >= 2 \
            and time.monotonic() < deadline:
        time.sleep(0.02)
    metrics = urllib.request.urlopen(runner.health_url + "/metrics").read().decode()
    assert "dicecall_edge_camera_up 0.0" in metrics
    # the third camera runs: up again, frames flowing
    while len(fake_picamera2.instances) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)
    assert runner.metrics.value("dicecall_edge_camera_up") == 1
    # a wedge now, with stop set while the capture waits: the runner stops within the
    # capture timeout
    fake_picamera2.instances[2].hangs_at = 0
    time.sleep(0.1)
    began = time.monotonic()
    stop.set()
    thread.join(5)
    assert not thread.is_alive() and time.monotonic() - began < 2


def test_lamp_frames_copy_each_main_array_and_release_every_request(fake_picamera2,
                                                                     exposure_file):
    """While the settled frame's request is held, the four lamp frames (edge/lamps.py) are
    taken from requests of their own, each given back at once: two held at a time at most
    (the fake refuses a third), every lamp off at the end."""
    y = np.full((LORES[1], LORES[0]), 90, np.uint8)
    fake_picamera2.script = [(np.full((MAIN[1], MAIN[0], 3), k, np.uint8), y)
                             for k in range(20)]
    source = Picamera2Source(PiConfig(kind="picamera2", main_size=MAIN, lores_size=LORES),
                             exposure_file)
    source.open()
    cam = fake_picamera2.instances[0]
    frames = source.frames()
    settled = next(frames)  # its request is held while the roll is read

    class Switch:
        shown: ClassVar[list] = []

        def show(self, lamp):
            self.shown.append(lamp)

    lit = source.lamp_frames(settled, Switch(), 1)
    # requests 2-9: one dropped after each switch, the next kept
    assert [int(f[0, 0, 0]) for f in lit] == [2, 4, 6, 8]
    assert all(r.released for r in cam.requests[1:]) and not cam.requests[0].released
    assert Switch.shown == [None, 0, 1, 2, None]
    frames.close()
    source.close()


def test_a_camera_that_wedges_under_the_lamps_is_a_camera_error(fake_picamera2):
    y = np.full((LORES[1], LORES[0]), 90, np.uint8)
    fake_picamera2.script = _frames(3, y)
    fake_picamera2.hang_after = [2]
    source = Picamera2Source(PiConfig(kind="picamera2", main_size=MAIN, lores_size=LORES,
                                      capture_timeout_s=0.1))
    source.open()
    frames = source.frames()
    settled = next(frames)
    shown = []
    switch = types.SimpleNamespace(show=shown.append)
    with pytest.raises(CameraError, match="under the lamps"):
        source.lamp_frames(settled, switch, 0)
    assert shown[-1] is None  # every lamp off again
    frames.close()
    source.close()
