"""Frame -> model inputs: the letterboxed detector input and full-resolution die crops."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


def letterbox(frame: np.ndarray, size: int, shrink: float = 1.0) -> tuple[np.ndarray, float]:
    """Scales a BGR frame to fit `size` and pastes it at the top-left of a grey square.

    Args:
        frame: (H, W, 3) uint8 BGR.
        size: side of the detector input in pixels.
        shrink: the frame fills 1 / shrink of the square's side (the wide look, `reader.py`).

    Returns:
        ((1, 3, size, size) float32 RGB in [0, 1], scale s with input = frame * s).
    """
    h, w = frame.shape[:2]
    s = size / (max(h, w) * shrink)
    nw, nh = max(1, round(w * s)), max(1, round(h * s))
    small = cv2.resize(frame, (nw, nh), interpolation=cv2.INTER_AREA)
    canvas = np.full((size, size, 3), 127, np.uint8)
    canvas[:nh, :nw] = small
    # One pass from BGR bytes to planar RGB floats: converting, scaling and transposing in
    # steps took about 1.1 ms of a 10 ms frame, this 0.16 ms (the same bits).
    x = np.empty((1, 3, size, size), np.float32)
    np.multiply(canvas[:, :, ::-1].transpose(2, 0, 1), np.float32(1 / 255), out=x[0])
    return x, s


# A crop cut at more than this downscale (output side / crop side) is softened when
# `soften` is set: the reader trained on scenes rendered at 640x480, where few crops are cut
# so far down, and reads the sharper crops of the same dice at the camera's 1920 px worse
# (models/reader.md, session 51, rule 52).
SOFTEN_BELOW = 0.5


def crops(frame: np.ndarray, centers: np.ndarray, sides: np.ndarray, size: int,
          soften: float = 0.0) -> np.ndarray:
    """Cuts square crops around each die from the full-resolution frame.

    Args:
        frame: (H, W, 3) uint8 BGR.
        centers: (N, 2) float32 crop centres (x, y) in frame pixels.
        sides: (N,) float32 crop sides in frame pixels.
        size: output side in pixels.
        soften: Gaussian sigma, in output pixels, blurring each crop cut at a scale under
            `SOFTEN_BELOW`; 0 leaves every crop as cut.

    Returns:
        (N, 3, size, size) float32 RGB in [0, 1]; outside the frame the border is repeated.
    """
    out = np.empty((len(centers), 3, size, size), np.float32)
    for k, ((cx, cy), side) in enumerate(zip(centers, sides, strict=True)):
        scale = size / max(float(side), 1.0)
        # An affine warp samples the crop in one step, border included, at any scale.
        m = np.array([[scale, 0, size / 2 - cx * scale], [0, scale, size / 2 - cy * scale]],
                     np.float32)
        if scale < 0.5:  # warpAffine's INTER_AREA does not average over large footprints
            x0, y0 = int(cx - side / 2), int(cy - side / 2)
            patch = _area_crop(frame, x0, y0, int(side), size)
        else:
            interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
            patch = cv2.warpAffine(frame, m, (size, size), flags=interp,
                                   borderMode=cv2.BORDER_REPLICATE)
        rgb = cv2.cvtColor(patch, cv2.COLOR_BGR2RGB)
        if soften > 0 and scale < SOFTEN_BELOW:
            rgb = cv2.GaussianBlur(rgb * np.float32(1 / 255), (0, 0), soften)
            out[k] = rgb.transpose(2, 0, 1)
        else:
            out[k] = rgb.transpose(2, 0, 1) * (1 / 255)
    return out


def _area_crop(frame: np.ndarray, x0: int, y0: int, side: int, size: int) -> np.ndarray:
    """Averaging resize of a square that may stick out of the frame (edges repeated)."""
    h, w = frame.shape[:2]
    xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + side, w), min(y0 + side, h)
    if xa < xb and ya < yb:
        # A slice is a view and the border is added once: the fancy index below copies the
        # square pixel by pixel, 0.8 ms of a 260 px square against 0.2 ms for the resize.
        patch = frame[ya:yb, xa:xb]
        if (xb - xa, yb - ya) != (side, side):
            patch = cv2.copyMakeBorder(patch, ya - y0, y0 + side - yb, xa - x0,
                                       x0 + side - xb, cv2.BORDER_REPLICATE)
        return cv2.resize(patch, (size, size), interpolation=cv2.INTER_AREA)
    # Clipped indices repeat the edge as BORDER_REPLICATE does, also for a square lying
    # wholly outside the frame, where copyMakeBorder's border widths would be negative.
    ys = np.clip(np.arange(y0, y0 + side), 0, h - 1)
    xs = np.clip(np.arange(x0, x0 + side), 0, w - 1)
    return cv2.resize(frame[np.ix_(ys, xs)], (size, size), interpolation=cv2.INTER_AREA)


# The camera `die_geometry` assumes when none is calibrated: principal point at the frame's
# centre, 66 degrees across the longer side (the Pi Camera Module 3), looking straight down.
TYPICAL_HFOV_DEG = 66.0
# For that camera the lean below is (x - cx, y - cy) / f = (dx, dy) x LEAN_UNIT, so dividing
# by it keeps the uncalibrated geometry exactly what the readers before session 13 learnt.
LEAN_UNIT = 2 * float(np.tan(np.radians(TYPICAL_HFOV_DEG / 2)))


# The reader ONNX's metadata key and value saying its `geom` input was trained on calibrated
# views. Without it the reader learnt only the typical camera's guess, and a true view fed to
# it reads worse (docs/verdicts.md, session 13), so the runtime then leaves the view out.
GEOM_META = "dicecall.geom"
GEOM_FLOOR_VIEW = "floor_view"


@dataclass(frozen=True)
class FloorView:
    """A calibrated camera's view of the floor the dice rest on.

    A flat die seen off the camera's axis shows a side face just as a tilted die seen
    straight on does; which one a crop holds depends on the direction the camera sees the
    die from. Without calibration that direction is guessed from the die's place in the
    frame and a typical lens; the generated cameras zoom 1-8x and lean up to 8 degrees, so
    the guess is off by up to 8x in size and 8 degrees in angle (docs/verdicts.md, session
    13). A table calibration (`calibration.table.TablePose` with intrinsics) knows it.

    Attributes:
        k: (3, 3) intrinsic matrix at `size`, pixels.
        dist: OpenCV distortion coefficients (k1, k2, p1, p2[, k3, ...]).
        up: (3,) the floor's up direction in camera coordinates (x right, y down, z forward).
        size: (width, height) the intrinsics refer to; frames of another size scale them.
    """

    k: np.ndarray
    dist: np.ndarray
    up: np.ndarray
    size: tuple[int, int]

    @classmethod
    def of(cls, k, dist, up, size) -> FloorView:
        """Checked constructor from plain lists (a scene record, a calibration file)."""
        k, dist = np.asarray(k, np.float64), np.asarray(dist, np.float64).ravel()
        up = np.asarray(up, np.float64).ravel()
        if k.shape != (3, 3) or up.shape != (3,) or len(dist) < 4 or len(size) != 2:
            raise ValueError(f"FloorView: k {k.shape}, up {up.shape}, dist {len(dist)}, "
                             f"size {size}: want (3, 3), (3,), >= 4 and (w, h)")
        norm = float(np.linalg.norm(up))
        if not np.isfinite(norm) or norm < 1e-6 or not np.all(np.isfinite(k)):
            raise ValueError("FloorView: up must be a finite non-zero vector, k finite")
        return cls(k, dist, up / norm, (int(size[0]), int(size[1])))

    def lean(self, centers: np.ndarray, frame_shape: tuple) -> np.ndarray:
        """(N, 2) how far, in die sides, the top of a flat die at each centre shows shifted
        from its foot in the image: the image direction and strength of the view's slant.

        For a point at normalised image coordinates (u, v) and floor normal n in camera
        coordinates, a small step along n moves the image point by (n_x - u n_z, n_y - v n_z)
        per unit of depth-scaled length (first order); for a straight camera that is (u, v).
        """
        h, w = frame_shape[:2]
        k = self.k.copy()
        k[0] *= w / self.size[0]
        k[1] *= h / self.size[1]
        pts = np.asarray(centers, np.float64).reshape(-1, 1, 2)
        uv = cv2.undistortPoints(pts, k, self.dist).reshape(-1, 2)
        n = self.up
        return np.stack([n[0] - uv[:, 0] * n[2], n[1] - uv[:, 1] * n[2]], 1)


def die_geometry(centers: np.ndarray, sizes: np.ndarray, frame_shape: tuple,
                 view: FloorView | None = None) -> np.ndarray:
    """Where each die sits in the frame, for the reader's tilt and die-on-die heads.

    A crop alone cannot tell a tilted die from a flat one seen off the camera's axis (both
    show a side face), nor a die lifted onto another from one on the floor (crops are cut
    to the die's size). So the reader also gets:
    - the view's lean (`FloorView.lean`) over LEAN_UNIT. Without a calibrated camera the
      principal point is taken at the centre, the field of view as typical and the camera
      as straight down, which makes these the die's centre minus the frame's centre, over
      max(H, W).
    - log(size / median size of the frame's dice): a die on another is nearer the camera
      and looks larger than its neighbours; 0 for a lone die.

    Args:
        centers: (N, 2) die centres (x, y), frame pixels.
        sizes: (N,) die sizes max(w, h), frame pixels.
        frame_shape: the frame's shape, (H, W, ...).
        view: the calibrated camera, or None.

    Returns:
        (N, 3) float32 (lean x, lean y, log size ratio).
    """
    h, w = frame_shape[:2]
    out = np.zeros((len(centers), 3), np.float32)
    if len(centers) == 0:
        return out
    c = np.asarray(centers, np.float64)
    if view is None:
        out[:, 0] = (c[:, 0] - w / 2) / max(h, w)
        out[:, 1] = (c[:, 1] - h / 2) / max(h, w)
    else:
        out[:, :2] = view.lean(c, frame_shape) / LEAN_UNIT
    s = np.maximum(np.asarray(sizes, np.float64), 1.0)
    out[:, 2] = np.log(s / np.median(s))
    return out


def record_view(rec) -> FloorView | None:
    """The floor view of a scene record (a JSON dict or a `SceneRecord`) that carries its
    camera, as a calibrated table camera would give it; None for one that does not."""
    get = rec.get if isinstance(rec, dict) else (lambda k: getattr(rec, k, None))
    if get("camera_up") is None or get("camera_k") is None:
        return None
    return FloorView.of(get("camera_k"), get("dist") or [0.0] * 5, get("camera_up"),
                        (get("width"), get("height")))
