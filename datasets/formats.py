"""Exporters to and importers from YOLO and COCO folders.

YOLO, exactly like `data/real-dev/epanemu/valid`: `images/NAME.jpg` and `labels/NAME.txt`
with one `class cx cy w h` line per die, normalised to the image size, class k = face k + 1.
COCO: `annotations.json` (categories 1..6 named face_1..face_6, bbox [x, y, w, h] pixels)
beside an `images/` folder. Importers give the same in-memory `SceneRecord`s as our JSON,
with only the 2D fields filled in, so the real photos can be read like synthetic scenes.
Exports keep dice whose visible fraction is at least `min_visible`.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

from dicecall.datasets.schema import DatasetError, DieLabel, SceneRecord, load_folder, save_record

IMAGE_EXTS = (".jpg", ".jpeg", ".png", ".bmp")


def image_size(path: Path) -> tuple[int, int]:
    """(width, height) of an image file as it is read for the model: decoded with OpenCV's
    colour flag, which turns a photo its EXIF orientation says is on its side upright.
    Labels are scaled by this size, so they and the reader's coordinates share one frame
    (`vision.images.load_image`, `models.data.read_rgb`, which decode alike)."""
    from dicecall.vision.images import imread

    img = imread(path)
    if img is None:
        raise DatasetError(f"{path}: not a readable image")
    return int(img.shape[1]), int(img.shape[0])


def yolo_rows(label: Path) -> list[tuple[int, float, float, float, float]]:
    """The rows `(class, cx, cy, w, h)` of a YOLO label file; none for a missing file.

    Raises:
        DatasetError: naming the file and line, for a line that is not five numbers, a class
            that is not a whole number 0-5 (face 1-6), or a box that is not finite with a
            positive size. A bad line is refused, not skipped: dropped, its die would turn
            the reader's right answer into a false detection.
    """
    if not label.is_file():
        return []
    try:
        text = label.read_text()
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{label}: not a UTF-8 text label file ({exc.reason} at byte "
                           f"{exc.start})") from exc
    rows = []
    for n, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            rows.append(_yolo_row(line, f"{label}:{n}"))
    return rows


def _yolo_row(line: str, where: str) -> tuple[int, float, float, float, float]:
    parts = line.split()
    if len(parts) != 5:
        raise DatasetError(f"{where}: expected 'class cx cy w h', got {line!r}")
    try:
        k, cx, cy, bw, bh = int(parts[0]), *map(float, parts[1:])
    except ValueError as exc:
        raise DatasetError(f"{where}: {exc}") from exc
    if not 0 <= k <= 5:
        raise DatasetError(f"{where}: class {k} is not a face (0-5 for faces 1-6)")
    if not all(math.isfinite(v) for v in (cx, cy, bw, bh)) or bw <= 0 or bh <= 0:
        raise DatasetError(f"{where}: the box must be finite with a positive size, got "
                           f"{line.strip()!r}")
    return k, cx, cy, bw, bh


def _copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)


def export_yolo(src: str | Path, dst: str | Path, min_visible: float = 0.3) -> int:
    """Writes our dataset `src` as a YOLO folder `dst`; returns the number of images."""
    dst = Path(dst)
    (dst / "labels").mkdir(parents=True, exist_ok=True)
    pairs = load_folder(src)
    for path, rec in pairs:
        _copy(path.parent / rec.image, dst / "images" / rec.image)
        lines = []
        for d in rec.dice:
            x0, y0, x1, y1 = d.box
            if d.visible < min_visible or x1 <= x0 or y1 <= y0:
                continue
            cx, cy = (x0 + x1) / 2 / rec.width, (y0 + y1) / 2 / rec.height
            w, h = (x1 - x0) / rec.width, (y1 - y0) / rec.height
            lines.append(f"{d.face - 1} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}")
        (dst / "labels" / (Path(rec.image).stem + ".txt")).write_text("\n".join(lines))
    return len(pairs)


def _die(row: tuple[int, float, float, float, float], w: int, h: int) -> DieLabel:
    k, cx, cy, bw, bh = row
    box = [(cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h]
    return DieLabel(face=k + 1, box=[round(v, 3) for v in box], style=f"class_{k}")


def load_yolo(folder: str | Path) -> list[tuple[Path, SceneRecord]]:
    """Reads a YOLO folder (images/ + labels/) into records.

    Returns:
        (image path, record) pairs sorted by name; an image without a label file has no dice.

    Raises:
        DatasetError: missing folders or malformed label lines.
    """
    root = Path(folder)
    images = root / "images"
    if not images.is_dir() or not (root / "labels").is_dir():
        raise DatasetError(f"{root}: a YOLO folder needs images/ and labels/ subfolders")
    out = []
    for img in sorted(p for p in images.iterdir() if p.suffix.lower() in IMAGE_EXTS):
        w, h = image_size(img)
        dice = [_die(r, w, h) for r in yolo_rows(root / "labels" / (img.stem + ".txt"))]
        out.append((img, SceneRecord(image=img.name, width=w, height=h, dice=dice, source="yolo")))
    return out


def export_coco(src: str | Path, dst: str | Path, min_visible: float = 0.3) -> int:
    """Writes our dataset `src` as COCO (`annotations.json` + `images/`); returns image count."""
    dst = Path(dst)
    pairs = load_folder(src)
    images, anns = [], []
    for img_id, (path, rec) in enumerate(pairs, start=1):
        _copy(path.parent / rec.image, dst / "images" / rec.image)
        images.append(
            {"id": img_id, "file_name": rec.image, "width": rec.width, "height": rec.height}
        )
        for d in rec.dice:
            x0, y0, x1, y1 = d.box
            if d.visible < min_visible or x1 <= x0 or y1 <= y0:
                continue
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": img_id,
                    "category_id": d.face,
                    "bbox": [x0, y0, x1 - x0, y1 - y0],
                    "area": (x1 - x0) * (y1 - y0),
                    "iscrowd": 0,
                }
            )
    cats = [{"id": k, "name": f"face_{k}", "supercategory": "die"} for k in range(1, 7)]
    doc = {"images": images, "annotations": anns, "categories": cats}
    (dst / "annotations.json").write_text(json.dumps(doc))
    return len(pairs)


def _coco_doc(root: Path) -> tuple[Path, dict]:
    cands = [root / "annotations.json", root / "_annotations.coco.json"]
    path = next((p for p in cands if p.is_file()), None)
    if path is None:
        raise DatasetError(f"{root}: no annotations.json (or _annotations.coco.json)")
    try:
        doc = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: not valid JSON ({exc})") from exc
    if not isinstance(doc, dict) or not {"images", "annotations", "categories"} <= set(doc):
        raise DatasetError(f"{path}: needs 'images', 'annotations' and 'categories'")
    return path, doc


def load_coco(folder: str | Path) -> list[tuple[Path, SceneRecord]]:
    """Reads a COCO folder into records; categories map to faces by a digit in their name.

    Raises:
        DatasetError: missing or malformed annotations, or a category without a face value.
    """
    root = Path(folder)
    path, doc = _coco_doc(root)
    faces = {}
    for c in doc["categories"]:
        digits = [ch for ch in str(c.get("name", "")) if ch.isdigit()]
        if len(digits) == 1 and 1 <= int(digits[0]) <= 6:
            faces[c["id"]] = int(digits[0])
    recs: dict[int, tuple[Path, SceneRecord]] = {}
    for n, im in enumerate(doc["images"]):
        try:
            name, width, height = str(im["file_name"]), im["width"], im["height"]
            image_id = im["id"]
        except (KeyError, TypeError) as exc:
            raise DatasetError(f"{path}: images[{n}] needs id, file_name, width and height "
                               f"(missing {exc})") from exc
        if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0
                   for v in (width, height)):
            raise DatasetError(f"{path}: images[{n}] width and height must be positive "
                               f"whole numbers, got {width!r} x {height!r}")
        img = root / "images" / name
        img = img if img.is_file() else root / name
        recs[image_id] = (img, SceneRecord(image=Path(name).name, width=width,
                                           height=height, source="coco"))
    for n, a in enumerate(doc["annotations"]):
        try:
            category, image_id, bbox = a["category_id"], a["image_id"], a["bbox"]
        except (KeyError, TypeError) as exc:
            raise DatasetError(f"{path}: annotations[{n}] needs image_id, category_id and "
                               f"bbox (missing {exc})") from exc
        if category not in faces:
            raise DatasetError(f"{path}: category {category} has no face value 1-6")
        if image_id not in recs:
            raise DatasetError(f"{path}: annotations[{n}] refers to image {image_id!r}, "
                               "which is not in images")
        if not (isinstance(bbox, list) and len(bbox) == 4
                and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                        and math.isfinite(v) for v in bbox) and bbox[2] > 0 and bbox[3] > 0):
            raise DatasetError(f"{path}: annotations[{n}] bbox must be [x, y, w, h], finite "
                               f"with a positive size, got {bbox!r}")
        x, y, w, h = bbox
        recs[image_id][1].dice.append(
            DieLabel(face=faces[category], box=[x, y, x + w, y + h])
        )
    return sorted(recs.values(), key=lambda pr: pr[1].image)


def import_folder(fmt: str, src: str | Path, dst: str | Path) -> int:
    """Converts a YOLO or COCO folder into our JSON schema (images copied beside)."""
    loaders = {"yolo": load_yolo, "coco": load_coco}
    if fmt not in loaders:
        raise DatasetError(f"format must be one of {sorted(loaders)}, got {fmt!r}")
    pairs = loaders[fmt](src)
    # Every image is checked before anything is written: a missing one must not leave
    # half an import behind.
    missing = [str(img) for img, _ in pairs if not img.is_file()]
    if missing:
        raise DatasetError(f"{len(missing)} image(s) named in the annotations are not in "
                           f"{src}: {', '.join(missing[:5])}")
    dst = Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    for img, rec in pairs:
        _copy(img, dst / rec.image)
        save_record(rec, dst / (Path(rec.image).stem + ".json"))
    return len(pairs)
