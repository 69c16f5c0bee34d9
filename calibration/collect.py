"""Running the reader over a labelled set to collect `Samples` (raw logits, pip readings,
flags, labels).

Sources: our synthetic JSON folders (faces, cocked and stacked labels), YOLO folders and
COCO exports from a labelling tool (faces only), and face-per-folder crop sets.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from dicecall.datasets.schema import MIN_VISIBLE
from dicecall.vision.images import ImageError, load_image
from dicecall.vision.labelled import layout, read_crops, read_yolo
from dicecall.vision.preprocess import crops, die_geometry
from dicecall.vision.reader import read_batch
from dicecall.vision.scoring import match

from . import CalibrationError
from .scores import UNKNOWN, Samples, image_key

Item = tuple[Path, np.ndarray | None, np.ndarray, np.ndarray, np.ndarray]
# Face of a labelled die too hidden to read (under another die, behind the shaker wall). Its
# box still takes part in matching, so the die on top of it is not paired with the next
# label, but a read matched to it is not a sample: its "truth" is a face nobody can see.
HIDDEN = 0


def raw_outputs(reader, frame: np.ndarray, whole: bool = False):
    """The reader's outputs before the temperature: centres (K, 2), logits (K, 6), the pip
    reading (K,) int8 as the edge counts it, tilt and stacked probabilities (K,).
    `whole`: the frame is one die seen from above (a crop)."""
    if whole:
        h, w = frame.shape[:2]
        centers = np.array([[w / 2, h / 2]], np.float32)
        sides = np.array([max(h, w)], np.float32)
    else:
        centers, boxes, _ = reader.detect(frame)
        sides = reader.config.crop_scale * np.maximum(boxes[:, 2] - boxes[:, 0],
                                                      boxes[:, 3] - boxes[:, 1])
    if len(centers) == 0:
        return centers, np.zeros((0, 6), np.float32), np.zeros(0, np.int8), \
            np.zeros(0, np.float32), np.zeros(0, np.float32)
    batch = crops(frame, centers, sides, reader.config.crop_size)
    geom = die_geometry(centers, sides / reader.config.crop_scale, frame.shape)
    *outs, die, _margin = read_batch(reader.reader, batch, reader.config, geom)
    # The runtime drops what the die-or-not head rejects; calibrate on what it keeps.
    keep = die >= reader.config.die_threshold if not whole else np.ones(len(die), bool)
    return (centers[keep], *(o[keep] for o in outs))


def _json_items(folder: Path) -> Iterator[Item]:
    for path in sorted(folder.glob("*.json")):
        try:
            rec = json.loads(path.read_text())
            dice = rec["dice"]
            boxes = np.array([d["box"] for d in dice], np.float32).reshape(-1, 4)
            faces = np.array([d["face"] if d.get("visible", 1.0) >= MIN_VISIBLE else HIDDEN
                              for d in dice], np.int64)
            cocked = np.array([UNKNOWN if d.get("cocked") is None else int(d["cocked"])
                               for d in dice], np.int8)
            stacked = np.array([UNKNOWN if d.get("stacked") is None else int(d["stacked"])
                                for d in dice], np.int8)
            image = path.parent / rec["image"]
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(f"{path}: not a dicecall label file ({exc})") from exc
        yield image, boxes, faces, cocked, stacked


def _coco_items(folder: Path) -> Iterator[Item]:
    doc = json.loads((folder / "annotations.json").read_text())
    faces = {}
    for c in doc["categories"]:
        digits = re.findall(r"[1-6]", str(c["name"]))
        if len(digits) != 1:
            raise CalibrationError(f"COCO category {c['name']!r} names no face 1-6")
        faces[c["id"]] = int(digits[0])
    by_image: dict[int, list] = {im["id"]: [] for im in doc["images"]}
    for a in doc["annotations"]:
        by_image.setdefault(a["image_id"], []).append(a)
    for im in doc["images"]:
        anns = by_image[im["id"]]
        boxes = np.array([[x, y, x + w, y + h] for x, y, w, h in (a["bbox"] for a in anns)],
                         np.float32).reshape(-1, 4)
        f = np.array([faces[a["category_id"]] for a in anns], np.int64)
        unknown = np.full(len(anns), UNKNOWN, np.int8)
        yield folder / "images" / im["file_name"], boxes, f, unknown, unknown


def labelled_items(folder: Path) -> Iterator[Item]:
    """(image, boxes (M, 4) or None for a crop, faces (M,), cocked (M,), stacked (M,))."""
    if (folder / "annotations.json").is_file():
        yield from _coco_items(folder)
        return
    try:
        kind = layout(folder)
    except ValueError as exc:
        raise CalibrationError(str(exc)) from exc
    if kind == "json":
        yield from _json_items(folder)
        return
    for item in read_yolo(folder) if kind == "yolo" else read_crops(folder):
        unknown = np.full(len(item.faces), UNKNOWN, np.int8)
        yield item.image, item.boxes, item.faces, unknown, unknown


def collect(reader, folder: Path, limit: int | None = None) -> tuple[Samples, dict]:
    """Reads every labelled image and keeps the dice matched to a label by centre.

    Returns:
        (samples, counts: images, labelled, matched, missed, false detections, unreadable,
        hidden: reads matched to a hidden die, left out).
    """
    parts, counts = [], dict.fromkeys(("images", "labelled", "matched", "false_detections",
                                       "unreadable", "hidden"), 0)
    for n, (image, boxes, faces, cocked, stacked) in enumerate(labelled_items(folder)):
        if limit is not None and n >= limit:
            break
        try:
            frame = load_image(image)
        except ImageError:
            counts["unreadable"] += 1
            continue
        whole = boxes is None
        if whole:
            h, w = frame.shape[:2]
            boxes = np.array([[0, 0, w, h]], np.float32)
        centers, logits, pips, tilt, stk = raw_outputs(reader, frame, whole=whole)
        pairs = match(centers, boxes)
        counts["images"] += 1
        counts["labelled"] += len(faces)
        counts["matched"] += len(pairs)
        counts["false_detections"] += len(centers) - len(pairs)
        counts["hidden"] += sum(int(faces[g] == HIDDEN) for _, g in pairs)
        pairs = [(p, g) for p, g in pairs if faces[g] != HIDDEN]
        if not pairs:
            continue
        p, g = (np.array(v) for v in zip(*pairs, strict=True))
        parts.append(Samples(logits=logits[p], face=faces[g].astype(np.int8), tilt=tilt[p],
                             stacked=stk[p], cocked_label=cocked[g], stacked_label=stacked[g],
                             group=np.full(len(p), image_key(image.name), np.int64),
                             pip_face=pips[p]))
    counts["missed"] = counts["labelled"] - counts["matched"]
    return Samples.concat(parts), counts
