"""Calibration targets: printable boards and marker sheets, and photos of them rendered
with a known camera (for tests, demos and checking a calibration end to end).

Board frame: millimetres, origin at the board's top-left outer corner, x right, y down the
printed page, z into the board. Table frame (markers, zones): millimetres, x right and y away
from the dealer on the printed layout, z up; see `table.MarkerLayout`.
"""

from __future__ import annotations

from typing import Literal

import cv2
import numpy as np
from pydantic import BaseModel, Field

from dicecall.vision.config import STRICT

ARUCO_DICTS = ("DICT_4X4_50", "DICT_4X4_100", "DICT_5X5_100", "DICT_6X6_250")


def aruco_dictionary(name: str):
    """The predefined OpenCV ArUco dictionary called `name` (one of ARUCO_DICTS)."""
    if name not in ARUCO_DICTS:
        raise ValueError(f"unknown ArUco dictionary {name!r}; use one of {ARUCO_DICTS}")
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


class BoardSpec(BaseModel):
    """A printed checkerboard or ChArUco board, counted in squares."""

    model_config = STRICT

    kind: Literal["checkerboard", "charuco"] = Field("charuco", description="board type")
    cols: int = Field(9, ge=3, le=40, description="squares across")
    rows: int = Field(6, ge=3, le=40, description="squares down")
    square_mm: float = Field(25.0, gt=1.0, le=500.0, description="square side, mm")
    marker_mm: float = Field(18.0, gt=0.5, le=500.0, description="ChArUco marker side, mm")
    # 5x5 markers keep a ChArUco board from being read as the table's 4x4 markers.
    dictionary: str = Field("DICT_5X5_100", description="ChArUco marker dictionary")

    def describe(self) -> str:
        extra = f", markers {self.marker_mm} mm {self.dictionary}" if self.kind == "charuco" else ""
        return f"{self.kind} {self.cols}x{self.rows} squares of {self.square_mm} mm{extra}"

    def charuco(self):
        """The OpenCV `CharucoBoard` of this spec (ChArUco boards only)."""
        return cv2.aruco.CharucoBoard((self.cols, self.rows), self.square_mm, self.marker_mm,
                                      aruco_dictionary(self.dictionary))

    def inner_corners(self) -> np.ndarray:
        """(K, 3) float32 inner corners in the board frame, mm, row by row (OpenCV order)."""
        i, j = np.meshgrid(np.arange(1, self.cols), np.arange(1, self.rows))
        pts = np.stack([i.ravel(), j.ravel(), np.zeros(i.size)], 1) * [self.square_mm,
                                                                        self.square_mm, 1]
        return pts.astype(np.float32)

    def image(self, px_per_mm: float, margin_mm: float = 10.0) -> np.ndarray:
        """The board as a printable (H, W) uint8 image with a white margin."""
        m = round(margin_mm * px_per_mm)
        w, h = round(self.cols * self.square_mm * px_per_mm), round(self.rows * self.square_mm
                                                                    * px_per_mm)
        if self.kind == "charuco":
            return self.charuco().generateImage((w + 2 * m, h + 2 * m), marginSize=m)
        yy, xx = np.mgrid[0:h, 0:w]
        sq = self.square_mm * px_per_mm
        board = np.where(((xx // sq).astype(int) + (yy // sq).astype(int)) % 2 == 0, 0, 255)
        return cv2.copyMakeBorder(board.astype(np.uint8), m, m, m, m, cv2.BORDER_CONSTANT,
                                  value=255)


def look_at(eye_mm, target_mm, up=(0.0, -1.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
    """Pose of a camera at `eye_mm` looking at `target_mm` (both in the target's frame).

    Returns:
        (rvec (3,), tvec (3,)) float64: target frame -> camera frame (x right, y down).
    """
    eye, target = np.asarray(eye_mm, float), np.asarray(target_mm, float)
    z = target - eye
    z /= np.linalg.norm(z)
    x = np.cross(z, np.asarray(up, float))
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    rot = np.stack([x, y, z])
    return cv2.Rodrigues(rot)[0].ravel(), -rot @ eye


def plane_matrix(rvec, tvec, flip_y: bool = False) -> np.ndarray:
    """(3, 3) matrix taking plane points (x, y, 1) in mm to camera rays, [r1 r2 t].

    `flip_y` describes a texture drawn with y down on a plane whose frame has y up (the table).
    """
    rot = cv2.Rodrigues(np.asarray(rvec, float))[0]
    sign = -1.0 if flip_y else 1.0
    return np.column_stack([rot[:, 0], sign * rot[:, 1], np.ravel(tvec)])


def render_view(texture: np.ndarray, px_per_mm: float, origin_mm, k: np.ndarray,
                dist: np.ndarray, plane: np.ndarray, size: tuple[int, int],
                supersample: int = 2, background: int = 90) -> np.ndarray:
    """Photographs a flat texture with a distorting pinhole camera, exactly.

    For each output pixel the distortion is inverted (iteratively), the ray is met with the
    plane z = 0 of the texture's frame, and the texture is sampled there; `supersample`^2
    rays per pixel then average to anti-alias the edges as a lens and sensor would.

    Args:
        texture: (Th, Tw) or (Th, Tw, 3) uint8; pixel (i, j) covers frame millimetres
            origin + ([j, j+1), [i, i+1)) / px_per_mm.
        px_per_mm: texture resolution.
        origin_mm: (x, y) of the texture's top-left corner in the plane's frame, mm.
        k, dist: true intrinsics (3, 3) and distortion (D,).
        plane: (3, 3) plane -> camera matrix from `plane_matrix`.
        size: output (width, height) in pixels.

    Returns:
        Image like `texture` of shape (height, width[, 3]), uint8.
    """
    w, h = size
    s = supersample
    norm = _normalised_rays(k, dist, w * s, h * s, s)
    inv = np.linalg.inv(plane)
    xyw = norm @ inv[:, :2].T + inv[:, 2]
    behind = xyw[:, 2] <= 0  # rays that meet the plane behind the camera see background
    xy = xyw[:, :2] / np.where(behind, 1.0, xyw[:, 2])[:, None]
    mx = ((xy[:, 0] - origin_mm[0]) * px_per_mm - 0.5).astype(np.float32)
    my = ((xy[:, 1] - origin_mm[1]) * px_per_mm - 0.5).astype(np.float32)
    mx[behind] = -1e6
    shape = (h * s, w * s)
    big = cv2.remap(texture, mx.reshape(shape), my.reshape(shape), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_CONSTANT, borderValue=background)
    return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA) if s > 1 else big


def _normalised_rays(k, dist, w: int, h: int, s: int, step: int = 8) -> np.ndarray:
    """(h * w, 2) undistorted normalised coordinates of each (supersampled) pixel.

    Distortion is smooth, so it is inverted exactly on a grid every `step` pixels and
    interpolated bilinearly in between (error far below 0.01 px), which is 60 times faster.
    """
    gu, gv = np.arange(0, w + step, step), np.arange(0, h + step, step)
    u, v = np.meshgrid((gu + 0.5) / s - 0.5, (gv + 0.5) / s - 0.5)
    pix = np.stack([u.ravel(), v.ravel()], 1).reshape(-1, 1, 2)
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-12)
    grid = cv2.undistortPoints(pix, k, dist, None, None, None, crit).reshape(len(gv), len(gu), 2)
    # Separable bilinear weights in float64 (cv2.remap quantises them to 1/32 of a cell).
    j, fx = np.divmod(np.arange(w), step)
    i, fy = np.divmod(np.arange(h), step)
    fx, fy = (fx / step)[None, :, None], (fy / step)[:, None, None]
    cols = grid[:, j] * (1 - fx[0]) + grid[:, j + 1] * fx[0]  # (grid rows, w, 2)
    return (cols[i] * (1 - fy) + cols[i + 1] * fy).reshape(-1, 2)


def add_noise(image: np.ndarray, sigma: float, seed: int) -> np.ndarray:
    """Adds Gaussian sensor noise of `sigma` grey levels, reproducibly."""
    noise = np.random.default_rng(seed).normal(0, sigma, image.shape)
    return np.clip(image.astype(np.float32) + noise, 0, 255).astype(np.uint8)


def table_texture(layout, x_range_mm, y_range_mm, px_per_mm: float,
                  felt=(60, 110, 40)) -> tuple[np.ndarray, tuple[float, float]]:
    """A BGR picture of the felt with the layout's markers on it, for `render_view`.

    The texture is drawn y down; render it with `plane_matrix(..., flip_y=True)` and the
    returned origin, which is in that flipped frame (x, -y).

    Args:
        layout: `layout.MarkerLayout`.
        x_range_mm, y_range_mm: (low, high) of the table area drawn, mm.

    Returns:
        ((H, W, 3) uint8 texture, origin (x, -y) of its top-left corner in mm).
    """
    (x0, x1), (y0, y1) = x_range_mm, y_range_mm
    w, h = round((x1 - x0) * px_per_mm), round((y1 - y0) * px_per_mm)
    tex = np.empty((h, w, 3), np.uint8)
    tex[:] = felt
    aruco = aruco_dictionary(layout.dictionary)
    for m in layout.markers:
        side = 8 * 6  # 6 modules (4 data + 2 border) of 8 px each
        img = cv2.aruco.generateImageMarker(aruco, m.id, side, borderBits=1)
        pad = side // 6  # a white quiet zone of one module keeps the border detectable
        img = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255)
        src = np.float32([[-0.5, -0.5], [side - 0.5, -0.5], [side - 0.5, side - 0.5],
                          [-0.5, side - 0.5]]) + pad
        c = m.corners_mm()
        dst = np.stack([(c[:, 0] - x0) * px_per_mm - 0.5, (y1 - c[:, 1]) * px_per_mm - 0.5],
                       1).astype(np.float32)
        hmat = cv2.getPerspectiveTransform(src, dst)
        warped = cv2.warpPerspective(cv2.cvtColor(img, cv2.COLOR_GRAY2BGR), hmat, (w, h),
                                     flags=cv2.INTER_AREA, borderValue=(1, 2, 3))
        mask = cv2.warpPerspective(np.full(img.shape, 255, np.uint8), hmat, (w, h),
                                   flags=cv2.INTER_NEAREST) > 0
        tex[mask] = warped[mask]
    return tex, (x0, -y1)


def board_photos(spec: BoardSpec, count: int, seed: int, k: np.ndarray, dist: np.ndarray,
                 size: tuple[int, int], eye_mm: tuple[float, float, float, float],
                 aim_mm: tuple[float, float], name: str = "board-{:02d}.png"
                 ) -> list[tuple[str, np.ndarray]]:
    """`count` noisy photos of the board from tilted viewpoints, as (name, image).

    Args:
        eye_mm: (x, y, nearest, farthest): the camera sits up to x, y off the board centre,
            at a distance drawn between nearest and farthest.
        aim_mm: (x, y): it looks up to this far from the centre, so the board also reaches
            the frame's corners, where distortion is strongest.
    """
    ppm = 2.0
    tex = spec.image(ppm, 10.0)
    rng = np.random.default_rng(seed)
    centre = np.array([spec.cols * spec.square_mm / 2, spec.rows * spec.square_mm / 2, 0])
    ex, ey, near, far = eye_mm
    out = []
    for i in range(count):
        eye = centre + np.array([rng.uniform(-ex, ex), rng.uniform(-ey, ey),
                                 -rng.uniform(near, far)])
        r, t = look_at(eye, centre + np.array([rng.uniform(-aim_mm[0], aim_mm[0]),
                                               rng.uniform(-aim_mm[1], aim_mm[1]), 0]))
        img = render_view(tex, ppm, (-10.0, -10.0), k, dist, plane_matrix(r, t), size,
                          background=140)
        out.append((name.format(i), add_noise(img, 2.0, seed + i)))
    return out
