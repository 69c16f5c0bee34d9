"""A gallery of the reader's failures: what a person should look at before trusting it.

Runs the shipped runtime (`vision.DiceReader`, onnxruntime) over labelled folders and tiles
one 96x96 view per failure, captioned: a missed die (MISS, truth), a wrong face (truth->read,
with the pip count), a false detection (FALSE), a pip count that disagrees with a right face
(PIPS). Cocked and stacked truth is marked c/s on synthetic scenes.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from dicecall.vision.images import ImageError, load_image
from dicecall.vision.preprocess import crops as cut_crops
from dicecall.vision.scoring import match

TILE = 96
KINDS = ("MISS", "FACE", "FALSE", "PIPS")
COLOURS = {"MISS": (0, 0, 255), "FACE": (0, 128, 255), "FALSE": (255, 0, 255),
           "PIPS": (0, 200, 200)}


def _labelled(folder: Path):
    """(image path, boxes [K, 4], faces [K], flags [K] str) for YOLO or synthetic folders."""
    from dicecall.vision.labelled import layout, read_yolo

    if layout(folder) == "json":
        from dicecall.datasets.schema import MIN_VISIBLE, load_folder

        for path, rec in load_folder(folder):
            dice = [d for d in rec.dice if d.visible >= MIN_VISIBLE]
            yield (path.parent / rec.image,
                   np.array([d.box for d in dice], np.float32).reshape(-1, 4),
                   np.array([d.face for d in dice], np.int64),
                   ["c" * bool(d.cocked) + "s" * bool(d.stacked) for d in dice])
    else:
        for item in read_yolo(folder):
            yield item.image, item.boxes, item.faces, [""] * len(item.faces)


def failures(reader, folders: list[Path], limit: int) -> list[tuple[str, np.ndarray, str]]:
    """Up to `limit` failures per kind: (kind, 96x96 BGR view, caption)."""
    found: dict[str, list] = {k: [] for k in KINDS}
    for folder in folders:
        for path, boxes, faces, flags in _labelled(folder):
            try:
                frame = load_image(path)
            except ImageError:
                continue  # `dicecall evaluate` counts unreadable images; nothing to show
            dice = reader.read(frame)
            pairs = match(dice.centers, boxes)
            hit_p, hit_g = {p for p, _ in pairs}, {g for _, g in pairs}
            views = []
            for g in set(range(len(faces))) - hit_g:
                views.append(("MISS", boxes[g], f"MISS {faces[g]}{flags[g]}"))
            for p, g in pairs:
                read, pips = int(dice.face[p]), int(dice.pip_face[p])
                if read != faces[g]:
                    views.append(("FACE", boxes[g], f"{faces[g]}{flags[g]}->{read} p{pips}"))
                elif pips != read:
                    views.append(("PIPS", boxes[g], f"{read}{flags[g]} pips {pips}"))
            for p in set(range(len(dice.face))) - hit_p:
                views.append(("FALSE", dice.boxes[p], f"FALSE {int(dice.face[p])}"))
            for kind, box, caption in views:
                if len(found[kind]) < limit:
                    found[kind].append((kind, _view(frame, box), caption))
    return [f for k in KINDS for f in found[k]]


def _view(frame: np.ndarray, box: np.ndarray) -> np.ndarray:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    side = 2.0 * max(box[2] - box[0], box[3] - box[1], 8.0)
    x = cut_crops(frame, np.array([[cx, cy]], np.float32), np.array([side], np.float32), TILE)
    return np.ascontiguousarray((x[0].transpose(1, 2, 0)[:, :, ::-1] * 255).astype(np.uint8))


def gallery_png(items: list[tuple[str, np.ndarray, str]], path: Path, cols: int = 10) -> None:
    """Tiles the views with their captions into one PNG."""
    rows = max(1, -(-len(items) // cols))
    cap = 16
    img = np.full((rows * (TILE + cap), cols * TILE, 3), 255, np.uint8)
    for i, (kind, view, caption) in enumerate(items):
        y, x = (i // cols) * (TILE + cap), (i % cols) * TILE
        img[y : y + TILE, x : x + TILE] = view
        cv2.rectangle(img, (x, y), (x + TILE - 1, y + TILE - 1), COLOURS[kind], 2)
        cv2.putText(img, caption, (x + 2, y + TILE + 12), cv2.FONT_HERSHEY_SIMPLEX, 0.38,
                    (0, 0, 0), 1, cv2.LINE_AA)
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), img)
