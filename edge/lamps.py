"""The lamps a Props & Hops table's camera switches, and the four frames taken under them.

Once the dice are still, the edge turns every lamp off and takes a frame, then each lamp
alone and a frame each (`vision.lamps.lamp_tilt` reads the top faces' angles from them),
then turns them all off again. A lamp's light needs a frame or two to fill the sensor's
rows (a rolling shutter exposes the first rows before the switch): `settle_frames` are
dropped after each switch. The exposure must stay fixed over the four (`dicecall calibrate
exposure`), or the shading is the auto-exposure's.

The lamps hang on GPIO lines (gpiozero, on a Pi only, imported when the switch opens). A
replayed folder has no lamps: its frames' lamp frames lie beside them as NAME.lamp0-3.jpg
(`dicecall datasets generate --lamps`), and a frame without them is read without lamps.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from .sources import CameraError

log = logging.getLogger("dicecall.edge")

ORDER = (None, 0, 1, 2)  # every lamp off, then each lamp alone (`vision.lamps.lamp_tilt`)


class LampSwitch(Protocol):
    def show(self, lamp: int | None) -> None:
        """Lamp `lamp` (0-2) alone on; None: every lamp off."""

    def close(self) -> None: ...


class GpioLamps:
    """Three lamps on GPIO lines (BCM numbers), through gpiozero."""

    def __init__(self, pins: Sequence[int], active_high: bool = True) -> None:
        try:
            from gpiozero import DigitalOutputDevice
        except ImportError as exc:
            raise CameraError("gpiozero is not installed (on a Pi: apt install "
                              "python3-gpiozero): the lamps cannot be switched") from exc
        self._lines = []
        try:
            for pin in pins:
                self._lines.append(DigitalOutputDevice(pin, active_high=active_high,
                                                       initial_value=False))
        except Exception as exc:  # a pin in use or absent: gpiozero's own errors
            self.close()
            raise CameraError(f"lamps on GPIO {list(pins)}: {exc}") from exc

    def show(self, lamp: int | None) -> None:
        for k, line in enumerate(self._lines):
            if k != lamp:  # off first: two lamps are never on together
                line.off()
        if lamp is not None:
            self._lines[lamp].on()

    def close(self) -> None:
        for line in self._lines:
            with contextlib.suppress(Exception):  # closing: nothing more to do for it
                line.off()
                line.close()
        self._lines = []


def switched_frames(switch: LampSwitch, grab: Callable[[], np.ndarray],
                    settle_frames: int) -> list[np.ndarray]:
    """The four lamp frames of a live camera: for each of `ORDER`, switch, drop
    `settle_frames` frames, keep the next. Every lamp is off again however it ends."""
    frames = []
    try:
        for lamp in ORDER:
            switch.show(lamp)
            for _ in range(settle_frames):
                grab()
            frames.append(grab())
    finally:
        switch.show(None)
    return frames


def replayed_frames(folder: Path, name: str) -> list[np.ndarray] | None:
    """NAME.lamp0-3.jpg beside replayed frame NAME.jpg, decoded; None if any is absent.

    Raises:
        CameraError: a lamp frame that is there but cannot be decoded.
    """
    from dicecall.vision.images import ImageError, load_image

    stem = Path(name).stem
    paths = [folder / f"{stem}.lamp{k}.jpg" for k in range(len(ORDER))]
    if not all(p.is_file() for p in paths):
        return None
    try:
        return [load_image(p) for p in paths]
    except ImageError as exc:
        raise CameraError(f"lamp frames of {name}: {exc}") from exc
