"""Exact labels of a settled scene, read from the physics state and the camera model.

Stacked, cocked, leaning and zone come from the contact points pybullet reports for each
die, never from what a forced placement intended.
"""

from __future__ import annotations

import cv2
import numpy as np

from dicecall.datasets.camera import Camera
from dicecall.datasets.dice import (
    COCKED_TILT_DEG,
    FACE_VALUES,
    cube_corners,
    face_corners_local,
    pip_centres_local,
    quat_to_matrix,
    top_face,
)
from dicecall.datasets.layouts import Layout
from dicecall.datasets.physics import DieState
from dicecall.datasets.schema import DieLabel
from dicecall.datasets.styles import DieStyle

GROUND = ("floor", "table", "rail")


def support(state: DieState, size_mm: float) -> tuple[int | None, int | None, bool]:
    """What holds a die up.

    Args:
        state: the die's rest state.
        size_mm: its edge length.

    Returns:
        (die index it rests on or None, chip stack index it rests on or None, touches ground).
        A die rests on another die or on chips when it touches them below its centre and
        touches no floor, table or rail (623a.8(b), 623a.8(c)(3)).
    """
    below = state.position_mm[2] - 0.2 * size_mm
    # Only contacts under the die hold it up; a rail or box wall touched at the side does not.
    ground = any(c.kind in GROUND and c.point_mm[2] < below for c in state.contacts)
    dice = [c.index for c in state.contacts if c.kind == "die" and c.point_mm[2] < below]
    chips = [c.index for c in state.contacts if c.kind == "chips" and c.point_mm[2] < below]
    on_die = max(set(dice), key=dice.count) if dice and not ground else None
    on_chips = chips[0] if chips and not ground and on_die is None else None
    return on_die, on_chips, ground


def _leaning(state: DieState, cocked: bool, resting_on: int | None) -> str | None:
    if not cocked:
        return None
    kinds = {c.kind for c in state.contacts if not (c.kind == "die" and c.index == resting_on)}
    for kind, name in (("die", "die"), ("chips", "chips"), ("wall", "wall"), ("rail", "wall")):
        if kind in kinds:
            return name
    return None


def _clip_box(pts: np.ndarray, w: int, h: int) -> list[float]:
    x0, y0 = np.clip(pts.min(axis=0), 0, [w, h])
    x1, y1 = np.clip(pts.max(axis=0), 0, [w, h])
    return [round(float(x0), 2), round(float(y0), 2), round(float(x1), 2), round(float(y1), 2)]


def die_label(
    i: int, state: DieState, style: DieStyle, layout: Layout, camera: Camera, ids: np.ndarray
) -> DieLabel:
    """Builds the label of die `i`.

    Args:
        i: die index in the scene.
        state: rest state from the physics.
        style: the die's style.
        layout: scene geometry (zones).
        camera: the camera that took the image.
        ids: id map of the final image (H, W) uint8, die i drawn as i + 1.
    """
    s, rot = style.size_mm, quat_to_matrix(state.quat_xyzw)
    face, tilt, margin = top_face(rot)
    on_die, on_chips_idx, _ = support(state, s)
    stack = layout.chips[on_chips_idx] if on_chips_idx is not None else None
    zone = layout.zone_of(state.position_mm, stack)
    cocked = tilt > COCKED_TILT_DEG
    corners_px = camera.project(state.position_mm + cube_corners(s) @ rot.T)
    w, h = camera.width, camera.height
    area = cv2.contourArea(cv2.convexHull(corners_px.astype(np.float32)))
    visible = float(np.count_nonzero(ids == i + 1)) / max(area, 1.0)
    f_idx = int(np.flatnonzero(face == FACE_VALUES)[0])
    top = camera.project(state.position_mm + face_corners_local(f_idx, s) @ rot.T)
    pips = camera.project(state.position_mm + pip_centres_local(f_idx, s, style.pip_spread) @ rot.T)
    pips = pips[(pips[:, 0] >= 0) & (pips[:, 0] < w) & (pips[:, 1] >= 0) & (pips[:, 1] < h)]
    touching = sorted({c.index for c in state.contacts if c.kind == "die"})
    return DieLabel(
        face=face,
        box=_clip_box(corners_px, w, h),
        position_mm=[round(float(v), 3) for v in state.position_mm],
        quat_xyzw=[float(v) for v in state.quat_xyzw],
        tilt_deg=round(tilt, 3),
        up_margin_deg=round(margin, 3),
        cocked=cocked,
        stacked=on_die is not None,
        resting_on=on_die,
        leaning_on=_leaning(state, cocked, on_die),
        touching=touching,
        zone=zone,
        in_zone=layout.in_zone(zone, stack),
        top_corners=np.round(top, 2).tolist(),
        pips=np.round(pips, 2).tolist(),
        visible=round(min(1.0, visible), 3),
        style=style.name,
        size_mm=s,
    )
