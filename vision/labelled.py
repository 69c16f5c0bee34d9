"""Labelled image folders the evaluator reads: YOLO layout and face-per-folder crops."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

IMAGE_EXT = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}


@dataclass(frozen=True)
class Labelled:
    """One labelled image: boxes (M, 4) in pixels, faces (M,) 1-6."""

    image: Path
    boxes: np.ndarray | None  # None: the whole image is one die (a crop set)
    faces: np.ndarray
    extra: dict | None = None


def layout(folder: Path) -> str:
    """"yolo" (images/ + labels/), "crops" (folders 1-6) or "json" (our synthetic schema)."""
    if (folder / "images").is_dir() and (folder / "labels").is_dir():
        return "yolo"
    if all((folder / str(k)).is_dir() for k in range(1, 7)):
        return "crops"
    if any(folder.glob("*.json")):
        return "json"
    raise ValueError(f"{folder}: not a YOLO folder (images/, labels/), a crops folder (1/ .. "
                     "6/) or a synthetic JSON folder")


def read_yolo(folder: Path, sizes: dict[Path, tuple[int, int]] | None = None,
              unlabelled: list[Path] | None = None) -> Iterator[Labelled]:
    """Yields images with their boxes; the size is read from the image when not given, as
    the reader decodes it (upright by its EXIF orientation: `datasets.formats.image_size`).

    An image with no label file (matched by name whatever its case) is not yielded; it is
    appended to `unlabelled` when given, for the caller to name.

    Raises:
        DatasetError (a ValueError): a malformed label line, naming the file and line.
    """
    from dicecall.datasets.formats import image_size, yolo_rows
    from dicecall.datasets.schema import DatasetError

    labels = {p.name.lower(): p for p in (folder / "labels").iterdir()}
    for image in sorted(p for p in (folder / "images").iterdir() if p.suffix.lower() in IMAGE_EXT):
        label = labels.get(image.stem.lower() + ".txt")
        if label is None:
            # No label file is not "no dice": every die read there would count as false.
            # A labeller's tool writes an empty file for an image without dice.
            if unlabelled is not None:
                unlabelled.append(image)
            continue
        arr = np.array(yolo_rows(label), np.float32).reshape(-1, 5)
        if sizes and image in sizes:
            w, h = sizes[image]
        else:
            try:
                w, h = image_size(image)
            except DatasetError:  # still yielded: the caller's load reports it
                w, h = 0, 0
        cx, cy, bw, bh = arr[:, 1] * w, arr[:, 2] * h, arr[:, 3] * w, arr[:, 4] * h
        boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], axis=1)
        yield Labelled(image, boxes, arr[:, 0].astype(np.int64) + 1)


def read_crops(folder: Path) -> Iterator[Labelled]:
    for face in range(1, 7):
        for image in sorted((folder / str(face)).iterdir()):
            if image.suffix.lower() in IMAGE_EXT:
                yield Labelled(image, None, np.array([face]))
