"""The Raspberry Pi camera through picamera2: main RGB stream to read, lores YUV to gate motion.

picamera2 is imported only here, when the source opens (it exists only on a Pi, installed
with `apt install python3-picamera2`). Both arrays come from one `capture_request()`, so the
evidence frame is the frame whose motion was measured; the request is released in a
`finally` at once, since holding it stalls the camera's buffer queue.

A capture waits at most `capture_timeout_s` (and at least three frame times): the request
is asked for without waiting (`capture_request(wait=False)`, a job) and waited for with
`Picamera2.wait(job, timeout)`. A sensor or driver that wedges then gives a CameraError,
so the camera is reported down and closed and reopened, instead of a capture that never
returns. Opening (`Picamera2()`, configure, start) and closing a wedged camera may block
too, so both are made on one thread of the camera's own (edge/capture.py Worker): an open
is given `open_timeout_s`, a close CLOSE_TIMEOUT_S, and then abandoned (logged). While
that thread is stuck the camera is not opened again (a CameraError each time instead), so
one stuck thread at most; it closes the camera when its call returns.

Controls are fixed from calibration (`dicecall calibrate exposure`): AE and AWB off,
ExposureTime, AnalogueGain, ColourGains; autofocus off at a manual LensPosition when the
module has a focus motor. A frame read under drifting exposure or colour would not be the
frame the thresholds were calibrated on.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from .capture import CallTimeout, Worker
from .config import Picamera2Source as Picamera2Config
from .sources import CameraError, Frame

AF_MODE_MANUAL = 0  # libcamera controls.AfModeEnum.Manual
CLOSE_TIMEOUT_S = 2.0
# picamera2's Job.get_result raises concurrent.futures' TimeoutError (the builtin from 3.11)
_TIMEOUTS = (TimeoutError, concurrent.futures.TimeoutError)
log = logging.getLogger("dicecall.edge")


def load_controls(exposure: Path | None, lens_position: float | None) -> dict:
    """The fixed controls: the calibrated exposure file's `controls`, plus manual focus."""
    controls: dict = {}
    if exposure is not None:
        from dicecall.calibration.exposure import ExposureResult

        try:
            result = ExposureResult.model_validate_json(Path(exposure).read_text())
        except (OSError, ValueError) as exc:
            raise CameraError(f"exposure file {exposure}: {exc}") from exc
        controls.update(result.controls.model_dump())
        controls["ColourGains"] = tuple(controls["ColourGains"])
    if lens_position is not None:
        controls.update(AfMode=_af_manual(), LensPosition=float(lens_position))
    return controls


def _af_manual():
    try:
        from libcamera import controls as lc  # present wherever picamera2 runs on a Pi

        return lc.AfModeEnum.Manual
    except ImportError:
        return AF_MODE_MANUAL


def y_plane(yuv420: np.ndarray, height: int, width: int) -> np.ndarray:
    """The luminance of a YUV420 lores array ((H * 3 / 2, stride) uint8): rows 0..H-1.

    The array may be wider than the stream (row stride padding), so it is cut to `width`.
    """
    if yuv420.ndim != 2 or yuv420.shape[0] < height or yuv420.shape[1] < width:
        raise CameraError(f"lores array {yuv420.shape} is not YUV420 of {width}x{height}")
    return np.ascontiguousarray(yuv420[:height, :width])


