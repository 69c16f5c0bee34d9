"""Waiting on calls that may block, for the tests of cameras that hang."""

from __future__ import annotations

import threading
import time


def within(fn, seconds: float):
    """fn() on a thread: what it returned or raised, or None while still blocked."""
    out: list = []

    def step() -> None:
        try:
            out.append(fn())
        except BaseException as exc:  # handed back to the test
            out.append(exc)

    worker = threading.Thread(target=step, daemon=True)
    worker.start()
    worker.join(seconds)
    return out[0] if out else None


def until(condition, seconds: float = 5) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()
