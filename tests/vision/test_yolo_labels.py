"""YOLO folders as `dicecall evaluate`, the training loader and the importer read them (issue
5): a bad label line is refused with its file and line, never skipped or misread, and labels
are scaled to the image as the reader decodes it, upright by its EXIF orientation."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from dicecall.cli import app
from dicecall.datasets.formats import load_yolo
from dicecall.datasets.schema import DatasetError
from dicecall.models.data import load_yolo as load_yolo_for_training
from dicecall.vision.labelled import read_yolo

GOOD = "2 0.25 0.5 0.1 0.1"


def _folder(tmp_path: Path, label: str, image: np.ndarray | None = None) -> Path:
    for sub in ("images", "labels"):
        (tmp_path / sub).mkdir(parents=True, exist_ok=True)
    if image is None:
        image = np.random.default_rng(0).integers(0, 255, (120, 160, 3), np.uint8)
    cv2.imwrite(str(tmp_path / "images" / "a.jpg"), image)
    (tmp_path / "labels" / "a.txt").write_text(f"{GOOD}\n{label}\n")
    return tmp_path


@pytest.mark.parametrize(("line", "why"), [
    ("7 0.5 0.5 0.1 0.1", "class 7 is not a face"),
    ("6 0.5 0.5 0.1 0.1", "class 6 is not a face"),
    ("-1 0.5 0.5 0.1 0.1", "class -1 is not a face"),
    ("0.7 0.5 0.5 0.1 0.1", "invalid literal"),
    ("zero 0.5 0.5 0.1 0.1", "invalid literal"),
    ("1 0.5 0.5 0.1", "expected 'class cx cy w h'"),
    ("1 0.5 0.5 0.1 0.1 0.9", "expected 'class cx cy w h'"),
    ("1 0.5 0.5 -0.1 0.1", "positive size"),
    ("1 nan 0.5 0.1 0.1", "finite"),
])
def test_every_reader_of_yolo_labels_refuses_a_bad_line_naming_it(tmp_path, line, why):
    folder = _folder(tmp_path, line)
    where = f"{folder / 'labels' / 'a.txt'}:2"
    for read in (lambda: list(read_yolo(folder)), lambda: load_yolo(folder),
                 lambda: load_yolo_for_training(folder, top_face=False)):
        with pytest.raises(DatasetError, match=why) as err:
            read()
        assert where in str(err.value)


def test_evaluate_stops_on_a_bad_label_with_its_place_and_no_traceback(tmp_path):
    folder = _folder(tmp_path, "7 0.5 0.5 0.1 0.1")
    res = CliRunner().invoke(app, ["evaluate", "--json", str(folder)])
    assert res.exit_code == 2
    assert "a.txt:2: class 7 is not a face" in res.output
    assert "Traceback" not in res.output


def _with_orientation(jpeg: bytes, orientation: int) -> bytes:
    """The JPEG with an EXIF APP1 segment holding only the Orientation tag, as a phone
    writes a photo taken with the camera on its side."""
    tiff = (b"II*\x00" + struct.pack("<IH", 8, 1)
            + struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack("<I", 0))
    app1 = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:]


def test_labels_of_a_photo_on_its_side_are_scaled_to_it_upright(tmp_path):
    """A 160x120 file whose EXIF says 'turn 90 degrees' decodes 120x160, and the reader's
    coordinates are in that frame; the labels, normalised to the upright photo, must be too."""
    raw = np.zeros((120, 160, 3), np.uint8)
    _, buf = cv2.imencode(".jpg", raw)
    folder = _folder(tmp_path, GOOD)
    (folder / "images" / "a.jpg").write_bytes(_with_orientation(buf.tobytes(), 6))
    h, w = cv2.imdecode(np.fromfile(folder / "images" / "a.jpg", np.uint8),
                        cv2.IMREAD_COLOR).shape[:2]  # as vision.images.load_image decodes
    assert (w, h) == (120, 160)
    [item] = list(read_yolo(folder))
    cx = (item.boxes[:, 0] + item.boxes[:, 2]) / 2
    cy = (item.boxes[:, 1] + item.boxes[:, 3]) / 2
    assert cx == pytest.approx([0.25 * 120, 0.25 * 120]) and cy == pytest.approx([80, 80])
    [(_, rec)] = load_yolo(folder)
    assert (rec.width, rec.height) == (120, 160)


def test_evaluate_names_an_unreadable_image_and_its_labelled_dice(tmp_path):
    folder = _folder(tmp_path, GOOD)
    (folder / "images" / "b.jpg").write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg" * 10)
    (folder / "labels" / "b.txt").write_text(f"{GOOD}\n{GOOD}\n{GOOD}\n")
    res = CliRunner().invoke(app, ["evaluate", "--json", str(folder)])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert report["unreadable"] == ["b.jpg"] and report["unreadable_images"] == 1
    assert report["labelled_in_unreadable_images"] == 3 and report["labelled"] == 2


def test_predict_says_a_folder_is_not_an_image(tmp_path):
    res = CliRunner().invoke(app, ["predict", "--json", str(tmp_path)])
    assert res.exit_code == 1
    assert "is a folder, not an image file" in json.loads(res.output)["error"]


def test_evaluate_refuses_a_folder_with_no_images(tmp_path):
    for sub in ("images", "labels"):
        (tmp_path / sub).mkdir()
    (tmp_path / "labels" / "orphan.txt").write_text(f"{GOOD}\n")
    res = CliRunner().invoke(app, ["evaluate", "--json", str(tmp_path)])
    assert res.exit_code == 2 and "no images to score" in res.output


def test_the_confusion_png_shows_a_single_misread_in_red(tmp_path):
    """One die of sixty read wrong is what a labeller looks for in the matrix."""
    from dicecall.vision.scoring import confusion_png

    counts = np.diag([38, 36, 39, 56, 43, 41])
    counts[3, 0] = 1
    confusion_png(counts, str(tmp_path / "c.png"), "valid")
    img = cv2.imread(str(tmp_path / "c.png"))
    cell = img[90 + 3 * 70 + 30, 90 + 0 * 70 + 50]  # truth 4 read 1 (margin 90, cell 70)
    empty = img[90 + 3 * 70 + 30, 90 + 1 * 70 + 50]  # truth 4 read 2: none
    assert cell[2] == 255 and cell[0] <= 150 and cell[1] <= 150
    assert empty.tolist() == [255, 255, 255]
