"""`dicecall predict` and `dicecall evaluate` on bad files: a clear per-image error, no crash,
and the good images in the same call are still read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from dicecall.cli import app

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "frames"


@pytest.fixture()
def bad_files(tmp_path: Path) -> dict[str, Path]:
    files = {"empty": tmp_path / "empty.jpg", "corrupt": tmp_path / "corrupt.jpg",
             "blank": tmp_path / "blank.png", "missing": tmp_path / "missing.jpg"}
    files["empty"].write_bytes(b"")
    files["corrupt"].write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg" * 10)
    cv2.imwrite(str(files["blank"]), np.full((240, 320, 3), 37, np.uint8))
    return files


def test_predict_reports_each_bad_image_and_reads_the_good_one(bad_files):
    good = sorted(SAMPLES.glob("*.jpg"))[0]
    paths = [str(p) for p in bad_files.values()] + [str(good)]
    res = CliRunner().invoke(app, ["predict", "--json", *paths])
    assert res.exit_code == 0, res.output
    records = [json.loads(line) for line in res.output.splitlines() if line.startswith("{")]
    assert [r["image"] for r in records] == paths
    errors = {Path(r["image"]).stem: r["error"] for r in records if "error" in r}
    assert set(errors) == {"empty", "corrupt", "blank", "missing"}
    assert "empty file" in errors["empty"]
    assert "not a decodable image" in errors["corrupt"]
    assert "blank frame" in errors["blank"]
    assert "no such file" in errors["missing"]
    assert records[-1]["width"] > 0 and isinstance(records[-1]["dice"], list)


def test_predict_fails_only_when_every_image_fails(bad_files):
    res = CliRunner().invoke(app, ["predict", str(bad_files["corrupt"])])
    assert res.exit_code == 1
    assert "not a decodable image" in res.output


def test_evaluate_counts_unreadable_images_and_scores_the_rest(tmp_path, bad_files):
    good = sorted(SAMPLES.glob("*.jpg"))[0]
    for sub in ("images", "labels"):
        (tmp_path / "set" / sub).mkdir(parents=True)
    shutil.copy(bad_files["corrupt"], tmp_path / "set/images/bad.jpg")
    (tmp_path / "set/labels/bad.txt").write_text("0 0.5 0.5 0.1 0.1\n")
    shutil.copy(good, tmp_path / "set/images/good.jpg")
    rec = json.loads(good.with_suffix(".json").read_text())
    h, w = rec["height"], rec["width"]
    lines = []
    for d in rec["dice"]:
        x0, y0, x1, y1 = d["box"]
        lines.append(f"{d['face'] - 1} {(x0 + x1) / 2 / w} {(y0 + y1) / 2 / h} "
                     f"{(x1 - x0) / w} {(y1 - y0) / h}")
    (tmp_path / "set/labels/good.txt").write_text("\n".join(lines) + "\n")
    res = CliRunner().invoke(app, ["evaluate", "--json", str(tmp_path / "set")])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert report["unreadable_images"] == 1
    assert report["images"] == 1 and report["labelled"] == len(rec["dice"])


def test_evaluate_refuses_a_folder_that_is_not_one(tmp_path):
    res = CliRunner().invoke(app, ["evaluate", str(tmp_path / "nope")])
    assert res.exit_code != 0


def test_predict_reads_with_the_views_asked_for(built_readers):
    good = str(sorted(SAMPLES.glob("*.jpg"))[0])
    faces = {}
    for views in ("1", "4"):
        res = CliRunner().invoke(app, ["predict", "--json", "--views", views, good])
        assert res.exit_code == 0, res.output
        faces[views] = sorted(d["face"] for d in json.loads(res.output.splitlines()[-1])["dice"])
    assert [c.views for c in built_readers] == [1, 4]
    assert faces["1"] == faces["4"] and len(faces["1"]) == 2
    res = CliRunner().invoke(app, ["predict", "--views", "9", good])
    assert res.exit_code == 2 and "--views" in res.output


def test_predict_and_evaluate_read_as_the_game_named(built_readers, tmp_path):
    # An integrator scores a table's own frames as that table reads them: Craps and High Roll
    # behind detector.thrown.onnx (docs/verdicts.md, session 25, rule 15), Props & Hops
    # behind detector.shaker.onnx, no game behind detector.onnx (models/reader.md, session
    # 37, rule 32); each game with its own reader (reader.thrown.onnx since session 53).
    from dicecall.vision.config import ReaderConfig

    good = str(SAMPLES / "craps_0000004.jpg")
    for game in ("craps", "high-roll-dice", "props-and-hops"):
        res = CliRunner().invoke(app, ["predict", "--json", "--game", game, good])
        assert res.exit_code == 0, res.output
        assert len(json.loads(res.output.splitlines()[-1])["dice"]) == 2
    res = CliRunner().invoke(app, ["predict", "--json", good])
    assert res.exit_code == 0, res.output
    cfg = ReaderConfig()
    assert [c.detector for c in built_readers] == [cfg.thrown_detector, cfg.thrown_detector,
                                                   cfg.shaker_detector, cfg.detector]
    assert [c.reader for c in built_readers] == [cfg.thrown_reader, cfg.thrown_reader,
                                                 cfg.shaker_reader, cfg.reader]
    res = CliRunner().invoke(app, ["evaluate", "--game", "roulette", str(tmp_path)])
    assert res.exit_code == 2 and "roulette" in res.output


def _huge_header_png(path: Path) -> None:
    """A well-formed PNG whose header claims 60000 x 60000 pixels (over OpenCV's 2^30 cap:
    it raises on it, where a corrupt file gives None)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))

    ihdr = struct.pack(">IIBBBBB", 60_000, 60_000, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
                     + chunk(b"IDAT", zlib.compress(b"\x00" * 100)) + chunk(b"IEND", b""))


