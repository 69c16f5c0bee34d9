"""A tiny progress bar on stderr (no dependency), quiet when stderr is not a terminal."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Counts finished items and redraws one status line at most 10 times a second.

    Args:
        total: number of items expected, >= 0.
        label: text before the bar.
        stream: where to draw; defaults to stderr.
        force: draw even when the stream is not a terminal.
    """

    def __init__(
        self, total: int, label: str = "", stream: TextIO | None = None, force: bool = False
    ) -> None:
        if total < 0:
            raise ValueError(f"total must be >= 0, got {total}")
        self.total, self.label, self.done = total, label, 0
        self.stream = stream or sys.stderr
        self.enabled = force or self.stream.isatty()
        self.start = self._last = time.perf_counter()

    def update(self, n: int = 1) -> None:
        """Marks `n` more items done."""
        self.done += n
        now = time.perf_counter()
        if self.enabled and (now - self._last > 0.1 or self.done >= self.total):
            self._last = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        frac = self.done / self.total if self.total else 1.0
        rate = self.done / max(now - self.start, 1e-9)
        bar = "#" * int(30 * frac)
        self.stream.write(f"\r{self.label} [{bar:<30}] {self.done}/{self.total} {rate:.1f}/s")
        self.stream.flush()

    def close(self) -> None:
        """Ends the line."""
        if self.enabled:
            self._draw(time.perf_counter())
            self.stream.write("\n")
            self.stream.flush()
