"""Image augmentation for both stages, in numpy and OpenCV.

The real training photos are few (about 600) and of few dice styles, while the judged set is
"dice styles not seen here": so colours are pushed hard (any hue, inverted dice, greyscale),
and geometry covers rotation, zoom and perspective from the oblique phone photos to a
top-down camera. Every random draw comes from the caller's `np.random.Generator`.
"""

from __future__ import annotations

import cv2
import numpy as np

from dicecall.models.contract import DET_FILL, DET_SIZE


def photometric(img: np.ndarray, rng: np.random.Generator, strong: bool = True,
                duotone: float = 0.0) -> np.ndarray:
    """Colour, blur, noise and JPEG changes.

    Args:
        img: [H, W, 3] uint8 RGB.
        rng: random source.
        strong: also allow hue rotation, inversion and greyscale.
        duotone: probability of `two_colours` (0: no draw is made for it, so a recipe
            without it trains as it always did).

    Returns:
        [H, W, 3] uint8 RGB, same size.
    """
    x = img.astype(np.float32)
    if strong and rng.random() < 0.5:
        hsv = cv2.cvtColor(img, cv2.COLOR_RGB2HSV).astype(np.int32)
        hsv[..., 0] = (hsv[..., 0] + rng.integers(0, 180)) % 180  # any hue: red, green, blue dice
        hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.5, 1.8), 0, 255)
        x = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2RGB).astype(np.float32)
    if strong and rng.random() < 0.15:
        x = 255.0 - x  # black dice with white pips from white dice with black pips
    if strong and rng.random() < 0.15:
        x[:] = x.mean(axis=2, keepdims=True)
    if duotone > 0 and rng.random() < duotone:
        x = two_colours(x, rng)
    x = x * rng.uniform(0.8, 1.2, 3)[None, None]  # white balance
    mean = x.mean()
    x = (x - mean) * rng.uniform(0.6, 1.4) + mean * rng.uniform(0.6, 1.4)
    if rng.random() < 0.3:
        x = 255.0 * (np.clip(x, 0, 255) / 255.0) ** rng.uniform(0.6, 1.6)
    if rng.random() < 0.3:
        sigma = rng.uniform(0.3, 1.5)
        x = cv2.GaussianBlur(x, (0, 0), sigma)
    if rng.random() < 0.3:
        x = x + rng.normal(0, rng.uniform(2, 10), x.shape).astype(np.float32)
    out = np.clip(x, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        _ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 90))])
        out = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    return out


def two_colours(x: np.ndarray, rng: np.random.Generator, contrast: float = 50.0
                ) -> np.ndarray:
    """Lights to one random colour and darks to another, some of the old colour kept.

    A hue turn leaves white pips white and a black body black, and every training style has
    white or black pips: a die of gold pips on black, or red on white, was read far worse
    than the styles trained on (`bench_reader.py --unseen`, session 30). Mapping the
    brightness between two random colours gives pips and body any two colours; the draws
    keep their brightness `contrast` apart (0-255), as a die's pips must be to be read, the
    lighter for the lights (`photometric`'s inversion swaps them).

    Args:
        x: [H, W, 3] float32 RGB 0-255.
        rng: random source.
    """
    if not 0.0 <= contrast <= 150.0:  # the draws below must be able to meet it
        raise ValueError(f"contrast {contrast}: 0-150")
    lo, hi = rng.uniform(0, 255, 3), rng.uniform(0, 255, 3)
    while abs(hi.mean() - lo.mean()) < contrast:  # about one draw in two at 50
        lo, hi = rng.uniform(0, 255, 3), rng.uniform(0, 255, 3)
    if hi.mean() < lo.mean():  # lights stay lighter: kept old colour must not cancel it
        lo, hi = hi, lo
    luma = x.mean(axis=2, keepdims=True) / 255.0
    keep = rng.uniform(0.0, 0.4)
    return ((lo + luma * (hi - lo)) * (1.0 - keep) + x * keep).astype(np.float32)


