"""Labelled images for training and scoring: YOLO folders and our synthetic JSON folders.

Both layouts load into `Sample`s of parallel numpy arrays. Labels a source does not carry
(tilt, stacked, pips for real photos; a whole-die box for top-face sources) are NaN or
flagged, so the training losses can mask them instead of learning a wrong zero.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from dicecall.datasets.formats import image_size, yolo_rows
from dicecall.datasets.schema import MIN_VISIBLE
from dicecall.vision.images import imread
from dicecall.vision.preprocess import FloorView, record_view

IMAGE_EXTS = (".jpg", ".jpeg", ".png", ".bmp")
TILT_DEG = 5.0  # cocked above this many degrees: datasets.dice.COCKED_TILT_DEG
TOP_FACE_SOURCES = ("matteop65",)  # sources whose boxes cover the top face only
# A top face box is smaller than the whole-die box the detector learns; this widens it for
# reader crops (measured on the oblique webcam views: whole die about 1.35x the top face).
TOP_FACE_WIDEN = 1.35


@dataclass
class Sample:
    """One labelled image.

    Attributes:
        image: image path.
        source: dataset name, e.g. "epanemu/train" or "synthetic".
        boxes: [K, 4] float32 x0, y0, x1, y1, pixels of the image as stored.
        faces: [K] int64 top face 1-6.
        tilt: [K] float32 1 = tilted above TILT_DEG, 0 = flat, NaN = unknown.
        stacked: [K] float32 1 = on another die, 0 = not, NaN = unknown.
        pips: K arrays [P, 2] float32 pip centres in pixels, or None when unknown.
        whole_box: the boxes cover the whole die (False: top face or pip pattern only).
        margin: [K] float32 up margin in degrees (how much nearer the top face points up
            than the next face; under 10 the die rests on an edge, a void), NaN = unknown;
            None = unknown for every die.
        view: the camera's view of the floor, when the scene records it (synthetic scenes
            since session 13), for `die_geometry`; None = an uncalibrated camera.
    """

    image: Path
    source: str
    boxes: np.ndarray
    faces: np.ndarray
    tilt: np.ndarray
    stacked: np.ndarray
    pips: list[np.ndarray | None] = field(default_factory=list)
    whole_box: bool = True
    margin: np.ndarray | None = None
    view: FloorView | None = None

    @property
    def centres(self) -> np.ndarray:
        """[K, 2] float32 box centres, pixels."""
        return (self.boxes[:, :2] + self.boxes[:, 2:]) / 2


def read_rgb(path: Path | str) -> np.ndarray:
    """Reads an image as [H, W, 3] uint8 RGB (greyscale files are expanded)."""
    im = imread(path)
    if im is None:
        raise FileNotFoundError(f"{path}: cannot read image")
    return cv2.cvtColor(im, cv2.COLOR_BGR2RGB)


def _source_name(folder: Path) -> str:
    return f"{folder.parent.name}/{folder.name}"


def load_yolo(folder: Path, top_face: bool) -> list[Sample]:
    """Loads a YOLO folder (images/ + labels/, class k = face k + 1)."""
    out = []
    for img in sorted((folder / "images").iterdir()):
        if img.suffix.lower() not in IMAGE_EXTS:
            continue
        w, h = image_size(img)  # as read_rgb decodes it
        arr = np.array(yolo_rows(folder / "labels" / (img.stem + ".txt")),
                       np.float32).reshape(-1, 5)
        cx, cy, bw, bh = arr[:, 1] * w, arr[:, 2] * h, arr[:, 3] * w, arr[:, 4] * h
        boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], 1)
        k = len(arr)
        out.append(Sample(img, _source_name(folder), boxes.astype(np.float32),
                          arr[:, 0].astype(np.int64) + 1, np.full(k, np.nan, np.float32),
                          np.full(k, np.nan, np.float32), [None] * k, not top_face))
    return out


def load_scene_json(folder: Path, min_visible: float = MIN_VISIBLE) -> list[Sample]:
    """Loads our synthetic layout: NAME.json (a datasets.schema SceneRecord) beside NAME.jpg.

    Dice less than `min_visible` visible are dropped: the detector is not asked to find a
    die hidden behind the shaker wall.
    """
    out = []
    for js in sorted(folder.glob("*.json")):
        rec = json.loads(js.read_text())
        if "dice" not in rec or "image" not in rec:
            continue
        dice = [d for d in rec["dice"] if float(d.get("visible", 1.0)) >= min_visible]
        k = len(dice)
        boxes = np.array([d["box"] for d in dice], np.float32).reshape(k, 4)
        tilt = [_cocked(d) for d in dice]
        stacked = [np.nan if d.get("stacked") is None else float(d["stacked"]) for d in dice]
        margin = [np.nan if d.get("up_margin_deg") is None else float(d["up_margin_deg"])
                  for d in dice]
        pips = [None if d.get("pips") is None else np.array(d["pips"], np.float32).reshape(-1, 2)
                for d in dice]
        out.append(Sample(js.parent / rec["image"], "synthetic/" + folder.name, boxes,
                          np.array([int(d["face"]) for d in dice], np.int64),
                          np.array(tilt, np.float32), np.array(stacked, np.float32), pips,
                          margin=np.array(margin, np.float32), view=record_view(rec)))
    return out


def _cocked(die: dict) -> float:
    """The scene's own `cocked` label (tilt above datasets.dice.COCKED_TILT_DEG, the
    threshold the verdict suite scores against); older labels give only the tilt."""
    if die.get("cocked") is not None:
        return float(die["cocked"])
    return np.nan if die.get("tilt_deg") is None else float(die["tilt_deg"] > TILT_DEG)


def load_folder(folder: str | Path, top_face_sources: tuple[str, ...] = TOP_FACE_SOURCES
                ) -> list[Sample]:
    """Loads either layout, telling them apart by the images/ + labels/ subfolders.

    Raises:
        FileNotFoundError: the folder holds neither layout.
    """
    root = Path(folder)
    if (root / "images").is_dir() and (root / "labels").is_dir():
        top = any(name in str(root) for name in top_face_sources)
        return load_yolo(root, top)
    if any(root.glob("*.json")):
        return load_scene_json(root)
    raise FileNotFoundError(f"{root}: neither a YOLO folder (images/, labels/) nor *.json scenes")


def load_crops_folder(folder: str | Path) -> tuple[list[Path], np.ndarray]:
    """Loads a folder of single-die crops named by face: FOLDER/{1..6}/*.png.

    Returns:
        (paths, faces): image paths and [M] int64 faces 1-6.
    """
    paths, faces = [], []
    for face in range(1, 7):
        for p in sorted((Path(folder) / str(face)).glob("*")):
            if p.suffix.lower() in IMAGE_EXTS:
                paths.append(p)
                faces.append(face)
    return paths, np.array(faces, np.int64)
