"""Turns the clean canvas into a camera frame: lens distortion, vignetting, glare, motion
blur, sensor noise and JPEG compression. The geometric warp is exact (the labels use the same
distortion model); the rest only changes pixel values, so labels stay valid.
"""

from __future__ import annotations

import cv2
import numpy as np

from dicecall.datasets.camera import Camera
from dicecall.datasets.textures import grain


def canvas_margin(camera: Camera) -> tuple[int, np.ndarray, np.ndarray]:
    """Margin the undistorted canvas needs so that the warp never samples outside it.

    Returns:
        (margin in pixels, map_x, map_y) with the maps already offset by the margin.
    """
    mx, my = camera.distortion_maps(0)
    over = max(-mx.min(), -my.min(), mx.max() - camera.width, my.max() - camera.height, 0.0)
    margin = int(np.ceil(over)) + 6
    return margin, mx + margin, my + margin


def distort(
    maps: tuple[np.ndarray, np.ndarray], canvas: np.ndarray, ids: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Warps the undistorted canvas and id map to the camera image.

    Args:
        maps: (map_x, map_y) from `canvas_margin`, each (H, W) float32.
        canvas: BGR uint8, shape (H + 2 margin, W + 2 margin, 3).
        ids: uint8, shape (H + 2 margin, W + 2 margin).

    Returns:
        (image (H, W, 3) uint8, ids (H, W) uint8).
    """
    mx, my = maps
    img = cv2.remap(canvas, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    out_ids = cv2.remap(ids, mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT)
    return img, out_ids


def _glare(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Adds a soft hot spot: the lamp reflected in the felt or the shaker's acrylic."""
    h, w = img.shape[:2]
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    sigma = rng.uniform(0.08, 0.3) * max(w, h)
    yy, xx = np.ogrid[:h, :w]
    blob = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma * sigma)).astype(np.float32)
    return img + blob[..., None] * rng.uniform(15, 60)


def finish(img: np.ndarray, rng: np.random.Generator,
           noise_rng: np.random.Generator | None = None) -> np.ndarray:
    """Applies exposure, vignetting, glare, motion blur and sensor noise.

    Args:
        img: BGR uint8 image, shape (H, W, 3).
        rng: the scene's random generator.
        noise_rng: draws the sensor noise alone (default: `rng`). Consecutive frames of a
            still scene differ only in it (`bench/probe_still_frames.py`).

    Returns:
        BGR uint8 image, same shape.
    """
    h, w = img.shape[:2]
    out = img.astype(np.float32) * rng.uniform(0.8, 1.15)
    yy, xx = np.ogrid[:h, :w]
    r2 = ((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2
    out *= (1.0 - rng.uniform(0.0, 0.3) * r2 / 2).astype(np.float32)[..., None]
    if rng.random() < 0.35:
        out = _glare(out, rng)
    if rng.random() < 0.2:
        # The camera arm vibrates, or a die is still creeping: a short linear smear.
        n = int(rng.integers(3, 8))
        kernel = np.zeros((n, n), np.float32)
        kernel[n // 2, :] = 1.0 / n
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kernel = cv2.warpAffine(kernel, rot, (n, n))
        out = cv2.filter2D(out, -1, kernel / max(kernel.sum(), 1e-6))
    elif rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.0))
    sigma = rng.uniform(1.0, 6.0)
    noise_rng = rng if noise_rng is None else noise_rng
    luma = grain((h, w), noise_rng) * sigma
    chroma = [grain((h, w), noise_rng) * (sigma * 0.4) for _ in range(3)]
    out += cv2.merge([luma + c for c in chroma])
    return cv2.convertScaleAbs(out)


def encode_jpeg(img: np.ndarray, rng: np.random.Generator) -> bytes:
    """JPEG bytes of `img` at a random quality 55-95, as a camera pipeline would store it."""
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 96))])
    if not ok:
        raise RuntimeError("OpenCV failed to encode a JPEG")
    return buf.tobytes()
