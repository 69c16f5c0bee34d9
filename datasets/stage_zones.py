"""The zones of a sequence's table as the edge loads them, and the verdict a perfect reader
would reach on a rest frame (the bundle's truth).

The camera is known exactly, so the table calibration that `dicecall calibrate zones` would
measure is written directly from it: the same `TableCalibration` file, with zero error.
"""

from __future__ import annotations

import cv2
import numpy as np

from dicecall.datasets.layouts import CHIP_DIAMETER_MM
from dicecall.datasets.physics import RAIL_WIDTH_MM
from dicecall.datasets.schema import MIN_VISIBLE, DieLabel
from dicecall.datasets.stage import Stage


def zones_file(stage: Stage):
    """The table's zones in mm (calibration's `ZonesFile`)."""
    from dicecall.calibration.layout import ZonesFile, ZoneSpec

    lay, s = stage.layout, stage.styles[0].size_mm

    def box(x0, y0, x1, y1):
        return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]

    if stage.kind == "shaker":
        a = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        ring = [(float(lay.radius_mm * np.cos(t)), float(lay.radius_mm * np.sin(t))) for t in a]
        zones = [ZoneSpec(name="shaker", role="play", polygon_mm=ring, z_mm=lay.floor_mm)]
    elif stage.kind == "throwbox":
        hx, hy = lay.half_x_mm, lay.half_y_mm
        zones = [ZoneSpec(name="throw_box", role="play", polygon_mm=box(-hx, -hy, hx, hy),
                          z_mm=lay.floor_mm),
                 ZoneSpec(name="held", role="held", polygon_mm=box(*stage.held_mm))]
    else:
        hx, hy = lay.half_x_mm, lay.half_y_mm
        bank = [c for c in lay.chips if c.bank]
        r = CHIP_DIAMETER_MM / 2 + s / 2
        top = max(c.height_mm for c in bank)
        zones = [
            ZoneSpec(name="table", role="play", polygon_mm=box(-hx, -hy, hx, hy)),
            # 623a.8(c)(3),(4): a die at rest on the bank chips or on a rail.
            ZoneSpec(name="bank_chips", role="no_roll", z_mm=top,
                     polygon_mm=box(min(c.x_mm for c in bank) - r, -hy,
                                    max(c.x_mm for c in bank) + r, bank[0].y_mm + r)),
            ZoneSpec(name="rail", role="no_roll", z_mm=lay.height_mm,
                     polygon_mm=box(hx, -hy - RAIL_WIDTH_MM, hx + RAIL_WIDTH_MM,
                                    hy + RAIL_WIDTH_MM)),
        ]
    return ZonesFile(die_mm=s, zones=zones)


def table_calibration(stage: Stage):
    """The `TableCalibration` of the stage's exact camera (zero reprojection error)."""
    from dicecall.calibration.camera_model import CameraIntrinsics
    from dicecall.calibration.table import TablePose
    from dicecall.calibration.zones import calibrate_zones

    cam = stage.camera
    rvec = cv2.Rodrigues(cam.rot)[0].ravel()
    tvec = -cam.rot @ cam.centre_mm
    h = cam.k @ np.column_stack([cam.rot[:, 0], cam.rot[:, 1], tvec])
    intr = CameraIntrinsics(camera="synthetic", width=cam.width, height=cam.height,
                            k=cam.k.tolist(), dist=cam.dist.tolist(), rms_px=0.0, views_used=1,
                            board="exact camera of `dicecall datasets sequence`")
    pose = TablePose(homography=(h / h[2, 2]).tolist(), rvec=rvec.tolist(),
                     tvec=tvec.tolist(), intrinsics=intr, source="synthetic", points=4,
                     rms_px=0.0, max_px=0.0)
    return calibrate_zones(pose, zones_file(stage))


def ideal_verdict(labels: list[DieLabel], game: str, expected: int, zones) -> dict:
    """The verdict on a rest frame of a reader that reads every visible die exactly.

    Args:
        labels: every die in the frame (thrown and held).
        zones: the verdict's pixel `Zones`.

    Returns:
        {"status", "faces", "reasons": [{"code", "section", "status"}]}.
    """
    from dicecall.vision.dice import Dice
    from dicecall.vision.profiles import profile
    from dicecall.vision.verdict import verdict

    # As bench/bench_verdicts.py: a die less than 30 % visible (under another die, out of
    # view) is not seen; the count rule then calls it missing.
    seen = [d for d in labels if d.visible >= MIN_VISIBLE]
    n = len(seen)
    boxes = np.array([d.box for d in seen], np.float32).reshape(n, 4)
    face = np.array([d.face for d in seen], np.int64)
    probs = np.zeros((n, 6), np.float32)
    probs[np.arange(n), face - 1] = 1.0
    dice = Dice(centers=(boxes[:, :2] + boxes[:, 2:]) / 2, boxes=boxes, face=face.astype(np.int8),
                face_probs=probs, pip_face=face.astype(np.int8),
                tilt=np.array([float(bool(d.cocked)) for d in seen], np.float32),
                stacked=np.array([float(bool(d.stacked)) for d in seen], np.float32),
                det_score=np.ones(n, np.float32))
    v = verdict(dice, profile(game, expected), zones)
    return {"status": v.status, "faces": list(v.faces),
            "reasons": [{"code": r.code, "section": r.section, "status": r.status}
                        for r in v.reasons]}