def _background(rng: np.random.Generator, size: int) -> np.ndarray:
    """A random fill for the canvas outside the warped photo: grey, a colour, or texture."""
    kind = rng.integers(0, 3)
    if kind == 0:
        return np.full((size, size, 3), round(DET_FILL * 255), np.uint8)
    base = rng.integers(0, 256, 3).astype(np.float32)
    bg = np.broadcast_to(base, (size, size, 3)).copy()
    if kind == 2:
        noise = rng.normal(0, 1, (size // 8, size // 8, 3)).astype(np.float32)
        bg += cv2.resize(noise, (size, size), interpolation=cv2.INTER_CUBIC) * rng.uniform(5, 40)
    return np.clip(bg, 0, 255).astype(np.uint8)


def detector_view(img: np.ndarray, boxes: np.ndarray, rng: np.random.Generator,
                  ) -> tuple[np.ndarray, np.ndarray]:
    """A random 320x320 view of a labelled photo, or the exact contract letterbox.

    Args:
        img: [H, W, 3] uint8 RGB.
        boxes: [K, 4] float32 x0, y0, x1, y1, pixels of `img`.
        rng: random source.

    Returns:
        (canvas, dice): canvas [320, 320, 3] uint8; dice [K, 4] float32 cx, cy, w, h in
        canvas pixels (dice may fall outside the canvas; the target builder drops them).
    """
    h, w = img.shape[:2]
    s0 = DET_SIZE / max(h, w)
    if rng.random() < 0.25:  # the contract's own view, as the runtime sees it
        m = np.array([[s0, 0, 0], [0, s0, 0], [0, 0, 1]], np.float64)
        canvas = np.full((DET_SIZE, DET_SIZE, 3), round(DET_FILL * 255), np.uint8)
        small = cv2.resize(img, (round(w * s0), round(h * s0)), interpolation=cv2.INTER_AREA)
        canvas[: small.shape[0], : small.shape[1]] = small[:DET_SIZE, :DET_SIZE]
    else:
        m = _random_homography(w, h, s0, rng)
        canvas = _background(rng, DET_SIZE)
        # Shrink with INTER_AREA first, as the runtime does, then warp the small image.
        pre = min(1.0, float(np.sqrt(abs(np.linalg.det(m[:2, :2])))))
        small = cv2.resize(img, (max(1, round(w * pre)), max(1, round(h * pre))),
                           interpolation=cv2.INTER_AREA)
        warp = m @ np.diag([1 / pre, 1 / pre, 1.0])
        cv2.warpPerspective(small, warp, (DET_SIZE, DET_SIZE), dst=canvas,
                            flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)
    return canvas, _transform_boxes(boxes, m)


def _random_homography(w: int, h: int, s0: float, rng: np.random.Generator) -> np.ndarray:
    """Source -> canvas: zoom about the letterbox scale, rotation, perspective, shift."""
    zoom = s0 * np.exp(rng.uniform(np.log(0.6), np.log(2.2)))
    angle = rng.uniform(-180, 180) if rng.random() < 0.5 else rng.uniform(-15, 15)
    c, s = np.cos(np.radians(angle)) * zoom, np.sin(np.radians(angle)) * zoom
    a = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], np.float64)
    a[:2, 2] = -a[:2, :2] @ np.array([w / 2, h / 2])  # image centre to the origin
    p = np.eye(3)
    if rng.random() < 0.5:  # mild keystone, like a camera that is not straight above
        p[2, :2] = rng.uniform(-0.6, 0.6, 2) / DET_SIZE
    # Place the photo centre anywhere that keeps part of it on the canvas.
    t = np.eye(3)
    t[:2, 2] = rng.uniform(0.1, 0.9, 2) * DET_SIZE
    return t @ p @ a


def _transform_boxes(boxes: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Maps box centres through `m`; sizes scale by the local area change (rotation-free)."""
    if len(boxes) == 0:
        return np.zeros((0, 4), np.float32)
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    pts = np.stack([cx, cy, np.ones_like(cx)], 1).astype(np.float64) @ m.T
    z = pts[:, 2]
    # Jacobian of the projective map at each centre gives the local scale.
    jx = (m[0, :2][None] * z[:, None] - pts[:, :1] * m[2, :2][None]) / z[:, None] ** 2
    jy = (m[1, :2][None] * z[:, None] - pts[:, 1:2] * m[2, :2][None]) / z[:, None] ** 2
    scale = np.sqrt(np.abs(jx[:, 0] * jy[:, 1] - jx[:, 1] * jy[:, 0]))
    bw, bh = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    out = np.stack([pts[:, 0] / z, pts[:, 1] / z, bw * scale, bh * scale], 1)
    return out.astype(np.float32)
