"""Export of the labelled frames as one folder that is both a YOLO and a COCO set.

Layout: `images/<roll_id>.jpg` (the clean evidence frame), `labels/<roll_id>.txt` (YOLO:
`class cx cy w h` normalised, class k = face k + 1, as `dicecall evaluate` reads) and
`annotations.json` (COCO: categories face_1..face_6, bbox [x, y, w, h] pixels, as
`dicecall calibrate model` reads, with the cocked/stacked/outside flags as `attributes`).
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
from pathlib import Path
from typing import Any

from sqlalchemy import select

from ..db.console_models import DieLabel
from ..db.models import Roll
from ..db.session import Database
from ..errors import ApiError
from ..services.evidence import path_for

_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def jpeg_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a JPEG's start-of-frame marker, without decoding it."""
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker in _SOF:
            height, width = struct.unpack(">HH", data[i + 5:i + 9])
            return width, height
        i += 2 + length
    raise ValueError("no JPEG start-of-frame marker found")


def collect(db: Database, evidence_dir: Path) -> list[dict[str, Any]]:
    """Every labelled roll: its clean JPEG bytes, size and dice."""
    with db.read() as session:
        labels = session.scalars(select(DieLabel).order_by(DieLabel.roll_id,
                                                           DieLabel.die)).all()
        by_roll: dict[str, list[DieLabel]] = {}
        for lab in labels:
            by_roll.setdefault(lab.roll_id, []).append(lab)
        items = []
        for roll_id, dice in by_roll.items():
            detail = json.loads(session.get(Roll, roll_id).detail_json)
            path = path_for(evidence_dir, detail["evidence"]["clean_sha256"])
            if not path.is_file():
                raise ApiError(409, "evidence_missing", f"the clean frame of roll {roll_id} "
                               f"is not in the evidence store ({path.name})")
            data = path.read_bytes()
            width, height = jpeg_size(data)
            items.append({"roll_id": roll_id, "jpeg": data, "width": width,
                          "height": height, "dice": dice})
    return items


def _yolo(item: dict[str, Any]) -> str:
    w, h = item["width"], item["height"]
    lines = []
    for d in item["dice"]:
        cx, cy = (d.x0 + d.x1) / 2 / w, (d.y0 + d.y1) / 2 / h
        lines.append(f"{d.face - 1} {cx:.6f} {cy:.6f} {(d.x1 - d.x0) / w:.6f} "
                     f"{(d.y1 - d.y0) / h:.6f}")
    return "\n".join(lines) + ("\n" if lines else "")


def _coco(items: list[dict[str, Any]]) -> dict[str, Any]:
    images, anns = [], []
    for n, item in enumerate(items, start=1):
        images.append({"id": n, "file_name": f"{item['roll_id']}.jpg",
                       "width": item["width"], "height": item["height"]})
        for d in item["dice"]:
            w, h = d.x1 - d.x0, d.y1 - d.y0
            anns.append({"id": len(anns) + 1, "image_id": n, "category_id": d.face,
                         "bbox": [d.x0, d.y0, w, h], "area": w * h, "iscrowd": 0,
                         "attributes": {"cocked": d.cocked, "stacked": d.stacked,
                                        "outside": d.outside, "labeler": d.labeler}})
    cats = [{"id": k, "name": f"face_{k}", "supercategory": "die"} for k in range(1, 7)]
    return {"images": images, "annotations": anns, "categories": cats}


def files(items: list[dict[str, Any]]) -> dict[str, bytes]:
    """Relative path -> bytes of the whole export."""
    out = {f"images/{i['roll_id']}.jpg": i["jpeg"] for i in items}
    out.update({f"labels/{i['roll_id']}.txt": _yolo(i).encode() for i in items})
    out["annotations.json"] = json.dumps(_coco(items), indent=1).encode()
    return out


def write_folder(items: list[dict[str, Any]], out: Path) -> int:
    """Writes the export under `out`; returns the number of images."""
    for rel, data in files(items).items():
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return len(items)


def zip_bytes(items: list[dict[str, Any]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for rel, data in files(items).items():
            zf.writestr(f"dicecall-labels/{rel}", data)
    return buf.getvalue()
