"""The die size that settle detection needs (`settle.die_px`), from the calibrated zones file.

`dicecall calibrate zones` writes each zone's die side in reading-frame pixels
(`DieSize.min_px`: the smallest over the zone's vertices and centroid, measured from the die
size in mm through the table's pose). Motion is measured on the smaller motion frame, so
that side is scaled down to it; by the smaller of the two axes' ratios when they differ (a
lores stream of another aspect), since a die taken as too small only makes the gate more
sensitive, one taken as too large can hide it again.
"""

from __future__ import annotations

from dicecall.calibration.zones import play_die_px

DIE_PX_MIN = 2.0  # SettleConfig.die_px's own floor


def play_die_side(table) -> float | None:
    """The smallest die side over the play zones, reading-frame pixels (None: none known)."""
    return play_die_px(table.zones_mm, table.die_px)


def motion_die_px(side: float, frame: tuple[int, int], motion: tuple[int, int]) -> float:
    """`side` in the reading frame (w, h) as pixels of the motion frame (w, h)."""
    scale = min(1.0, motion[0] / frame[0], motion[1] / frame[1])
    return max(DIE_PX_MIN, round(side * scale, 2))
