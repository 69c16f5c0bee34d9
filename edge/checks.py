"""What `dicecall edge run --check` warns about beyond the schema: settings that are valid
but would make the table miss throws. Pure over the configuration (and its zones file)."""

from __future__ import annotations

import math

from .config import EdgeConfig
from .diesize import play_die_side
from .settle import motion_pixels

ASSUMED_ASPECT = 3 / 4  # a replay or OpenCV frame's height/width when it is not configured


def _lores_size(cfg: EdgeConfig) -> tuple[tuple[int, int], bool]:
    """((w, h) of the motion frame, True when the height is assumed)."""
    src = cfg.source
    if src.kind == "picamera2":
        return tuple(src.lores_size), False
    w = cfg.settle.lores_width
    if src.kind == "opencv" and src.width and src.height:
        w = min(w, src.width)
        return (w, round(w * src.height / src.width)), False
    return (w, round(w * ASSUMED_ASPECT)), True


def _main_width(cfg: EdgeConfig) -> int | None:
    src = cfg.source
    if src.kind == "picamera2":
        return src.main_size[0]
    return src.width if src.kind == "opencv" else None


def _zones_die_side(cfg: EdgeConfig) -> float | None:
    if cfg.zones is None:
        return None
    from dicecall.calibration.zones import load_table

    return play_die_side(load_table(cfg.zones))


def calibrated_die_px(cfg: EdgeConfig) -> float | None:
    """The smallest die side over the play zones of the zones file, in motion-frame pixels;
    None without a zones file or when the reading frame's width is not configured."""
    main_w = _main_width(cfg)
    if cfg.zones is None or main_w is None:
        return None
    side = _zones_die_side(cfg)
    if side is None:
        return None
    lores_w = _lores_size(cfg)[0][0]
    return side * min(1.0, lores_w / main_w)


def motion_gate_warnings(cfg: EdgeConfig) -> list[str]:
    """Warns when one die moving alone may not count as motion (edge/settle.py, rule 1):
    the gate (changed pixels that are motion) is more than half a die's area."""
    (w, h), assumed = _lores_size(cfg)
    gate = motion_pixels(cfg.settle, (h, w))
    frame = f"{w}x{h}" + (" (height assumed 3:4 of the width)" if assumed else "")
    if cfg.settle.die_px is None and _zones_die_side(cfg) is not None:
        return []  # `edge run` takes die_px from the zones file (edge/diesize.py)
    die = calibrated_die_px(cfg)
    source = "the zones file's smallest die in play"
    if die is None and cfg.settle.die_px is not None:
        die, source = cfg.settle.die_px, "settle.die_px"
    if die is None:
        smallest = math.sqrt(2 * gate)
        return [f"settle: the die size is not known (no settle.die_px, no zones file with "
                f"die sizes): motion is {gate} changed pixels of the {frame} motion frame, "
                f"so one die under {smallest:.1f} px a side rolling alone is not seen; "
                "calibrate the zones (`dicecall calibrate zones`) or set settle.die_px to "
                "the side of a die in motion-frame pixels"]
    if gate > die ** 2 / 2:
        return [f"settle: motion is {gate} changed pixels of the {frame} motion frame, more "
                f"than half a die ({source}: {die:.1f} px a side, {die ** 2 / 2:.0f} px): "
                f"one die rolling alone may not be seen; set settle.die_px to {die:.1f}"]
    return []
