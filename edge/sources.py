"""Frame sources behind one protocol: replay folder, OpenCV VideoCapture (picamera2 in picam.py).

A source yields `Frame`s: the BGR reading frame and a small grey frame for motion, both from
the same capture. A frame that cannot be decoded is yielded with `error` set and no image,
so the runner can count and report it and go on. A camera that stops raises `CameraError`;
the runner closes it and opens it again with backoff. A finite source (a replay folder, a
video file) simply ends.
"""

from __future__ import annotations

import csv
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from .capture import CallTimeout, TimedCapture
from .framefile import decode_bgr, jpeg_problem, jpeg_size, lores_grey, motion_grey
from .redact import redact_text, redact_uri

# A URL (rtsp://, http://...), not a GStreamer pipeline that holds one after its first element.
STREAM = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


class CameraError(RuntimeError):
    """The camera cannot be opened or stopped delivering frames."""


@dataclass(frozen=True)
class Frame:
    """One capture.

    Attributes:
        t: capture time in seconds on the source's clock (sensor or replay time), increasing.
        wall: Unix time when the frame reached the edge, seconds.
        image: (H, W, 3) uint8 BGR reading frame; None when `error` is set or when `load`
            gives it on demand (valid only while the source is not advanced).
        grey: (h, w) uint8 luminance for motion (the lores stream), or None with `error`.
        label: where it came from (file name, frame number), for logs and evidence.
        error: why the frame could not be used (corrupt file, decode failure).
        size: (width, height) of the reading frame when `image` is None and `load` gives it.
    """

    t: float
    wall: float
    image: np.ndarray | None
    grey: np.ndarray | None
    label: str
    error: str | None = None
    load: Callable[[], np.ndarray] | None = field(default=None, repr=False)
    size: tuple[int, int] | None = None

    def main_size(self) -> tuple[int, int] | None:
        """(width, height) of the reading frame without loading it; None if not known."""
        if self.image is not None:
            return self.image.shape[1], self.image.shape[0]
        return self.size

    def bgr(self) -> np.ndarray:
        """The reading frame; a camera may copy it out only now (only settled frames are
        read, so the full-size copy is skipped for every other frame)."""
        if self.image is None and self.load is not None:
            return self.load()
        if self.image is None:
            raise ValueError(f"frame {self.label} has no image ({self.error})")
        return self.image


class FrameSource(Protocol):
    """What the runner needs of a camera."""

    finite: bool  # True when the source ends by itself (replay folder, video file)

    def open(self) -> None: ...

    def frames(self) -> Iterator[Frame]: ...

    def close(self) -> None: ...

    # Optional, for a Props & Hops table with lamps (edge/lamps.py): the four frames under
    # the lamps of the still scene `frame` shows, or None when the source has none.
    # def lamp_frames(self, frame, switch, settle_frames) -> list[np.ndarray] | None: ...


def read_index(folder: Path) -> list[tuple[str, float]]:
    """frames.csv of a replay folder: [(file, t_ms)], checked for increasing times."""
    index = folder / "frames.csv"
    if not index.is_file():
        raise CameraError(f"replay folder {folder}: no frames.csv")
    rows: list[tuple[str, float]] = []
    with index.open(newline="") as fh:
        reader = csv.DictReader(fh)
        if reader.fieldnames is None or not {"file", "t_ms"} <= set(reader.fieldnames):
            raise CameraError(f"{index}: header must be file,t_ms")
        for n, row in enumerate(reader, start=2):
            try:
                t = float(row["t_ms"])
            except (TypeError, ValueError):
                raise CameraError(f"{index} line {n}: t_ms {row['t_ms']!r} is not a "
                                  "number") from None
            if rows and t <= rows[-1][1]:
                raise CameraError(f"{index} line {n}: t_ms must increase")
            rows.append((row["file"], t))
    return rows


