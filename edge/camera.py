"""Keeps a frame source running: open, pump frames, and on failure close and reopen it with
exponential backoff (0.5 s doubling to 30 s, reset by the next good frame)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from .sources import CameraError, Frame, FrameSource

BACKOFF_START_S, BACKOFF_MAX_S = 0.5, 30.0


def pump(source: FrameSource, on_frame: Callable[[Frame], None], stop: threading.Event,
         on_state: Callable[[str], None], on_error: Callable[[str, float], None]) -> str:
    """Feeds every frame to `on_frame` until `stop` is set or a finite source ends.

    Args:
        on_state: told "up" when the source opened, "down" when it failed.
        on_error: told the error and the seconds until the next attempt.

    Returns:
        "ended" (a finite source is exhausted) or "stopped".
    """
    backoff = BACKOFF_START_S
    while not stop.is_set():
        frames = None
        try:
            source.open()
            on_state("up")
            frames = source.frames()
            for frame in frames:
                on_frame(frame)
                backoff = BACKOFF_START_S
                if stop.is_set():
                    return "stopped"
            if source.finite:
                return "ended"
            raise CameraError("the source ended")
        except CameraError as exc:
            on_state("down")
            on_error(str(exc), backoff)
            stop.wait(backoff)
            backoff = min(backoff * 2, BACKOFF_MAX_S)
        finally:
            if hasattr(frames, "close"):
                frames.close()  # a camera source releases the request it holds
            source.close()
    return "stopped"