class Picamera2Source:
    """Live frames from the Pi camera; never finite."""

    finite = False

    def __init__(self, cfg: Picamera2Config, exposure: Path | None = None) -> None:
        self.cfg = cfg
        self.controls = load_controls(exposure, cfg.lens_position)
        self._cam = None
        self._worker: Worker | None = None  # the thread that opened the camera, closes it
        self._busy: Worker | None = None  # one still stuck in an open or close
        self._n = 0

    def open(self) -> None:
        if self._busy is not None and self._busy.alive:
            raise CameraError(f"camera {self.cfg.camera} is not opened again until its stuck "
                              f"{self._busy.stuck_in} returns (closed then)")
        self._busy = None
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise CameraError("picamera2 is not installed (on a Pi: apt install "
                              "python3-picamera2, venv with --system-site-packages)") from exc
        cfg = self.cfg
        made: list = []  # the camera object, once made: closed unless the open hands it over

        def start():
            cam = Picamera2(cfg.camera)
            made.append(cam)
            config = cam.create_video_configuration(
                main={"size": tuple(cfg.main_size), "format": "RGB888"},
                lores={"size": tuple(cfg.lores_size), "format": "YUV420"},
                controls={"FrameRate": cfg.fps}, buffer_count=cfg.buffer_count)
            cam.configure(config)
            if self.controls:
                cam.set_controls(self.controls)
            cam.start()
            return cam

        # Picamera2() and start() can block on a wedged sensor or driver (libcamera waits on
        # the kernel): in a thread of its own, so a hung open is a camera error, not a hung
        # edge; the same thread closes the camera later.
        worker = Worker(f"picamera2-{cfg.camera}")
        try:
            self._cam = worker.call(start, cfg.open_timeout_s, "open")
        except Exception as exc:  # libcamera raises RuntimeError and others
            if not worker.finish(lambda: made and _shut(made[0]), CLOSE_TIMEOUT_S, "close"):
                self._busy = worker  # closed if its open returns
            if isinstance(exc, CallTimeout):
                raise CameraError(f"camera {cfg.camera} did not open within "
                                  f"{cfg.open_timeout_s:g} s (open_timeout_s)") from None
            raise CameraError(f"cannot open camera {cfg.camera}: {exc}") from exc
        self._worker = worker

    def frames(self) -> Iterator[Frame]:
        if self._cam is None:
            raise CameraError("camera is not open")
        w, h = self.cfg.lores_size
        timeout = max(self.cfg.capture_timeout_s, 3 / self.cfg.fps)
        while True:
            try:
                job = self._cam.capture_request(wait=False)
                request = self._cam.wait(job, timeout=timeout)
            except _TIMEOUTS as exc:
                raise CameraError(f"no frame from camera {self.cfg.camera} for {timeout:g} s "
                                  "(capture timed out)") from exc
            except Exception as exc:
                raise CameraError(f"capture failed: {exc}") from exc
            try:  # the request is released however the consumer leaves this frame
                try:
                    grey = y_plane(request.make_array("lores"), h, w)
                    meta = request.get_metadata()
                except CameraError:
                    raise
                except Exception as exc:
                    raise CameraError(f"reading the request failed: {exc}") from exc
                self._n += 1
                ts = meta.get("SensorTimestamp")
                t = ts / 1e9 if ts else time.monotonic()
                # "RGB888" is B, G, R in memory. The full-size copy is made only for the
                # frame that is read, while this request is still held.
                yield Frame(t, time.time(), None, grey, f"#{self._n}",
                            load=lambda r=request: r.make_array("main"))
            finally:
                request.release()

    def lamp_frames(self, frame: Frame, switch, settle_frames: int) -> list[np.ndarray]:
        """The four frames under the lamps (edge/lamps.py), each a main array copied out of
        its own request; the exposure is the calibrated, fixed one."""
        from .lamps import switched_frames

        timeout = max(self.cfg.capture_timeout_s, 3 / self.cfg.fps)

        def grab() -> np.ndarray:
            try:
                request = self._cam.wait(self._cam.capture_request(wait=False), timeout=timeout)
            except _TIMEOUTS as exc:
                raise CameraError(f"no frame from camera {self.cfg.camera} under the lamps "
                                  f"for {timeout:g} s") from exc
            try:
                return request.make_array("main")
            finally:
                request.release()

        return switched_frames(switch, grab, settle_frames)

    def close(self) -> None:
        cam, self._cam = self._cam, None
        worker, self._worker = self._worker, None
        if cam is None:
            return
        # A wedged camera may block stop() as it blocked the capture: the runner must still
        # reopen it (or stop) rather than wait forever.
        if not worker.finish(lambda: _shut(cam), CLOSE_TIMEOUT_S, "close"):
            self._busy = worker
            log.error("camera did not close; abandoned", extra={
                "camera": self.cfg.camera, "timeout_s": CLOSE_TIMEOUT_S})


def _shut(cam) -> None:
    for step in (cam.stop, cam.close):
        with contextlib.suppress(Exception):  # a camera that died: nothing more to do
            step()
