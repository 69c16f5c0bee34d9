"""Picamera2Source when opening or closing the camera never returns, against a fake
`picamera2` module (no Pi): `Picamera2()` or `start()` blocked on a wedged sensor or driver
is a camera error within `open_timeout_s`, the camera is not opened again while that call
is stuck (one stuck thread, never more), and is closed once it returns."""

from __future__ import annotations

import sys
import threading
import time
import types
from typing import ClassVar

import pytest

from dicecall.edge.config import Picamera2Source as PiConfig
from dicecall.edge.picam import Picamera2Source
from dicecall.edge.sources import CameraError

from .blocking import until, within


class Camera:
    """Blocks in `where` ("__init__", "start", "stop") until `gate` is set, or raises in it
    when `fail` is set."""

    where: ClassVar[str] = ""
    fail: ClassVar[bool] = False
    gate: ClassVar[threading.Event] = threading.Event()
    made: ClassVar[list] = []

    def __init__(self, camera_num: int = 0) -> None:
        self.started = self.closed = False
        Camera.made.append(self)
        self._step("__init__")

    def _step(self, name: str) -> None:
        if Camera.where == name:
            if Camera.fail:
                raise RuntimeError(f"{name} failed")
            Camera.gate.wait()

    def create_video_configuration(self, **kw) -> dict:
        return kw

    def configure(self, config) -> None:
        self._step("configure")

    def set_controls(self, controls) -> None:
        pass

    def start(self) -> None:
        self._step("start")
        self.started = True

    def stop(self) -> None:
        self._step("stop")
        self.started = False

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def camera(monkeypatch):
    module = types.ModuleType("picamera2")
    module.Picamera2 = Camera
    monkeypatch.setitem(sys.modules, "picamera2", module)
    Camera.where, Camera.fail, Camera.gate, Camera.made = "", False, threading.Event(), []
    yield Camera
    Camera.gate.set()  # let no stuck thread outlive the test


STUCK_OPEN = "camera 0 is not opened again until its stuck open returns (closed then)"


@pytest.mark.parametrize("where", ["__init__", "start"])
def test_an_open_that_hangs_is_a_camera_error_and_is_not_opened_again_beside_it(camera,
                                                                                  where):
    """Before, Picamera2() and start() ran on the edge's own thread: a camera that hung
    there hung the edge for good, nothing logged, and a stop never seen."""
    camera.where = where
    source = Picamera2Source(PiConfig(kind="picamera2", open_timeout_s=0.5))
    began = time.monotonic()
    got = within(source.open, 5)
    assert got is not None, "open() still blocked after 5 s: not timed"
    assert isinstance(got, CameraError)
    assert str(got) == "camera 0 did not open within 0.5 s (open_timeout_s)"
    assert 0.45 < time.monotonic() - began < 2
    for _ in range(3):  # each retry: refused at once, no second camera, no second thread
        with pytest.raises(CameraError) as again:
            source.open()
        assert str(again.value) == STUCK_OPEN
    assert len(camera.made) == 1
    camera.gate.set()  # the open returns at last: the camera it made is closed
    assert until(lambda: camera.made[0].closed)
    # opened again once its thread has ended
    deadline = time.monotonic() + 5
    while True:
        try:
            source.open()
            break
        except CameraError as exc:
            assert str(exc) == "camera 0 is not opened again until its stuck close returns " \
                               "(closed then)" and time.monotonic() < deadline
            time.sleep(0.01)
    assert len(camera.made) == 2 and camera.made[1].started
    source.close()


def test_a_camera_whose_open_fails_partway_is_closed(camera):
    """Before, a camera made by Picamera2() stayed acquired when configure() or start()
    failed, and every reopen found it busy."""
    camera.where, camera.fail = "configure", True
    source = Picamera2Source(PiConfig(kind="picamera2"))
    with pytest.raises(CameraError, match="cannot open camera 0: configure failed"):
        source.open()
    assert camera.made[0].closed


def test_a_close_that_hangs_is_abandoned_and_the_camera_not_opened_again_until_it_returns(
        camera):
    source = Picamera2Source(PiConfig(kind="picamera2"))
    source.open()
    camera.where = "stop"
    began = time.monotonic()
    source.close()  # given its 2 s, then abandoned
    assert time.monotonic() - began < 3
    with pytest.raises(CameraError) as again:
        source.open()
    assert str(again.value) == ("camera 0 is not opened again until its stuck close "
                                "returns (closed then)")
    assert len(camera.made) == 1
    camera.gate.set()
    assert until(lambda: camera.made[0].closed)
    camera.where = ""
    source.open()
    assert len(camera.made) == 2
    source.close()


def test_open_timeout_is_configured():
    assert PiConfig(kind="picamera2").open_timeout_s == 10.0
    with pytest.raises(ValueError, match="open_timeout_s"):
        PiConfig(kind="picamera2", open_timeout_s=0)
