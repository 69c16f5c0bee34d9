"""Drawing projected 3D primitives and dice onto the render canvas with OpenCV.

The canvas is an undistorted (pinhole) image with a margin on each side; the scene
renderer warps it to the distorted camera image at the end. Alongside the colour canvas an
id map records which die (index + 1) or nothing (0) is visible at each pixel, to measure
occlusion. Polygons are filled with 4 bits of sub-pixel precision and anti-aliasing.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from dicecall.datasets.camera import Camera
from dicecall.datasets.dice import FACE_AXES, FACE_NORMALS, cube_corners, pip_centres_local
from dicecall.datasets.styles import DieStyle
from dicecall.datasets.textures import Light, shade_colour

SHIFT = 4
_CIRCLE = np.stack(
    [
        np.cos(np.linspace(0, 2 * np.pi, 14, endpoint=False)),
        np.sin(np.linspace(0, 2 * np.pi, 14, endpoint=False)),
    ],
    axis=1,
)


def _rounded_square(half: float, radius: float, n: int = 4) -> np.ndarray:
    """Outline (M, 2) of a square of half size `half` with corner radius `radius`."""
    if radius <= 1e-6:
        return np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    core = half - radius
    pts = []
    for cx, cy, a0 in ((core, -core, -90), (core, core, 0), (-core, core, 90), (-core, -core, 180)):
        for a in np.radians(np.linspace(a0, a0 + 90, n)):
            pts.append([cx + radius * np.cos(a), cy + radius * np.sin(a)])
    return np.array(pts)


@lru_cache(maxsize=32)
def _template(size: float, rounding: float, spread: float):
    """Local geometry of a die style, computed once per style.

    Returns:
        (face outlines (6, M, 3), inner outlines (6, M, 3), pip centres (P, 3) for all 21
        pips, face row of each pip (P,)), in mm in the die's frame.
    """
    o = _rounded_square(1.0 - 0.8 * rounding, 2.2 * rounding)
    outline, inner, centres, owner = [], [], [], []
    for f in range(6):
        n, (u, v) = FACE_NORMALS[f], FACE_AXES[f]
        flat = o[:, :1] * u + o[:, 1:] * v
        outline.append(n * size / 2 + flat * size / 2)
        inner.append(n * size / 2 + flat * size * 0.33)
        c = pip_centres_local(f, size, spread)
        centres.append(c)
        owner += [f] * len(c)
    return np.array(outline), np.array(inner), np.vstack(centres), np.array(owner)


class Painter:
    """Fills projected polygons on a canvas and keeps the visibility id map.

    Attributes:
        canvas: BGR uint8, shape (H + 2 margin, W + 2 margin, 3).
        ids: uint8 id map, same height and width.
    """

    def __init__(self, camera: Camera, margin: int, light: Light) -> None:
        self.camera, self.margin, self.light = camera, margin, light
        shape = (camera.height + 2 * margin, camera.width + 2 * margin)
        self.canvas = np.zeros((*shape, 3), np.uint8)
        self.ids = np.zeros(shape, np.uint8)

    def px(self, pts_mm: np.ndarray) -> np.ndarray:
        """Canvas pixels (N, 2) of table-frame points (N, 3) in mm."""
        return self.camera.project_pinhole(np.asarray(pts_mm, dtype=np.float64), self.margin)

    def fill(
        self, pts_mm: np.ndarray, bgr, ident: int = 0, image: np.ndarray | None = None
    ) -> None:
        """Fills the projected polygon of `pts_mm` (N, 3), marking the id map with `ident`."""
        poly = np.round(self.px(pts_mm) * (1 << SHIFT)).astype(np.int32)
        self.fill_px(poly, bgr, ident, image)

    def fill_px(
        self, poly: np.ndarray, bgr, ident: int = 0, image: np.ndarray | None = None
    ) -> None:
        """Fills a polygon already in fixed-point canvas pixels (N, 2) int32."""
        target = self.canvas if image is None else image
        colour = tuple(float(min(255.0, c)) for c in bgr)
        cv2.fillPoly(target, [poly], colour, cv2.LINE_AA, SHIFT)
        if image is None:
            cv2.fillPoly(self.ids, [poly], ident, cv2.LINE_8, SHIFT)

    def view_dir(self, point_mm: np.ndarray) -> np.ndarray:
        """Unit vector from a table point (3,) to the camera."""
        v = self.camera.centre_mm - point_mm
        return v / np.linalg.norm(v)

    def die(
        self,
        ident: int,
        pos: np.ndarray,
        rot: np.ndarray,
        style: DieStyle,
        body_bgr,
        pip_bgr,
        pip_radius: float,
    ) -> None:
        """Draws one die: silhouette, visible faces, see-through and visible pips.

        All points of the die are projected in one batch; faces are culled by the sign of
        the normal against the direction to the camera.

        Args:
            ident: id written into the id map (die index + 1).
            pos: centre, shape (3,), mm.
            rot: local-to-table rotation, shape (3, 3).
            style: the die's style (size, rounding, translucency, gloss).
            body_bgr, pip_bgr: jittered colours for this die.
            pip_radius: pip radius as a fraction of the edge.
        """
        s, light = style.size_mm, self.light
        outline, inner, pip_c, pip_f = _template(s, style.rounding, style.pip_spread)
        m = outline.shape[1]
        axes = FACE_AXES[pip_f]  # (P, 2, 3)
        ring = _CIRCLE[None, :, :1] * axes[:, None, 0] + _CIRCLE[None, :, 1:] * axes[:, None, 1]
        front = pip_c[:, None] + FACE_NORMALS[pip_f][:, None] * 0.05 + ring * pip_radius * s
        back = pip_c[:, None] - FACE_NORMALS[pip_f][:, None] * 0.4 + ring * pip_radius * 1.1 * s
        local = np.vstack(
            [
                cube_corners(s),
                outline.reshape(-1, 3),
                inner.reshape(-1, 3),
                front.reshape(-1, 3),
                back.reshape(-1, 3),
            ]
        )
        px = np.round(self.px(pos + local @ rot.T) * (1 << SHIFT)).astype(np.int32)
        n_pip = len(pip_f) * len(_CIRCLE)
        faces_px = px[8 : 8 + 6 * m].reshape(6, m, 2)
        inner_px = px[8 + 6 * m : 8 + 12 * m].reshape(6, m, 2)
        front_px = px[8 + 12 * m : 8 + 12 * m + n_pip].reshape(len(pip_f), -1, 2)
        back_px = px[8 + 12 * m + n_pip :].reshape(len(pip_f), -1, 2)
        normals = FACE_NORMALS @ rot.T
        views = (self.camera.centre_mm - pos) - normals * s / 2
        views /= np.linalg.norm(views, axis=1, keepdims=True)
        facing = np.einsum("ij,ij->i", normals, views)
        cols = [
            shade_colour(body_bgr, normals[f], light, views[f], style.gloss, style.translucency)
            for f in range(6)
        ]
        vis = [f for f in range(6) if facing[f] > 0.0]
        edge = np.mean([cols[f] for f in vis], axis=0) * (0.75 if style.rounding > 0.02 else 1.0)
        if style.translucency > 0:
            edge = np.asarray(body_bgr) * light.colour * (0.55 + 0.5 * style.translucency)
        self.fill_px(cv2.convexHull(px[:8]), edge, ident)
        for f in vis:
            self._poly([faces_px[f]], cols[f])
            if style.translucency > 0:
                # Thick in the middle of a face: less light comes through there.
                self._poly([inner_px[f]], cols[f] * (1.0 - 0.3 * style.translucency))
        if style.translucency > 0.3:
            # Translucent acetate shows the pips of the far faces, dimmed.
            hidden = [k for k in range(len(pip_f)) if facing[pip_f[k]] < 0]
            colour = 0.22 * np.asarray(pip_bgr) + 0.78 * cols[vis[0]]
            self._poly([back_px[k] for k in hidden], colour)
        for f in vis:
            if facing[f] > 0.08:
                gain = cols[f].mean() / max(1.0, float(np.mean(body_bgr)))
                pip = np.asarray(pip_bgr) * light.colour * min(1.3, 0.55 + 0.6 * gain)
                self._poly([front_px[k] for k in np.flatnonzero(pip_f == f)], pip)

    def _poly(self, polys: list[np.ndarray], bgr) -> None:
        """Fills fixed-point polygons on the colour canvas only."""
        if polys:
            colour = tuple(float(min(255.0, c)) for c in bgr)
            cv2.fillPoly(self.canvas, polys, colour, cv2.LINE_AA, SHIFT)

    def shadow_mask(self, hulls_mm: list[tuple[np.ndarray, float]], plane_z: float) -> np.ndarray:
        """Soft shadow mask (H, W) float32 0-1 of point sets cast onto the plane z = plane_z.

        Args:
            hulls_mm: (points (N, 3) mm, darkness 0-1) per caster.
            plane_z: height of the receiving plane, mm.
        """
        mask = np.zeros(self.ids.shape, np.uint8)
        d = self.light.direction
        for pts, dark in hulls_mm:
            p = np.asarray(pts, dtype=np.float64)
            flat = p - d * ((p[:, 2] - plane_z) / max(d[2], 0.2))[:, None]
            poly = cv2.convexHull(np.round(self.px(flat) * (1 << SHIFT)).astype(np.int32))
            cv2.fillPoly(mask, [poly], int(255 * dark), cv2.LINE_AA, SHIFT)
        return mask