class ReplaySource:
    """Frames from a folder, paced by their timestamps (`speed` 1 = real time, 0 = no wait).

    `skip_until_ms` drops frames at or before that time (resuming after a restart). Each
    pass of a looped replay continues the clock, so time keeps increasing.
    """

    def __init__(self, folder: Path, speed: float = 1.0, loop: bool = False,
                 lores_width: int = 160, skip_until_ms: float | None = None) -> None:
        self.folder, self.speed, self.loop = Path(folder), speed, loop
        self.lores_width = lores_width
        self.skip_until_ms = skip_until_ms
        self.finite = not loop
        self._index: list[tuple[str, float]] = []

    def open(self) -> None:
        self._index = read_index(self.folder)
        if not self._index:
            raise CameraError(f"{self.folder}/frames.csv lists no frames")

    def frames(self) -> Iterator[Frame]:
        start = time.monotonic()
        offset_ms, period = 0.0, self._index[-1][1] + (self._index[-1][1] / len(self._index))
        while True:
            for name, t_ms in self._index:
                t_ms += offset_ms
                if self.skip_until_ms is not None and t_ms <= self.skip_until_ms:
                    continue
                if self.speed > 0:
                    delay = start + t_ms / 1000 / self.speed - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                yield self._load(name, t_ms)
            if not self.loop:
                return
            offset_ms += max(period, 1.0)

    def _load(self, name: str, t_ms: float) -> Frame:
        path = self.folder / name
        try:
            data = path.read_bytes()
        except OSError:
            data = None
        why = "missing" if data is None else jpeg_problem(data)
        size = None if why is not None else jpeg_size(data)
        if size is not None:
            # As a camera's lores stream: motion from a small decode, the whole frame only
            # for the frame that is read (edge/framefile.py).
            grey = motion_grey(data, size, self.lores_width)
            if grey is not None:
                return Frame(t_ms / 1000, time.time(), None, grey, name, size=size,
                             load=lambda: decode_bgr(data, name))
            why = "cannot be decoded"
        image = None
        if why is None:  # not a JPEG (PNG, ...): decoded whole
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            why = "cannot be decoded" if image is None else None
        if why is not None:
            return Frame(t_ms / 1000, time.time(), None, None, name, f"{name}: {why}")
        return Frame(t_ms / 1000, time.time(), image, lores_grey(image, self.lores_width), name)

    def lamp_frames(self, frame: Frame, switch, settle_frames: int) -> list[np.ndarray] | None:
        """The replayed frame's lamp frames, NAME.lamp0-3.jpg beside it (edge/lamps.py);
        None when it has none. A replay switches no lamp."""
        from .lamps import replayed_frames

        return replayed_frames(self.folder, frame.label)

    def close(self) -> None:
        self._index = []


