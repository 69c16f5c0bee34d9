"""The table plane: a homography (and, with intrinsics, the camera pose) from ArUco markers
or from points a person picks, with its reprojection error."""

from __future__ import annotations

import re

import cv2
import numpy as np
from pydantic import BaseModel, Field

from dicecall.vision.config import STRICT

from . import CalibrationError
from .camera_model import CameraIntrinsics
from .layout import MarkerLayout
from .targets import aruco_dictionary


class TablePose(BaseModel):
    """How the table plane maps to the image; `dicecall calibrate zones` writes it.

    With intrinsics, `homography` maps table mm (x, y, 1) on the felt to UNDISTORTED pixels
    and `rvec`/`tvec` place the table in the camera frame (for zones above or below the felt).
    Without intrinsics it maps straight to raw pixels and only z = 0 zones can be placed.
    """

    model_config = STRICT

    homography: list[list[float]] = Field(description="3x3, table mm -> pixels")
    rvec: list[float] | None = Field(None, description="table -> camera Rodrigues vector")
    tvec: list[float] | None = Field(None, description="table -> camera translation, mm")
    intrinsics: CameraIntrinsics | None = Field(None, description="the camera, if calibrated")
    source: str = Field(description="'markers' or 'points'")
    points: int = Field(ge=4, description="point pairs used")
    marker_ids: list[int] = Field(default_factory=list, description="markers used")
    rms_px: float = Field(ge=0, description="RMS reprojection error, raw pixels")
    max_px: float = Field(ge=0, description="largest reprojection error, raw pixels")

    def project(self, pts_mm: np.ndarray, z_mm: float = 0.0) -> np.ndarray:
        """Table points (N, 2) mm at height z_mm -> (N, 2) float64 raw image pixels."""
        pts = np.asarray(pts_mm, np.float64).reshape(-1, 2)
        if self.intrinsics is not None and self.rvec is not None:
            obj = np.column_stack([pts, np.full(len(pts), z_mm)])
            cam = self.intrinsics
            return cv2.projectPoints(obj, np.array(self.rvec), np.array(self.tvec), cam.k_array,
                                     cam.dist_array)[0].reshape(-1, 2)
        if z_mm != 0.0:
            raise CalibrationError(f"a zone at z = {z_mm} mm needs the camera intrinsics "
                                   "(calibrate camera first and pass --camera)")
        return cv2.perspectiveTransform(pts.reshape(-1, 1, 2),
                                        np.array(self.homography)).reshape(-1, 2)

    def floor_view(self):
        """The camera's view of the felt for the reader's flags (`vision.preprocess.FloorView`),
        or None without intrinsics: then the reader guesses a straight, typical camera.

        The table's z axis may point up or down depending on how its x and y run; the
        up direction is the one from the felt towards the camera, whatever the layout.
        """
        from dicecall.vision.preprocess import FloorView

        if self.intrinsics is None or self.rvec is None or self.tvec is None:
            return None
        rot = cv2.Rodrigues(np.array(self.rvec, np.float64))[0]
        up = rot[:, 2] if rot[:, 2] @ np.array(self.tvec) < 0 else -rot[:, 2]
        cam = self.intrinsics
        return FloorView.of(cam.k_array, cam.dist_array, up, (cam.width, cam.height))


def _check_spread(pts: np.ndarray, what: str, scale: float) -> None:
    """Refuses point sets that cannot fix a homography: repeats or all on one line."""
    if len(np.unique(np.round(pts / (scale * 1e-3)), axis=0)) < len(pts):
        raise CalibrationError(f"{what}: two points are the same")
    s = np.linalg.svd(pts - pts.mean(0), compute_uv=False)
    if s[1] < 1e-3 * s[0] or s[0] == 0:
        raise CalibrationError(f"{what}: the points lie on one line (singular); give at least "
                               "4 points spread over the table, no three on a line")


