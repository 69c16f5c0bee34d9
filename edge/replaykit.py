"""Writes replay folders (frames.csv + images) from still scenes, for tests and benchmarks.

A throw is simulated as `motion` frames of the scene with a dark block sweeping across it
(the dice in flight, the stick) followed by `still` identical frames (the dice at rest);
identical frames reuse one file, which frames.csv may name many times. The sequence opens
with `lead_in` still frames of the first scene's background, which the settle detector
takes as the empty-table reference and does not read (nothing moved yet).
"""

from __future__ import annotations

import csv
from pathlib import Path

import cv2
import numpy as np


def _motion(image: np.ndarray, k: int, n: int) -> np.ndarray:
    out = image.copy()
    h, w = out.shape[:2]
    side = max(8, min(h, w) // 5)
    x = int((w - side) * (k + 1) / (n + 1))
    y = int((h - side) * ((k * 37) % (n + 1) + 1) / (n + 2))
    out[y:y + side, x:x + side] = (out[y:y + side, x:x + side] * 0.2).astype(np.uint8)
    return out


def write_replay(folder: str | Path, scenes: list[np.ndarray], fps: float = 30.0,
                 motion: int = 4, still: int = 12, lead_in: int = 10,
                 background: np.ndarray | None = None, ext: str = ".jpg") -> list[float]:
    """Writes the folder; returns, per scene, the time (ms) its first still frame is shown.

    Args:
        folder: created if needed.
        scenes: (H, W, 3) uint8 BGR images, one per throw.
        fps: frame rate of the timestamps.
        motion, still: frames per throw in flight and at rest.
        lead_in: still frames of `background` (default: a blurred first scene) at the start.
        background: the empty table.
        ext: ".jpg" or ".png".
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rows: list[tuple[str, float]] = []
    rest_ms: list[float] = []
    dt = 1000.0 / fps

    def add(name: str) -> None:
        rows.append((name, round(len(rows) * dt, 3)))

    bg = background if background is not None else cv2.GaussianBlur(scenes[0], (31, 31), 0)
    cv2.imwrite(str(folder / f"background{ext}"), bg)
    for _ in range(lead_in):
        add(f"background{ext}")
    for i, scene in enumerate(scenes):
        for k in range(motion):
            name = f"throw{i:04d}_m{k}{ext}"
            cv2.imwrite(str(folder / name), _motion(scene, k, motion))
            add(name)
        name = f"throw{i:04d}_rest{ext}"
        cv2.imwrite(str(folder / name), scene)
        rest_ms.append(round(len(rows) * dt, 3))
        for _ in range(still):
            add(name)
    with (folder / "frames.csv").open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["file", "t_ms"])
        writer.writerows(rows)
    return rest_ms