class OpenCVSource:
    """USB camera (index), RTSP/HTTP stream or video file through `cv2.VideoCapture`.

    A video file is finite and ends at its first failed read. Opening (VideoCapture(), its
    settings and the first frame) is a CameraError when not done within `open_timeout_s`
    (at least the read timeout): a USB camera in a bad state or an RTSP source that never
    answers can block VideoCapture() forever. A camera or stream is a CameraError (closed and
    opened again by the runner) when a read gives no answer for `capture_timeout_s` (at least
    three frame times), or fails `failed_reads` times in a row: an RTSP stream that drops one
    packet is not worth a reopen, an unplugged camera is. A capture whose open or read is
    stuck is not opened again until that call returns (edge/capture.py): a CameraError
    each time instead, so stuck threads never pile up; a stream's FFmpeg backend is given
    the same timeouts, so its stuck call returns soon after. Times are the capture's own position
    for files, the monotonic clock otherwise. Messages name the source without its password
    or query tokens (edge/redact.py): `uri` itself is only handed to VideoCapture().
    """

    def __init__(self, uri: int | str, width: int | None = None, height: int | None = None,
                 fps: float | None = None, lores_width: int = 160,
                 capture_timeout_s: float = 2.0, failed_reads: int = 3,
                 open_timeout_s: float = 10.0) -> None:
        self.uri, self.width, self.height, self.fps = uri, width, height, fps
        self.shown = redact_uri(uri)  # the source in messages: they reach logs and events
        self.lores_width = lores_width
        self.timeout_s = max(capture_timeout_s, 3 / fps) if fps else capture_timeout_s
        # the first frame is part of the open: never less time than any other frame gets
        self.open_timeout_s = max(open_timeout_s, self.timeout_s)
        self.failed_reads = failed_reads
        self.finite = isinstance(uri, str) and Path(uri).is_file()
        self._cap: TimedCapture | None = None
        self._first = None  # the first read's (ok, image), made by open()
        # a closed capture whose thread is still in a call: no reopen until it returns
        self._stuck: TimedCapture | None = None

    def _make(self):
        if isinstance(self.uri, str) and STREAM.match(self.uri):
            # A stream's backend (FFmpeg) gives up by itself when told to, so a call that
            # timed out here returns soon after and the source can be opened again; left
            # to OpenCV's 30 s default, a stream that accepts and never answers kept the
            # source down that long after each timeout (measured with a silent socket).
            cap = cv2.VideoCapture(self.uri, cv2.CAP_FFMPEG, [
                cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, round(1000 * self.open_timeout_s),
                cv2.CAP_PROP_READ_TIMEOUT_MSEC, round(1000 * self.timeout_s)])
        else:  # an index, a file or a pipeline: V4L2 refuses parameters it does not take
            cap = cv2.VideoCapture(self.uri)
        if not cap.isOpened():
            cap.release()
            raise CameraError(f"cannot open video source {self.shown!r}")
        for prop, value in ((cv2.CAP_PROP_FRAME_WIDTH, self.width),
                            (cv2.CAP_PROP_FRAME_HEIGHT, self.height),
                            (cv2.CAP_PROP_FPS, self.fps)):
            if value is not None:
                cap.set(prop, value)
        return cap

    def open(self) -> None:
        if self._stuck is not None and self._stuck.alive:
            raise CameraError(f"video source {self.shown!r} is not opened again until its "
                              f"stuck {self._stuck.stuck_in} returns (its capture is "
                              "released then)")
        self._stuck = None
        cap = TimedCapture(str(self.shown))
        deadline = time.monotonic() + self.open_timeout_s
        what = "did not open"
        try:
            cap.open(self._make, self.open_timeout_s)
            what = "gave no first frame"
            self._first = cap.read(max(deadline - time.monotonic(), 0.0))
        except CallTimeout:
            self._drop(cap)
            raise CameraError(f"video source {self.shown!r} {what} within "
                              f"{self.open_timeout_s:g} s (open_timeout_s)") from None
        except CameraError:
            self._drop(cap)
            raise
        except Exception as exc:  # a backend error inside VideoCapture() or read()
            self._drop(cap)
            raise CameraError(f"cannot open video source {self.shown!r}: "
                              f"{self._why(exc)}") from None
        self._cap = cap

    def _read(self):
        if self._first is not None:
            first, self._first = self._first, None
            return first
        try:
            return self._cap.read(self.timeout_s)
        except CallTimeout:
            raise CameraError(f"no frame from video source {self.shown!r} for "
                              f"{self.timeout_s:g} s (read timed out)") from None
        except Exception as exc:  # a backend error inside read()
            raise CameraError(f"video source {self.shown!r}: read failed: "
                              f"{self._why(exc)}") from None

    def frames(self) -> Iterator[Frame]:
        if self._cap is None:
            raise CameraError("source is not open")
        n = failed = 0
        while True:
            ok, image = self._read()
            if not ok or image is None:
                if self.finite:
                    return
                failed += 1
                if failed >= self.failed_reads:
                    raise CameraError(f"video source {self.shown!r} gave no frame in {failed} "
                                      "reads in a row")
                continue
            n, failed = n + 1, 0
            # A file's own clock, so a video replays with its timing at any decode speed.
            t = self._cap.get(cv2.CAP_PROP_POS_MSEC) / 1000 if self.finite else time.monotonic()
            yield Frame(t, time.time(), image, lores_grey(image, self.lores_width), f"#{n}")

    def lamp_frames(self, frame: Frame, switch, settle_frames: int) -> list[np.ndarray]:
        """The four frames under the lamps (edge/lamps.py), read from the capture."""
        from .lamps import switched_frames

        def grab() -> np.ndarray:
            ok, image = self._read()
            if not ok or image is None:
                raise CameraError(f"video source {self.shown!r} gave no frame under the lamps")
            return image

        return switched_frames(switch, grab, settle_frames)

    def _why(self, exc: Exception) -> str:
        # A backend's text may quote the URI (or its password) as given: masked, and the
        # exception not chained, so no traceback logged later carries it either.
        return f"{type(exc).__name__}: {redact_text(str(exc), self.uri)}"

    def _drop(self, cap: TimedCapture) -> None:
        cap.release()  # now, or once a call still in progress returns
        if cap.alive:
            self._stuck = cap

    def close(self) -> None:
        cap, self._cap, self._first = self._cap, None, None
        if cap is not None:
            self._drop(cap)


def build_source(cfg, resume_ms: float | None = None) -> FrameSource:
    """The configured source (`cfg` is an EdgeConfig); picamera2 is imported only if used."""
    src, lores = cfg.source, cfg.settle.lores_width
    if src.kind == "replay":
        return ReplaySource(src.path, src.speed, src.loop, lores, resume_ms)
    if src.kind == "opencv":
        from .config import check_debug_output

        check_debug_output(cfg)
        return OpenCVSource(src.uri, src.width, src.height, src.fps, lores,
                            src.capture_timeout_s, src.failed_reads, src.open_timeout_s)
    from .picam import Picamera2Source

    return Picamera2Source(src, cfg.exposure)
