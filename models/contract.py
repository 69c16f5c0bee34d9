"""The ONNX contract of the two-stage dice reader, and its preprocessing, in numpy.

This module is the single source of the names and shapes, and of the image preparation of
the training caches. The runtime in `vision/preprocess.py` prepares frames its own way,
close to this (letterbox padding 127/255, crops sampled by one affine warp); the verdict's
lines were tuned on the runtime's (models/README.md). It imports only numpy and OpenCV,
never torch, so the evaluation and the contract tests run without the training extra.

Coordinates are pixels, x right and y down, origin at the top-left pixel's corner.
"""

from __future__ import annotations

import cv2
import numpy as np

from dicecall.vision.decode import MARGIN_SPAN_DEG  # noqa: F401  (one home, re-exported)
from dicecall.vision.preprocess import (  # noqa: F401  (one home, re-exported)
    GEOM_FLOOR_VIEW,
    GEOM_META,
    die_geometry,
)

DET_SIZE = 320  # detector input side, pixels
DET_STRIDE = 4  # detector output cell, input pixels
DET_GRID = DET_SIZE // DET_STRIDE  # 80 cells a side
DET_FILL = 0.5  # value of the letterbox padding
CROP_SIZE = 64  # reader input side, pixels
CROP_SCALE = 1.5  # crop side = CROP_SCALE * max(box w, box h)
PIP_STRIDE = 2  # reader pip heatmap cell, crop pixels
PIP_GRID = CROP_SIZE // PIP_STRIDE  # 32 cells a side
OPSET = 17

# name -> (dtype, shape); "N" is the dynamic number of crops.
DETECTOR_INPUTS = {"image": ("float32", [1, 3, DET_SIZE, DET_SIZE])}
DETECTOR_OUTPUTS = {
    "heatmap": ("float32", [1, 1, DET_GRID, DET_GRID]),
    "wh": ("float32", [1, 2, DET_GRID, DET_GRID]),
    "offset": ("float32", [1, 2, DET_GRID, DET_GRID]),
}
GEOM = 3  # dx, dy, log size ratio: vision.preprocess.die_geometry
READER_INPUTS = {
    "crops": ("float32", ["N", 3, CROP_SIZE, CROP_SIZE]),
    "geom": ("float32", ["N", GEOM]),
}
READER_OUTPUTS = {
    "face_logits": ("float32", ["N", 6]),
    "pip_heatmap": ("float32", ["N", 1, PIP_GRID, PIP_GRID]),
    "tilt_logit": ("float32", ["N", 1]),
    "stacked_logit": ("float32", ["N", 1]),
    "die_logit": ("float32", ["N", 1]),
    "margin_logit": ("float32", ["N", 1]),
}


def letterbox(frame_rgb: np.ndarray) -> tuple[np.ndarray, float]:
    """Prepares a frame for the detector.

    Args:
        frame_rgb: [H, W, 3] uint8 RGB frame, any size.

    Returns:
        (image, s): image is [1, 3, 320, 320] float32 in [0, 1], the frame resized by
        s = 320 / max(H, W) with INTER_AREA and pasted at the top-left corner, the rest 0.5.
        A detector pixel (u, v) is frame pixel (u / s, v / s).
    """
    h, w = frame_rgb.shape[:2]
    s = DET_SIZE / max(h, w)
    nw, nh = min(DET_SIZE, round(w * s)), min(DET_SIZE, round(h * s))
    small = cv2.resize(frame_rgb, (nw, nh), interpolation=cv2.INTER_AREA)
    canvas = np.full((DET_SIZE, DET_SIZE, 3), DET_FILL, np.float32)
    canvas[:nh, :nw] = small.astype(np.float32) / 255.0
    return canvas.transpose(2, 0, 1)[None].copy(), s


def crop_die(frame_rgb: np.ndarray, cx: float, cy: float, side: float,
             out_size: int = CROP_SIZE) -> np.ndarray:
    """Cuts one reader crop from the full-resolution frame.

    Args:
        frame_rgb: [H, W, 3] uint8 RGB frame.
        cx, cy: die centre, frame pixels.
        side: crop side, frame pixels (CROP_SCALE * max(w, h) of the detected box).

        out_size: output side, pixels; the contract uses 64 (training caches cut larger).

    Returns:
        [out_size, out_size, 3] uint8 crop, border replicated where the square leaves the
        frame.
    """
    side = max(float(side), 4.0)
    x0, y0 = round(cx - side / 2), round(cy - side / 2)
    n = max(4, round(side))
    h, w = frame_rgb.shape[:2]
    xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + n, w), min(y0 + n, h)
    if xa >= xb or ya >= yb:  # the square misses the frame: take the nearest pixel
        xa, ya = min(max(x0, 0), w - 1), min(max(y0, 0), h - 1)
        xb, yb = xa + 1, ya + 1
    patch = frame_rgb[ya:yb, xa:xb]
    top, left = ya - y0, xa - x0
    bottom, right = n - top - (yb - ya), n - left - (xb - xa)
    if top or left or bottom or right:
        # Pad only the patch, so a crop from a 12-megapixel frame stays cheap.
        patch = cv2.copyMakeBorder(patch, top, bottom, left, right, cv2.BORDER_REPLICATE)
    return cv2.resize(patch, (out_size, out_size), interpolation=cv2.INTER_AREA)


def crops_to_input(crops: np.ndarray) -> np.ndarray:
    """Converts uint8 crops to the reader input.

    Args:
        crops: [N, 64, 64, 3] uint8 RGB.

    Returns:
        [N, 3, 64, 64] float32 in [0, 1].
    """
    return np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32) / 255.0


def sigmoid(x: np.ndarray) -> np.ndarray:
    """Logistic function, elementwise, numerically safe for large |x|."""
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(x, np.float64)))
