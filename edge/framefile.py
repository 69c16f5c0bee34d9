"""Frame files of a replay folder: checked, and decoded small for motion, whole only when read.

A camera's edge takes motion from the ISP's lores stream and copies the full-size frame out
only for the frame it reads (edge/picam.py). A replay folder of 1920x1080 JPEGs, decoded whole
every frame, cost 10.7 ms and a 6 MB array per frame to make a 160 px motion frame, and made
the edge at the camera's size miss its latency and memory targets (docs/edge.md, session 60).
libjpeg decodes at 1/2, 1/4 or 1/8 scale straight from the DCT (2.1 ms for the same frame),
which with the same area resize after it gives the motion frame within 3 grey levels
(mean 0.08) of the whole decode's.
"""

from __future__ import annotations

import cv2
import numpy as np

_REDUCED = ((8, cv2.IMREAD_REDUCED_GRAYSCALE_8), (4, cv2.IMREAD_REDUCED_GRAYSCALE_4),
            (2, cv2.IMREAD_REDUCED_GRAYSCALE_2))
# Start-of-frame markers (baseline, progressive, lossless...); C4, C8 and CC are not.
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def jpeg_problem(data: bytes) -> str | None:
    """Why a file that starts as a JPEG is not a whole one, or None (not a JPEG, or whole).

    OpenCV decodes a truncated JPEG without an error, filling the missing rows with grey; a
    settled frame like that would be read as a roll. A whole JPEG ends with the end-of-image
    marker FF D9 (zero bytes after it, as some writers pad, are allowed).
    """
    if data[:2] != b"\xff\xd8" or data.rstrip(b"\x00").endswith(b"\xff\xd9"):
        return None
    return "cannot be decoded (truncated JPEG: no end-of-image marker)"


def jpeg_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG's start-of-frame header, or None (not a JPEG, or no
    readable header before the image data)."""
    if data[:2] != b"\xff\xd8":
        return None
    i, n = 2, len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte before a marker
            i += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            i += 2
            continue
        length = int.from_bytes(data[i + 2:i + 4], "big")
        if marker in _SOF:
            if i + 9 > n or length < 7:
                return None
            h = int.from_bytes(data[i + 5:i + 7], "big")
            w = int.from_bytes(data[i + 7:i + 9], "big")
            return (w, h) if w > 0 and h > 0 else None
        if marker == 0xDA or length < 2:  # image data begins: no frame header came first
            return None
        i += 2 + length
    return None


def lores_grey(image: np.ndarray, width: int) -> np.ndarray:
    """A small luminance frame for motion, as a lores stream would give it."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    h, w = grey.shape
    if w <= width:
        return np.ascontiguousarray(grey)
    return cv2.resize(grey, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)


def motion_grey(data: bytes, size: tuple[int, int], width: int) -> np.ndarray | None:
    """The grey frame for motion, decoded at the smallest scale that divides the frame's
    sides and leaves at least twice `width` columns for the area resize after it
    (`lores_grey`); None when the file cannot be decoded. A scale that does not divide
    them averages the last row and column over fewer pixels, moving edges there by up to
    30 grey levels from the whole decode's."""
    w, h = size
    buf = np.frombuffer(data, np.uint8)
    flag = next((f for k, f in _REDUCED if w % k == 0 and h % k == 0 and w // k >= 2 * width),
                cv2.IMREAD_GRAYSCALE)
    grey = cv2.imdecode(buf, flag)
    return None if grey is None else lores_grey(grey, width)


def decode_bgr(data: bytes, label: str) -> np.ndarray:
    """The whole frame, (H, W, 3) uint8 BGR; a ValueError naming `label` if it cannot be
    decoded (the read path reports it and goes on)."""
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"{label}: cannot be decoded")
    return image
