"""Our label schema: one JSON file per image, beside the image.

A dataset folder holds `NAME.jpg` and `NAME.json` pairs. The JSON is a `SceneRecord`;
`schema_version` changes whenever a field changes meaning. Pixel coordinates are in the
image as saved (x right, y down, origin at the top-left pixel's corner); 3D positions are
millimetres in the table frame (z up, table surface at z = 0); quaternions are (x, y, z, w).
Records imported from YOLO or COCO carry only the 2D fields; the 3D fields are None.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

SCHEMA_VERSION = 1
# A die less visible than this (behind the shaker wall, under the stick or another die) is
# one no camera can read: training leaves it out, scoring neither counts it found nor missed,
# and the verdict suite and replay truth treat it as a missing die.
MIN_VISIBLE = 0.3
GAMES = ("craps", "props-and-hops", "high-roll-dice", "high-roll-dice-6", "unknown")


class DatasetError(ValueError):
    """A dataset folder or label file is missing or malformed."""


@dataclass
class DieLabel:
    """One die in one image.

    Attributes:
        face: uppermost face value 1-6 (623a.9(b)'s "uppermost or skyward").
        box: [x0, y0, x1, y1] pixels, the whole visible die, clipped to the image.
        position_mm: centre [x, y, z].
        quat_xyzw: orientation, die-local to table frame.
        tilt_deg: angle between the uppermost face's normal and +Z.
        up_margin_deg: angle of the second-most-up face minus the uppermost; small = void.
        cocked: tilt above dice.COCKED_TILT_DEG.
        stacked: resting on another die, not on the floor (623a.8(b), 668a.3(h)).
        resting_on: index of the die it rests on, when stacked.
        leaning_on: what a cocked die leans on: "wall", "chips", "die" or None.
        touching: indices of the other dice it touches.
        zone: "shaker", "throw_box", "table", "off" or "on_chips".
        in_zone: inside the game's expected zone (counts for the roll).
        top_corners: 4 projected corners [[x, y], ...] of the uppermost face, pixels.
        pips: projected centres [[x, y], ...] of the uppermost face's pips, pixels.
        visible: fraction 0-1 of the die's silhouette that is unoccluded and in the image.
        style: die style name, or the source's class name.
        size_mm: edge length.
    """

    face: int
    box: list[float]
    position_mm: list[float] | None = None
    quat_xyzw: list[float] | None = None
    tilt_deg: float | None = None
    up_margin_deg: float | None = None
    cocked: bool | None = None
    stacked: bool | None = None
    resting_on: int | None = None
    leaning_on: str | None = None
    touching: list[int] = field(default_factory=list)
    zone: str | None = None
    in_zone: bool | None = None
    top_corners: list[list[float]] | None = None
    pips: list[list[float]] | None = None
    visible: float = 1.0
    style: str | None = None
    size_mm: float | None = None


@dataclass
class SceneRecord:
    """One image and its labels.

    Attributes:
        image: image file name, relative to the JSON file's folder.
        width, height: image size in pixels.
        game: one of GAMES.
        scene: "shaker", "throwbox", "craps", or "real" for imported photos.
        expected_dice: dice the game expects in the zone for this roll.
        dice: one DieLabel per die.
        camera_k: 3x3 intrinsic matrix, pixels, or None.
        dist: OpenCV distortion coefficients [k1, k2, p1, p2, k3], or None.
        camera_height_mm: camera height above the table surface.
        camera_up: the table's up direction (unit vector) in camera coordinates (x right,
            y down, z forward), or None: with camera_k and dist it gives each die the
            direction the camera sees it from, as a calibrated table camera does
            (`vision.preprocess.FloorView`).
        zones: name -> polygon [[x, y], ...] in pixels (e.g. "shaker", "throw_box").
        seed: the scene's seed, or None.
        forced: forced placements applied, e.g. ["stack:1:0"].
        source: "synthetic", "yolo" or "coco".
        roll: "first", or "extra" for High Roll's Extra Roll (675a.3(g)).
        lamps: for a scene also rendered under the lamps the camera switches
            (`datasets.lamps`), {"frames": [four image names: every lamp off, then lamp 1,
            2, 3], "rig": `vision.lamps.LampRig` fields, "polarised": bool}; else None,
            and left out of the JSON.
    """

    image: str
    width: int
    height: int
    game: str = "unknown"
    scene: str = "real"
    expected_dice: int | None = None
    dice: list[DieLabel] = field(default_factory=list)
    camera_k: list[list[float]] | None = None
    dist: list[float] | None = None
    camera_height_mm: float | None = None
    camera_up: list[float] | None = None
    zones: dict[str, list[list[float]]] = field(default_factory=dict)
    seed: int | None = None
    forced: list[str] = field(default_factory=list)
    source: str = "synthetic"
    roll: str = "first"
    schema_version: int = SCHEMA_VERSION
    lamps: dict | None = None


def record_to_dict(rec: SceneRecord) -> dict:
    """Returns the record as plain JSON-ready data."""
    data = asdict(rec)
    if data["lamps"] is None:  # records without lamp frames stay as they always were
        del data["lamps"]
    return data


def record_from_dict(data: dict, where: str = "<dict>") -> SceneRecord:
    """Builds a record from parsed JSON, with a clear error for a wrong version or field.

    Raises:
        DatasetError: unknown schema version, missing or unknown fields.
    """
    if not isinstance(data, dict):
        raise DatasetError(f"{where}: expected a JSON object, got {type(data).__name__}")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise DatasetError(f"{where}: schema_version {version!r}, this code reads {SCHEMA_VERSION}")
    known = {f.name for f in fields(SceneRecord)}
    extra = set(data) - known
    if extra:
        raise DatasetError(f"{where}: unknown fields {sorted(extra)}")
    try:
        dice = [DieLabel(**d) for d in data.get("dice", [])]
        rec = SceneRecord(**{**data, "dice": dice})
    except TypeError as exc:
        raise DatasetError(f"{where}: {exc}") from exc
    for d in rec.dice:
        if not 1 <= int(d.face) <= 6 or len(d.box) != 4:
            raise DatasetError(f"{where}: die with face {d.face} and box {d.box} is invalid")
    return rec


def save_record(rec: SceneRecord, path: str | Path) -> None:
    """Writes a record as JSON to `path`."""
    Path(path).write_text(json.dumps(record_to_dict(rec), separators=(",", ":")))


def load_record(path: str | Path) -> SceneRecord:
    """Reads one record.

    Raises:
        DatasetError: the file is missing, is not JSON, or does not match the schema.
    """
    p = Path(path)
    if not p.is_file():
        raise DatasetError(f"{p}: no such label file")
    try:
        data = json.loads(p.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{p}: not valid JSON ({exc})") from exc
    return record_from_dict(data, str(p))


def load_folder(folder: str | Path) -> list[tuple[Path, SceneRecord]]:
    """Reads every `*.json` record of a dataset folder, sorted by name.

    Returns:
        (json path, record) pairs; the image is `json_path.parent / record.image`.

    Raises:
        DatasetError: the folder is missing, holds no records, or a record is bad.
    """
    root = Path(folder)
    if not root.is_dir():
        raise DatasetError(f"{root}: no such dataset folder")
    paths = sorted(root.glob("*.json"))
    if not paths:
        raise DatasetError(
            f"{root}: no *.json label files (is this a YOLO or COCO folder? use import)"
        )
    return [(p, load_record(p)) for p in paths]
