"""The top-down camera: pinhole intrinsics, mild radial distortion, pose above the table.

Models the Pi Camera Module 3 (about 66 degrees horizontal field of view) and the HQ camera
with a 6 mm lens (about 55 degrees), 40-70 cm above the table, with a digital zoom (a
`ScalerCrop` in picamera2 terms) so dice span from about 12 to 170 pixels. Distortion uses
OpenCV's model [k1, k2, p1, p2, k3] on normalised coordinates, which do not change with
the zoom, so the same coefficients describe a crop.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

LENSES_HFOV_DEG = {"picam3": 66.0, "hq-6mm": 55.3}


@dataclass
class Camera:
    """A calibrated camera looking down at the table.

    Attributes:
        k: intrinsic matrix, shape (3, 3), pixels.
        dist: distortion [k1, k2, p1, p2, k3], shape (5,).
        rot: world-to-camera rotation, shape (3, 3); camera x right, y down, z forward.
        centre_mm: camera centre in the table frame, shape (3,), mm.
        width, height: image size in pixels.
    """

    k: np.ndarray
    dist: np.ndarray
    rot: np.ndarray
    centre_mm: np.ndarray
    width: int
    height: int

    def to_camera(self, pts_mm: np.ndarray) -> np.ndarray:
        """Table-frame points (N, 3) mm to camera-frame points (N, 3) mm."""
        return (np.asarray(pts_mm, dtype=np.float64) - self.centre_mm) @ self.rot.T

    def project(self, pts_mm: np.ndarray) -> np.ndarray:
        """Projects table-frame points (N, 3) mm to distorted pixels (N, 2), as saved."""
        pc = self.to_camera(pts_mm)
        z = np.maximum(pc[:, 2], 1e-6)
        x, y = pc[:, 0] / z, pc[:, 1] / z
        k1, k2, p1, p2, k3 = self.dist
        r2 = x * x + y * y
        radial = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2**3
        xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        return np.stack(
            [self.k[0, 0] * xd + self.k[0, 2], self.k[1, 1] * yd + self.k[1, 2]], axis=1
        )

    def project_pinhole(self, pts_mm: np.ndarray, margin: int) -> np.ndarray:
        """Projects without distortion onto the render canvas, which has `margin` px each side.

        Returns:
            Pixels (N, 2) on a canvas of size (height + 2 margin, width + 2 margin).
        """
        pc = self.to_camera(pts_mm)
        z = np.maximum(pc[:, 2], 1e-6)
        u = self.k[0, 0] * pc[:, 0] / z + self.k[0, 2] + margin
        v = self.k[1, 1] * pc[:, 1] / z + self.k[1, 2] + margin
        return np.stack([u, v], axis=1)

    def distortion_maps(self, margin: int) -> tuple[np.ndarray, np.ndarray]:
        """For each output pixel, where to sample the undistorted canvas (cv2.remap maps).

        The map is computed exactly on a coarse grid (every 8th pixel) and interpolated
        bilinearly between grid points, since distortion is smooth. The interpolation must
        put grid point k at pixel 8k: `cv2.resize` aligns pixel centres instead, which
        shifted every rendered frame 3.5 px right and down against its labels.

        Returns:
            map_x, map_y, each shape (height, width), float32, canvas pixels.
        """
        step = 8
        gx, gy = np.meshgrid(
            np.arange(0, self.width + step, step, dtype=np.float32),
            np.arange(0, self.height + step, step, dtype=np.float32),
        )
        pts = np.stack([gx.ravel(), gy.ravel()], axis=1).reshape(-1, 1, 2)
        und = cv2.undistortPoints(pts, self.k, self.dist).reshape(-1, 2)
        mx = (und[:, 0] * self.k[0, 0] + self.k[0, 2] + margin).reshape(gx.shape)
        my = (und[:, 1] * self.k[1, 1] + self.k[1, 2] + margin).reshape(gx.shape)
        fx, fy = np.meshgrid(
            np.arange(self.width, dtype=np.float32) / step,
            np.arange(self.height, dtype=np.float32) / step,
        )
        mx = cv2.remap(mx.astype(np.float32), fx, fy, cv2.INTER_LINEAR)
        my = cv2.remap(my.astype(np.float32), fx, fy, cv2.INTER_LINEAR)
        return mx, my


def look_down_rotation(yaw: float, tilt: float, tilt_dir: float) -> np.ndarray:
    """World-to-camera rotation (3, 3) for a camera looking down, rolled by `yaw`.

    Args:
        yaw: rotation of the image about the optical axis, radians.
        tilt: angle of the optical axis from straight down, radians.
        tilt_dir: direction (azimuth) the axis leans towards, radians.
    """
    fwd = np.array(
        [np.sin(tilt) * np.cos(tilt_dir), np.sin(tilt) * np.sin(tilt_dir), -np.cos(tilt)]
    )
    right = np.array([np.cos(yaw), np.sin(yaw), 0.0])
    right -= fwd * (right @ fwd)
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    return np.stack([right, down, fwd])


def sample_camera(
    rng: np.random.Generator,
    target_mm: np.ndarray,
    surface_z: float,
    spread_mm: float,
    die_mm: float,
    width: int,
    height: int,
) -> tuple[Camera, float]:
    """Draws a camera above `target_mm` (where the dice lie).

    Args:
        rng: the scene's random generator.
        target_mm: point the camera looks at, shape (3,), mm.
        surface_z: z of the surface the dice rest on, mm.
        spread_mm: extent of what must stay in view (the dice), mm.
        die_mm: die edge, mm, to aim the die size in pixels.
        width, height: image size in pixels.

    Returns:
        (camera, camera height above the table in mm).
    """
    lens = "picam3" if rng.random() < 0.6 else "hq-6mm"
    f_full = width / 2 / np.tan(np.radians(LENSES_HFOV_DEG[lens]) / 2)
    cam_h = rng.uniform(400, 700)
    dist_to_dice = cam_h - surface_z
    # Aim a die size log-uniform in pixels (scaled to the image width), then limit the zoom
    # so that the dice still fit in the view.
    aim_px = np.exp(rng.uniform(np.log(12), np.log(170))) * width / 640
    zoom = aim_px * dist_to_dice / (die_mm * f_full)
    fit = 0.9 * min(width, height) * dist_to_dice / (f_full * max(spread_mm, 1.0))
    zoom = float(np.clip(min(zoom, fit), 1.0, 8.0))
    fx = f_full * zoom * rng.uniform(0.99, 1.01)
    k = np.array(
        [
            [fx, 0, width / 2 + rng.uniform(-8, 8)],
            [0, fx, height / 2 + rng.uniform(-8, 8)],
            [0, 0, 1.0],
        ]
    )
    dist = np.array([rng.uniform(-0.12, 0.04), rng.uniform(-0.03, 0.03), 0.0, 0.0, 0.0])
    rot = look_down_rotation(
        rng.uniform(0, 2 * np.pi), np.radians(rng.uniform(0, 8)), rng.uniform(0, 2 * np.pi)
    )
    centre = np.asarray(target_mm, dtype=float) - rot[2] * (dist_to_dice / -rot[2, 2])
    centre[2] = cam_h
    return Camera(k, dist, rot, centre, width, height), cam_h
