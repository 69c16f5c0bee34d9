"""`cv2.VideoCapture.read()` with a timeout.

OpenCV's read() has no timeout of its own that holds for every backend: an unplugged USB
camera or a stalled RTSP stream can leave it waiting forever, and with it the edge's read
loop (the camera stays "up", is never reopened, and a stop is never seen). So each opened
capture gets one daemon thread that does the reads; the caller waits for each at most the
timeout. A capture must not be released while a read is in progress in it (OpenCV is not
thread-safe there), so the reader thread itself releases it, once its last read returns;
a read that never returns leaves the capture abandoned (logged) rather than the edge stuck.
Daemon, so an abandoned thread never holds up the process's exit.
"""

from __future__ import annotations

import contextlib
import logging
import threading

log = logging.getLogger("dicecall.edge")
RELEASE_TIMEOUT_S = 2.0
STUCK_GRACE_S = 0.05  # a read that timed out may just be returning


class ReadTimeout(Exception):
    """No answer from read() within the timeout."""


class TimedCapture:
    """Owns an opened capture: `read(timeout)` and `release()`, never at the same time."""

    def __init__(self, cap, name: str) -> None:
        self._cap, self._name = cap, name
        self._ask, self._done = threading.Event(), threading.Event()
        self._result = None
        self._closing = False
        # reads asked for and answered: unequal while one is in progress (or stuck in it)
        self._asked = self._answered = 0
        self._thread = threading.Thread(target=self._run, name=f"capture-{name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            self._ask.wait()
            self._ask.clear()
            if self._closing:
                break
            try:
                self._result = self._cap.read()
            except Exception as exc:  # handed to the caller, which makes it a camera error
                self._result = exc
            self._answered += 1
            self._done.set()
        with contextlib.suppress(Exception):  # a device that is gone: nothing more to do
            self._cap.release()

    def read(self, timeout: float):
        """(ok, image) as VideoCapture.read() gives it.

        Raises:
            ReadTimeout: no answer within `timeout` seconds (the read goes on in its thread).
        """
        if self._asked != self._answered:  # the last read never came back
            raise ReadTimeout
        self._done.clear()
        self._asked += 1
        self._ask.set()
        if not self._done.wait(timeout):
            raise ReadTimeout
        if isinstance(self._result, Exception):
            raise self._result
        return self._result

    def get(self, prop: int) -> float:
        # only between reads: the reader thread is idle then
        return self._cap.get(prop)

    def release(self) -> None:
        """Releases the capture now, or as soon as a read still in progress returns."""
        self._closing = True
        self._ask.set()
        # A read stuck past its timeout may never return: waiting on it would stall the
        # reopen (and a stop) as the read did. A release that blocks gets a short while.
        stuck = self._asked != self._answered
        self._thread.join(STUCK_GRACE_S if stuck else RELEASE_TIMEOUT_S)
        if self._thread.is_alive():
            log.error("video source did not release; abandoned (released if its read "
                      "returns)", extra={"source": self._name})