def test_an_image_opencv_refuses_outright_is_one_error_and_the_batch_goes_on(tmp_path):
    bad = tmp_path / "huge_header.png"
    _huge_header_png(bad)
    good = sorted(SAMPLES.glob("*.jpg"))[0]
    res = CliRunner().invoke(app, ["predict", "--json", str(bad), str(good)])
    assert res.exit_code == 0, res.output
    records = [json.loads(line) for line in res.output.splitlines() if line.startswith("{")]
    assert "not decodable" in records[0]["error"]
    # An error keeps the contract's keys: a scorer reading "dice" finds none.
    assert records[0]["dice"] == [] and records[0]["width"] is None
    assert records[1]["width"] > 0 and records[1]["dice"]


def test_evaluate_names_images_without_a_label_file_and_reads_tiff_and_any_case(tmp_path):
    good = sorted(SAMPLES.glob("*.jpg"))[0]
    rec = json.loads(good.with_suffix(".json").read_text())
    h, w = rec["height"], rec["width"]
    lines = "\n".join(f"{d['face'] - 1} {(d['box'][0] + d['box'][2]) / 2 / w} "
                      f"{(d['box'][1] + d['box'][3]) / 2 / h} "
                      f"{(d['box'][2] - d['box'][0]) / w} {(d['box'][3] - d['box'][1]) / h}"
                      for d in rec["dice"]) + "\n"
    for sub in ("images", "labels"):
        (tmp_path / "set" / sub).mkdir(parents=True)
    frame = cv2.imread(str(good))
    cv2.imwrite(str(tmp_path / "set/images/a.tif"), frame)
    shutil.copy(good, tmp_path / "set/images/B.JPG")
    shutil.copy(good, tmp_path / "set/images/c.jpg")  # no label file: not scored, named
    (tmp_path / "set/labels/a.txt").write_text(lines)
    (tmp_path / "set/labels/B.TXT").write_text(lines)
    res = CliRunner().invoke(app, ["evaluate", "--json", str(tmp_path / "set")])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert report["images"] == 2 and report["labelled"] == 2 * len(rec["dice"])
    assert report["unlabelled"] == ["c.jpg"] and report["false_per_image"] == 0


def test_evaluate_reads_a_file_name_that_is_not_utf8(tmp_path):
    # OpenCV's imread crashed the process (SIGSEGV) on such a name; bytes go through numpy.
    import os

    good = sorted(SAMPLES.glob("*.jpg"))[0]
    for sub in ("images", "labels"):
        (tmp_path / "set" / sub).mkdir(parents=True)
    name = os.fsdecode(b"bad_\xff")
    shutil.copy(good, tmp_path / "set" / "images" / f"{name}.jpg")
    (tmp_path / "set" / "labels" / f"{name}.txt").write_text("")
    res = CliRunner().invoke(app, ["evaluate", "--json", str(tmp_path / "set")])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["images"] == 1


def test_imread_gives_none_for_what_opencv_refuses_and_reads_any_name(tmp_path):
    import os

    from dicecall.vision.images import imread

    bad = tmp_path / "huge.png"
    _huge_header_png(bad)
    assert imread(bad) is None and imread(tmp_path / "missing.png") is None
    odd = tmp_path / os.fsdecode(b"x_\xfe.jpg")
    shutil.copy(sorted(SAMPLES.glob("*.jpg"))[0], odd)
    assert imread(odd).shape == (480, 640, 3)
