"""Calls into a camera that may never return, made with a timeout.

OpenCV's VideoCapture has no timeout of its own that holds for every backend: opening a
USB camera in a bad state or an RTSP source that never answers, or reading from an
unplugged camera or a stalled stream, can wait forever, and with it the edge's read loop
(the camera stays "up", is never reopened, and a stop is never seen). So each capture gets
one daemon thread (a `Worker`) that makes every call into it, opening it included; the
caller waits for each at most its timeout.

A call that has not returned is stuck, and the thread with it. No other call is started
on that thread (OpenCV is not thread-safe in one capture), and the source does not open
the device again on a new thread while the old one is stuck (edge/sources.py): each
reopen would strand one more thread, and one more device handle, in the same fault. The
capture is released by its own thread once the stuck call returns; the thread then ends.
Daemon, so a thread that never returns never holds up the process's exit (hence no
concurrent.futures pool, whose threads the interpreter joins at exit).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger("dicecall.edge")
RELEASE_TIMEOUT_S = 2.0
STUCK_GRACE_S = 0.05  # a call that timed out may just be returning


class CallTimeout(Exception):
    """No answer within the timeout; the call goes on in the worker's thread."""


class Worker:
    """One daemon thread that makes calls one at a time, then a last `finish` cleanup."""

    def __init__(self, name: str) -> None:
        self._ask, self._done = threading.Event(), threading.Event()
        self._job: Callable[[], Any] | None = None
        self._result: Any = None
        self._cleanup: Callable[[], Any] | None = None
        self._closing = False
        self._finishing = ""
        # calls asked for and answered: unequal while one is in progress (or stuck in it)
        self._asked = self._answered = 0
        self.last_call = ""  # what the last call was ("open", "read"), for messages
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            self._ask.wait()
            self._ask.clear()
            if self._closing:
                break
            try:
                self._result = self._job()
            except Exception as exc:  # handed to the caller
                self._result = exc
            self._answered += 1
            self._done.set()
        if self._cleanup is not None:
            with contextlib.suppress(Exception):  # a device that is gone: nothing more to do
                self._cleanup()

    @property
    def stuck(self) -> bool:
        """A call is in progress (past its timeout, when the caller has gone on)."""
        return self._asked != self._answered

    @property
    def alive(self) -> bool:
        """The thread has not ended: a call or the cleanup has not returned yet."""
        return self._thread.is_alive()

    @property
    def stuck_in(self) -> str:
        """What the thread is still in: the last call's name, or the cleanup's."""
        return self.last_call if self.stuck else self._finishing

    def call(self, fn: Callable[[], Any], timeout: float, what: str) -> Any:
        """fn() on the worker's thread.

        Raises:
            CallTimeout: no answer within `timeout` seconds, or the last call is still stuck
                (then no new one is started).
        """
        if self.stuck:
            raise CallTimeout
        self.last_call = what
        self._job, self._result = fn, None
        self._done.clear()
        self._asked += 1
        self._ask.set()
        if not self._done.wait(timeout):
            raise CallTimeout
        if isinstance(self._result, Exception):
            raise self._result
        return self._result

    def finish(self, cleanup: Callable[[], Any] | None, wait: float, what: str) -> bool:
        """Ends the thread with `cleanup` (named `what`) run on it, now or once a call in
        progress returns; waits for that at most `wait` seconds, or STUCK_GRACE_S when a
        call is stuck (it may never return: waiting on it would stall a reopen, or a stop,
        as the call did). True when the thread has ended."""
        if self.stuck:
            wait = min(wait, STUCK_GRACE_S)
        self._cleanup, self._finishing = cleanup, what
        self._closing = True
        self._ask.set()
        self._thread.join(wait)
        return not self._thread.is_alive()


class TimedCapture:
    """Owns one capture: `open`, `read` with a timeout, and `release`, never two at once.

    `name` goes into the thread's name and a log line: the source as it may be shown, without
    its password (edge/redact.py), never the URI it is opened with.
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._cap = None
        self._worker = Worker(f"capture-{name}")

    def open(self, make: Callable[[], Any], timeout: float) -> None:
        """Opens the capture with `make()` (it returns an opened capture or raises).

        Raises:
            CallTimeout: `make` did not return within `timeout` seconds; a capture it makes
                later is released then.
        """
        def opened() -> None:
            self._cap = make()  # set here, so a late one is still released by the thread

        self._worker.call(opened, timeout, "open")

    def read(self, timeout: float):
        """(ok, image) as VideoCapture.read() gives it.

        Raises:
            CallTimeout: no answer within `timeout` seconds (the read goes on in its thread),
                or the last read is still stuck.
        """
        return self._worker.call(lambda: self._cap.read(), timeout, "read")

    def get(self, prop: int) -> float:
        # only between reads: the reader thread is idle then
        return self._cap.get(prop)

    @property
    def stuck_in(self) -> str:
        """The call the capture's thread is still in ("open", "read", or "release")."""
        return self._worker.stuck_in

    @property
    def alive(self) -> bool:
        """Its thread has not ended: a call or the release has not returned yet."""
        return self._worker.alive

    def release(self) -> None:
        """Releases the capture now, or as soon as a call still in progress returns."""
        if not self._worker.finish(self._release, RELEASE_TIMEOUT_S, "release"):
            log.error("video source did not release; abandoned (released when its call "
                      "returns)", extra={"source": self._name, "stuck_in": self.stuck_in})

    def _release(self) -> None:
        if self._cap is not None:
            self._cap.release()
