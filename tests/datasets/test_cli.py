"""The `dicecall datasets` commands, through Typer's test runner."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from dicecall.datasets.cli import register


@pytest.fixture()
def app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Test root."""

    register(app)
    return app


def test_generate_stats_sheet_export(app, tmp_path):
    pytest.importorskip("pybullet")
    run = CliRunner().invoke
    out = tmp_path / "ds"
    r = run(
        app,
        [
            "datasets",
            "generate",
            "--scene",
            "craps",
            "--count",
            "2",
            "--seed",
            "3",
            "--out",
            str(out),
            "--width",
            "320",
            "--height",
            "240",
            "--workers",
            "1",
        ],
    )
    assert r.exit_code == 0, r.output
    r = run(app, ["datasets", "stats", str(out), "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["images"] == 2
    r = run(app, ["datasets", "contact-sheet", str(out), "-o", str(tmp_path / "s.png")])
    assert r.exit_code == 0 and (tmp_path / "s.png").stat().st_size > 0
    r = run(app, ["datasets", "export", "--format", "coco", str(out), str(tmp_path / "coco")])
    assert r.exit_code == 0 and (tmp_path / "coco" / "annotations.json").is_file()


def test_bad_input_exits_with_a_message(app, tmp_path):
    run = CliRunner().invoke
    r = run(app, ["datasets", "stats", str(tmp_path / "missing")])
    assert r.exit_code == 2 and "no such dataset folder" in r.output
    r = run(
        app, ["datasets", "generate", "--scene", "moon", "--count", "1", "--out", str(tmp_path)]
    )
    assert r.exit_code == 2 and "scene" in r.output
    r = run(app, ["datasets", "import", "--format", "xml", str(tmp_path), str(tmp_path / "o")])
    assert r.exit_code == 2


def _coco_folder(root, doc, images=("a.jpg",)):
    import cv2
    import numpy as np

    (root / "images").mkdir(parents=True, exist_ok=True)
    for name in images:
        cv2.imwrite(str(root / "images" / name), np.zeros((48, 64, 3), np.uint8))
    (root / "annotations.json").write_text(json.dumps(doc))
    return root


def test_malformed_import_is_a_message_and_writes_nothing(app, tmp_path):
    """A malformed COCO entry or a YOLO label that is not text was a traceback; an image
    named in the annotations but missing was a traceback after the images before it had
    been written. Each is now `error: ...` (exit 2) and the output folder is not made."""
    cats = [{"id": 1, "name": "face_1"}]
    im = [{"id": 1, "file_name": "a.jpg", "width": 64, "height": 48}]
    cases = {
        "no category": ([{"image_id": 1, "bbox": [1, 2, 3, 4]}], im, "needs image_id"),
        "short bbox": ([{"image_id": 1, "category_id": 1, "bbox": [1, 2]}], im, "bbox"),
        "zero bbox": ([{"image_id": 1, "category_id": 1, "bbox": [1, 2, 0, 4]}], im, "bbox"),
        "unknown image": ([{"image_id": 7, "category_id": 1, "bbox": [1, 2, 3, 4]}], im,
                          "image 7"),
        "image w/o size": ([], [{"id": 1, "file_name": "a.jpg"}], "width and height"),
        "missing image": ([], [*im, {"id": 2, "file_name": "z.jpg", "width": 64,
                                     "height": 48}], "z.jpg"),
    }
    runner = CliRunner()
    for n, (what, (anns, images, message)) in enumerate(cases.items()):
        src = _coco_folder(tmp_path / f"c{n}", {"images": images, "annotations": anns,
                                                "categories": cats})
        out = tmp_path / f"out{n}"
        r = runner.invoke(app, ["datasets", "import", str(src), str(out), "--format", "coco"])
        assert r.exit_code == 2 and "error:" in r.output and message in r.output, (what,
                                                                                   r.output)
        assert not out.exists(), what
    src = _coco_folder(tmp_path / "y", {}, images=("a.jpg",))
    (src / "labels").mkdir()
    (src / "labels" / "a.txt").write_bytes(b"\xff\xfe\x00bad")
    for args in (["import", str(src), str(tmp_path / "outy")], ["stats", str(src)]):
        r = runner.invoke(app, ["datasets", *args, "--format", "yolo"])
        assert r.exit_code == 2 and "not a UTF-8 text label file" in r.output, r.output
    assert not (tmp_path / "outy").exists()
