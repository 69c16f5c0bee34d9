"""Camera intrinsics and distortion from photos of a checkerboard or ChArUco board."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from dicecall.vision.images import imread

from . import CalibrationError
from .camera_model import CameraIntrinsics
from .targets import BoardSpec

MIN_CHARUCO_CORNERS = 8  # fewer than this rarely constrains a view's pose


@dataclass(frozen=True)
class View:
    """One board sighting: (K, 3) float32 board points in mm and (K, 2) float32 pixels."""

    name: str
    object_points: np.ndarray
    image_points: np.ndarray


def find_board(gray: np.ndarray, spec: BoardSpec) -> tuple[np.ndarray, np.ndarray] | None:
    """Finds the board's inner corners in one grey image.

    Args:
        gray: (H, W) uint8.
        spec: the board printed.

    Returns:
        ((K, 3) board mm, (K, 2) pixels), both float32, or None when the board is not seen.
    """
    if spec.kind == "checkerboard":
        pattern = (spec.cols - 1, spec.rows - 1)
        # The sector-based detector is both more robust and more accurate (about 0.1 px).
        ok, corners = cv2.findChessboardCornersSB(
            gray, pattern, flags=cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_ACCURACY)
        if not ok:
            return None
        return spec.inner_corners(), corners.reshape(-1, 2).astype(np.float32)
    board = spec.charuco()
    corners, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(gray)
    if ids is None or len(ids) < MIN_CHARUCO_CORNERS:
        return None
    obj, img = board.matchImagePoints(corners, ids)
    obj, img = obj.reshape(-1, 3).astype(np.float32), img.reshape(-1, 2).astype(np.float32)
    # Corners on one line leave the view's pose undetermined.
    if np.linalg.svd(obj[:, :2] - obj[:, :2].mean(0), compute_uv=False)[1] < 1e-3 * spec.square_mm:
        return None
    return obj, img


def collect_views(images: list[tuple[str, np.ndarray]], spec: BoardSpec
                  ) -> tuple[list[View], list[str], tuple[int, int]]:
    """Finds the board in every image.

    Args:
        images: (name, (H, W, 3) or (H, W) uint8) pairs, all the same size.

    Returns:
        (views found, "name: reason" for each image skipped, (width, height)).
    """
    views, rejected, size = [], [], None
    for name, image in images:
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        here = (gray.shape[1], gray.shape[0])
        if size is None:
            size = here
        if here != size:
            rejected.append(f"{name}: size {here[0]}x{here[1]}, not {size[0]}x{size[1]}")
            continue
        found = find_board(gray, spec)
        if found is None:
            rejected.append(f"{name}: board not found")
            continue
        views.append(View(name, *found))
    if size is None:
        raise CalibrationError("no images given")
    return views, rejected, size


def calibrate(images: list[tuple[str, np.ndarray]], spec: BoardSpec, camera: str = "default",
              min_views: int = 6, fix_k3: bool = False
              ) -> tuple[CameraIntrinsics, dict[str, float]]:
    """Fits intrinsics and distortion to board photos (cv2.calibrateCamera).

    Args:
        images: (name, image) pairs from one camera at one resolution.
        spec: the board in the photos.
        camera: name saved in the result.
        min_views: fewest views with the board found that are accepted.
        fix_k3: hold k3 at 0 (advisable for narrow lenses and few views).

    Returns:
        (intrinsics, view name -> RMS reprojection error of that view in pixels).

    Raises:
        CalibrationError: the board is found in none or in fewer than `min_views` images.
    """
    views, rejected, (w, h) = collect_views(images, spec)
    if not views:
        raise CalibrationError(f"board not found in any of {len(images)} images (looked for a "
                               f"{spec.describe()}); check the board settings and focus")
    if len(views) < min_views:
        raise CalibrationError(
            f"too few views: the board was found in {len(views)} of {len(images)} images, need "
            f"at least {min_views} (skipped: {'; '.join(rejected) or 'none'})")
    flags = cv2.CALIB_FIX_K3 if fix_k3 else 0
    obj = [v.object_points for v in views]
    img = [v.image_points for v in views]
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12)
    rms, k, dist, rvecs, tvecs = cv2.calibrateCamera(obj, img, (w, h), None, None, flags=flags,
                                                     criteria=crit)
    per_view = {}
    for v, r, t in zip(views, rvecs, tvecs, strict=True):
        proj = cv2.projectPoints(v.object_points, r, t, k, dist)[0].reshape(-1, 2)
        per_view[v.name] = float(np.sqrt(np.mean(np.sum((proj - v.image_points) ** 2, 1))))
    result = CameraIntrinsics(camera=camera, width=w, height=h, k=k.tolist(),
                              dist=dist.ravel().tolist(), rms_px=float(rms),
                              views_used=len(views), views_rejected=rejected,
                              board=spec.describe())
    return result, per_view


def load_images(paths: list[Path]) -> list[tuple[str, np.ndarray]]:
    """Reads image files as (name, BGR image); an unreadable file is a `CalibrationError`."""
    out = []
    for p in paths:
        image = imread(p)
        if image is None:
            raise CalibrationError(f"{p}: not a readable image")
        out.append((p.name, image))
    return out