def fit_table(pixels: np.ndarray, table_mm: np.ndarray, intrinsics: CameraIntrinsics | None,
              source: str, marker_ids: list[int] | None = None) -> TablePose:
    """Fits the plane to point pairs.

    Args:
        pixels: (N, 2) raw image points, pixels.
        table_mm: (N, 2) the same points on the table, mm.
        intrinsics: undistorts the points and gives the pose; None fits raw pixels.
        source: recorded in the result.

    Raises:
        CalibrationError: fewer than 4 pairs, repeated or collinear points.
    """
    px = np.asarray(pixels, np.float64).reshape(-1, 2)
    mm = np.asarray(table_mm, np.float64).reshape(-1, 2)
    if len(px) != len(mm) or len(px) < 4:
        raise CalibrationError(f"need at least 4 point pairs, got {min(len(px), len(mm))}")
    _check_spread(mm, "table points", float(np.ptp(mm)) or 1.0)
    _check_spread(px, "image points", float(np.ptp(px)) or 1.0)
    rvec = tvec = None
    if intrinsics is None:
        h, _ = cv2.findHomography(mm, px, 0)
    else:
        k, d = intrinsics.k_array, intrinsics.dist_array
        obj = np.column_stack([mm, np.zeros(len(mm))])
        ok, r, t = cv2.solvePnP(obj, px, k, d, flags=cv2.SOLVEPNP_IPPE)
        if not ok:
            raise CalibrationError("the camera pose could not be solved from these points")
        r, t = cv2.solvePnPRefineLM(obj, px, k, d, r, t)
        rot = cv2.Rodrigues(r)[0]
        h = k @ np.column_stack([rot[:, 0], rot[:, 1], t.ravel()])
        rvec, tvec = r.ravel().tolist(), t.ravel().tolist()
    if h is None or not np.isfinite(h).all() or abs(np.linalg.det(h)) < 1e-12 * abs(h).max() ** 3:
        raise CalibrationError("the homography is singular for these points")
    h = h / h[2, 2]
    pose = TablePose(homography=h.tolist(), rvec=rvec, tvec=tvec, intrinsics=intrinsics,
                     source=source, points=len(px), marker_ids=marker_ids or [],
                     rms_px=0.0, max_px=0.0)
    err = np.linalg.norm(pose.project(mm) - px, axis=1)
    return pose.model_copy(update={"rms_px": float(np.sqrt(np.mean(err**2))),
                                   "max_px": float(err.max())})


def find_markers(image: np.ndarray, layout: MarkerLayout, min_markers: int = 3
                 ) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Finds the layout's ArUco markers.

    Args:
        image: (H, W, 3) BGR or (H, W) uint8.
        layout: the markers' ids and positions.
        min_markers: fewest layout markers that must be seen.

    Returns:
        ((4M, 2) pixels, (4M, 2) table mm, the M marker ids used, sorted).

    Raises:
        CalibrationError: no markers, only unknown ids, or fewer than `min_markers`.
    """
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(aruco_dictionary(layout.dictionary), params)
    corners, ids, _ = detector.detectMarkers(gray)
    known = layout.by_id()
    if ids is None or len(ids) == 0:
        raise CalibrationError(f"no {layout.dictionary} markers found in the image (layout ids "
                               f"{sorted(known)}); check lighting, focus and the dictionary")
    seen: dict[int, np.ndarray] = {}
    for i, c in zip(ids.ravel(), corners, strict=True):
        c = c.reshape(4, 2)
        if int(i) in known and int(i) in seen:
            # Which copy the layout means is unknown: the one kept was whichever the detector
            # listed last, and the wrong one fits the plane tens of pixels off.
            raise CalibrationError(
                f"marker {int(i)} is seen twice (at pixels {seen[int(i)].mean(0).round()} and "
                f"{c.mean(0).round()}); the layout places it once. Remove or cover the extra "
                "print, or give it its own id in the layout")
        seen[int(i)] = c
    used = sorted(set(seen) & set(known))
    if len(used) < min_markers:
        raise CalibrationError(
            f"markers not found: {len(used)} of the layout's markers seen (ids {used}), need "
            f"{min_markers}; seen {sorted(seen)}, layout {sorted(known)}")
    px = np.concatenate([seen[i] for i in used]).astype(np.float64)
    mm = np.concatenate([known[i].corners_mm() for i in used])
    return px, mm, used


_PAIR = re.compile(r"^\s*([-+\d.eE]+)\s*,\s*([-+\d.eE]+)\s*=\s*([-+\d.eE]+)\s*,\s*([-+\d.eE]+)\s*$")


def parse_points(text: str) -> tuple[np.ndarray, np.ndarray]:
    """Parses "x,y=X,Y;..." (pixel = table mm) into (N, 2) pixels and (N, 2) mm arrays."""
    px, mm = [], []
    for part in filter(str.strip, text.split(";")):
        m = _PAIR.match(part)
        if m is None:
            raise CalibrationError(f"bad point {part.strip()!r}: write pixel x,y=table X,Y in "
                                   "mm, pairs separated by ';' (e.g. '102,88=0,0;...')")
        try:
            a, b, c, d = (float(v) for v in m.groups())
        except ValueError as exc:
            raise CalibrationError(f"bad number in point {part.strip()!r}") from exc
        px.append((a, b))
        mm.append((c, d))
    return np.array(px, np.float64).reshape(-1, 2), np.array(mm, np.float64).reshape(-1, 2)


def check_reprojection(pose: TablePose, max_rms_px: float) -> None:
    """Refuses a plane that does not fit its own points: a layout with swapped ids or wrong
    positions, a marker moved since the layout was measured, or intrinsics of another camera.

    Such a fit still gives a homography, and zones tens or thousands of pixels off.

    Raises:
        CalibrationError: the reprojection RMS exceeds `max_rms_px`.
    """
    if not pose.rms_px <= max_rms_px:  # NaN fails too
        raise CalibrationError(
            f"the {pose.source} do not fit one table plane: reprojection RMS "
            f"{pose.rms_px:.2f} px, max {pose.max_px:.2f} px, allowed {max_rms_px:g} px RMS "
            "(--max-rms). Check the layout's marker ids and positions against the table, that "
            "no marker has moved, and that --camera is this camera at this resolution")
