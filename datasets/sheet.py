"""Contact sheet: a grid of images with their labels drawn, for a person to check.

Colours: green = flat and in the zone, orange = cocked, red = stacked, magenta = out of the
zone. Each die shows its face, its tilt in degrees, and flags S (stacked), C (cocked),
O (out of zone), V (void: up margin under 10 degrees). The uppermost face's corners are
outlined in cyan and its pips marked with dots, so a wrong face stands out.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from dicecall.datasets.schema import DatasetError, DieLabel, SceneRecord
from dicecall.vision.images import imread


def _colour(d: DieLabel) -> tuple[int, int, int]:
    if d.stacked:
        return (0, 0, 255)
    if d.in_zone is False:
        return (255, 0, 255)
    if d.cocked:
        return (0, 165, 255)
    return (0, 220, 0)


def _flags(d: DieLabel) -> str:
    flags = "S" if d.stacked else ""
    flags += "C" if d.cocked else ""
    flags += "O" if d.in_zone is False else ""
    flags += "V" if d.up_margin_deg is not None and d.up_margin_deg < 10 else ""
    return flags


def annotate(img: np.ndarray, rec: SceneRecord, scale: float) -> np.ndarray:
    """Draws the labels of `rec` on a copy of `img` resized by `scale`.

    Args:
        img: BGR uint8 image (H, W, 3) at the record's size.
        rec: its labels.
        scale: output size / input size.
    """
    out = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    for poly in rec.zones.values():
        pts = np.round(np.asarray(poly) * scale).astype(np.int32)
        cv2.polylines(out, [pts], True, (255, 255, 0), 1, cv2.LINE_AA)
    for d in rec.dice:
        col = _colour(d)
        x0, y0, x1, y1 = (round(v * scale) for v in d.box)
        cv2.rectangle(out, (x0, y0), (x1, y1), col, 1)
        if d.top_corners:
            pts = np.round(np.asarray(d.top_corners) * scale).astype(np.int32)
            cv2.polylines(out, [pts], True, (255, 255, 0), 1, cv2.LINE_AA)
        for px, py in d.pips or []:
            cv2.circle(out, (round(px * scale), round(py * scale)), 1, (255, 255, 0), -1)
        tilt = f" {d.tilt_deg:.0f}" if d.tilt_deg is not None else ""
        text = f"{d.face}{tilt} {_flags(d)}".strip()
        cv2.putText(out, text, (x0, max(10, y0 - 3)), cv2.FONT_HERSHEY_SIMPLEX, 0.38, (0, 0, 0), 3)
        cv2.putText(out, text, (x0, max(10, y0 - 3)), cv2.FONT_HERSHEY_SIMPLEX, 0.38, col, 1)
    head = f"{rec.game} {rec.scene} n={len(rec.dice)}/{rec.expected_dice}"
    cv2.putText(out, head, (4, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.42, (0, 0, 0), 3)
    cv2.putText(out, head, (4, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.42, (255, 255, 255), 1)
    return out


def contact_sheet(
    pairs: list[tuple[Path, SceneRecord]],
    out: str | Path,
    cols: int = 3,
    tile_width: int = 320,
    limit: int = 9,
) -> Path:
    """Writes a grid of up to `limit` annotated images to `out` (PNG or JPEG by suffix).

    Args:
        pairs: (label or image path, record) pairs; images are looked up beside the path.
        out: output file.
        cols: tiles per row, >= 1.
        tile_width: width of each tile in pixels, >= 64.
        limit: number of tiles, >= 1.
    """
    if cols < 1 or tile_width < 64 or limit < 1:
        raise ValueError(
            f"need cols >= 1, tile_width >= 64, limit >= 1; got {cols}, {tile_width}, {limit}"
        )
    if not pairs:
        raise DatasetError("no images to put on the contact sheet")
    tiles = []
    for path, rec in pairs[:limit]:
        img = imread(path.parent / rec.image)
        if img is None:
            raise DatasetError(f"{path.parent / rec.image}: image missing or unreadable")
        tile = annotate(img, rec, tile_width / rec.width)
        tiles.append(tile)
    th = max(t.shape[0] for t in tiles)
    tiles = [cv2.copyMakeBorder(t, 0, th - t.shape[0], 0, 0, cv2.BORDER_CONSTANT) for t in tiles]
    while len(tiles) % cols:
        tiles.append(np.zeros_like(tiles[0]))
    grid = np.vstack([np.hstack(tiles[i : i + cols]) for i in range(0, len(tiles), cols)])
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    params = [cv2.IMWRITE_PNG_COMPRESSION, 9] if out.suffix.lower() == ".png" else []
    if not cv2.imwrite(str(out), grid, params):
        raise DatasetError(f"{out}: could not write the sheet (unknown image suffix?)")
    return out
