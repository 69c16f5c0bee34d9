"""`dicecall models` refuses bad input before it starts: an output path it cannot write, a
--data folder that is missing or holds no images, a file that is not an ONNX model or a
checkpoint. One line naming the option or file and exit 2, not a traceback after the work
(DESIGN: bad input gets a clear error and loses nothing). No test here trains."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dicecall.cli import app

FRAMES = Path(__file__).parents[2] / "tests" / "data" / "frames"
DETECTOR = Path(__file__).parents[2] / "models" / "detector.onnx"
READER = Path(__file__).parents[2] / "models" / "reader.onnx"
PEER = Path(__file__).parents[3] / "shared" / "peers" / "yolo11n-320-untrained.onnx"

# {f}: a path under a regular file; {a}: the regular file; {d}: an existing folder.
OUT_PATHS = [
    "train --data {data} --out {f} --stage reader --mine-with none",
    "train --data {data} --out {a} --stage reader --mine-with none",
    "export --run {run} --calib {data} --out {f}",
    "quantize --calib {data} --model {det} --out {f}/q.onnx",
    "quantize --calib {data} --model {det} --out {d}",
    "gallery --data {data} --out {f}/g.png",
    "gallery --data {data} --out {d}",
    "rebox --data {data} --out {f}",
    "evaluate --data {data} --failures {f}/fails.json",
]

# {empty}: an empty folder; {nope}: no such folder; {bad}: a file that is not ONNX.
BAD_INPUT = [
    ("train --data {nope} --out {out}", "--data", "no such folder"),
    ("train --data {empty} --out {out}", "--data", "neither a YOLO folder"),
    ("train --data {noimages} --out {out}", "--data", "holds no images"),
    ("train --data {data} --valid {empty} --out {out}", "--valid", "neither a YOLO"),
    ("train --data {data} --init {bad} --stage flags --out {out}", "--init", "not an ONNX"),
    ("train --data {data} --mine-with {bad} --out {out}", "--mine-with", "not an ONNX"),
    ("export --run {run} --calib {empty} --out {out}", "--calib", "neither a YOLO"),
    ("quantize --calib {nope} --out {out}/q.onnx", "--calib", "no such folder"),
    ("quantize --calib {data} --model {bad} --out {out}/q.onnx", "--model", "not an ONNX"),
    ("quantize --calib {data} --detector {bad} --out {out}/q.onnx", "--detector",
     "not an ONNX"),
    ("gallery --data {nope} --out {out}/g.png", "--data", "does not exist"),
    ("rebox --data {nope} --out {out}", "--data", "no such folder"),
    ("rebox --data {empty} --out {out}", "--data", "holds no scene records"),
    ("rebox --data {data} --detector {bad} --out {out}", "--detector", "not an ONNX"),
    ("evaluate --data {empty}", "--data", "neither a YOLO"),
    ("sweep --data {nope}", "--data", "no such folder"),
    # Read by onnxruntime or scored only after the --data folders were (a traceback then).
    ("evaluate --data {data} --crops {nope}", "--crops", "no such folder"),
    ("evaluate --data {data} --crops {empty}", "--crops", "no crops in 1/ to 6/"),
    ("evaluate --data {data} --detector {bad}", "--detector", "not an ONNX"),
    ("evaluate --data {data} --detector none", "--detector", "no such file"),
    ("evaluate --data {data} --reader {nope}.onnx", "--reader", "no such file"),
    ("sweep --data {data} --detector {bad}", "--detector", "not an ONNX"),
    ("sweep --data {data} --reader {bad}", "--reader", "not an ONNX"),
    ("bench --peer {bad}", "--peer", "not an ONNX"),
    ("bench --peer {nope}.onnx", "--peer", "no such file"),
    ("bench --peer {det} --detector {bad}", "--detector", "not an ONNX"),
    ("bench --peer {det} --reader {bad}", "--reader", "not an ONNX"),
    # A model of the other kind: onnxruntime's "Required inputs ... are missing" after the
    # work began, once.
    ("evaluate --data {data} --detector {rdr}", "--detector", "not a detector model"),
    ("evaluate --data {data} --reader {det}", "--reader", "not a reader model"),
    ("sweep --data {data} --reader {det}", "--reader", "not a reader model"),
    ("bench --peer {det} --detector {rdr}", "--detector", "not a detector model"),
    ("quantize --calib {data} --detector {rdr} --out {out}/q.onnx", "--detector",
     "not a detector model"),
    ("train --data {data} --mine-with {rdr} --out {out}", "--mine-with",
     "not a detector model"),
    ("train --data {data} --screen-with {det} --out {out}", "--screen-with",
     "not a reader model"),
    ("rebox --data {data} --detector {rdr} --out {out}", "--detector", "not a detector model"),
]


@pytest.fixture
def paths(tmp_path) -> dict[str, Path]:
    (tmp_path / "afile").write_text("not a folder")
    (tmp_path / "adir").mkdir()
    (tmp_path / "empty").mkdir()
    (tmp_path / "noimages" / "images").mkdir(parents=True)
    (tmp_path / "noimages" / "labels").mkdir()
    (tmp_path / "bad.onnx").write_bytes(b"not an onnx model")
    (tmp_path / "run" / "detector").mkdir(parents=True)
    (tmp_path / "run" / "detector" / "best.pt").write_bytes(b"not a checkpoint")
    return {"f": tmp_path / "afile" / "sub", "a": tmp_path / "afile", "d": tmp_path / "adir",
            "data": FRAMES, "run": tmp_path / "run", "det": DETECTOR, "rdr": READER,
            "empty": tmp_path / "empty", "nope": tmp_path / "nope",
            "noimages": tmp_path / "noimages", "bad": tmp_path / "bad.onnx",
            "out": tmp_path / "out"}


def _invoke(command: str, paths: dict[str, Path]):
    out = CliRunner().invoke(app, ["models", *command.format(**paths).split()])
    return out, re.sub(r"[\s│╭╮╰╯─]+", " ", out.output)  # unwrap Typer's error box


@pytest.mark.parametrize("command", OUT_PATHS)
def test_an_output_path_that_cannot_be_written_is_a_bad_parameter(paths, command):
    out, text = _invoke(command, paths)
    assert out.exit_code == 2, (out.exit_code, out.output, out.exception)
    assert "Traceback" not in text and ("afile" in text or "adir" in text), text
    assert "is a file, not a folder" in text or "is a folder, not a file" in text, text


@pytest.mark.parametrize(("command", "option", "said"), BAD_INPUT)
def test_bad_input_is_one_line_naming_the_option(paths, command, option, said):
    out, text = _invoke(command, paths)
    assert out.exit_code == 2, (out.exit_code, out.output, out.exception)
    assert "Traceback" not in text and option in text and said in text, text
    assert not paths["out"].exists()  # refused before anything was begun


def test_gallery_of_an_empty_folder_is_one_line(paths):
    out, _ = _invoke("gallery --data {empty} --out {out}/g.png", paths)
    assert out.exit_code == 2 and out.output.startswith("error: "), (out.output, out.exception)
    assert len(out.output.strip().splitlines()) == 1 and "not a YOLO folder" in out.output
    assert not paths["out"].exists()


def test_train_refuses_a_folder_of_no_scenes_before_it_begins_a_run(paths, tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "README.json").write_text('{"about": "not a scene"}')
    out, _ = _invoke(f"train --data {notes} --out {{out}} --mine-with none", paths)
    assert out.exit_code == 2 and "no labelled images" in out.output, out.output
    assert not paths["out"].exists()


def test_export_refuses_a_bad_checkpoint_or_detector_and_writes_nothing(paths, tmp_path):
    import torch

    out, text = _invoke("export --run {run} --calib {data} --out {out}", paths)
    assert out.exit_code == 2 and "not a checkpoint" in text and "best.pt" in text, text
    assert not paths["out"].exists()
    # A reader-only run is calibrated behind the detector already in --out: a broken one
    # is refused before the reader's files are written there.
    run = tmp_path / "readerrun"
    (run / "reader").mkdir(parents=True)
    torch.save({"model": {}, "epoch": 1, "best": 0.0}, run / "reader" / "best.pt")
    paths["out"].mkdir()
    (paths["out"] / "detector.onnx").write_bytes(b"cut short")
    out, text = _invoke(f"export --run {run} --calib {{data}} --out {{out}}", paths)
    assert out.exit_code == 2 and "detector.onnx is not an ONNX model" in text, text
    assert sorted(p.name for p in paths["out"].iterdir()) == ["detector.onnx"]


@pytest.mark.skipif(not PEER.is_file(), reason="../shared/peers is not beside the repository")
def test_quantize_refuses_a_model_that_is_neither_detector_nor_reader(paths):
    paths["peer"] = PEER
    out, text = _invoke("quantize --calib {data} --model {peer} --out {out}/q.onnx", paths)
    assert out.exit_code == 2 and "--model" in text, (out.output, out.exception)
    assert "not a detector or reader model" in text and "'image' or 'crops'" in text, text
    assert not (paths["out"] / "q.onnx").exists()
