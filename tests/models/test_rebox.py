"""Scene folders relabelled with the runtime detector's boxes (models/rebox.py), for training
the flags on crops cut where the runtime cuts them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

FRAMES = Path(__file__).resolve().parent.parent / "data" / "frames"


@pytest.fixture(scope="module")
def reader():
    from dicecall.vision.reader import DiceReader

    return DiceReader()


def _scene(tmp: Path, stem: str) -> Path:
    src = tmp / "src"
    src.mkdir(exist_ok=True)
    for suffix in (".json", ".jpg"):
        shutil.copy(FRAMES / f"{stem}{suffix}", src / f"{stem}{suffix}")
    return src


def test_found_dice_get_the_detectors_box_and_nothing_else_changes(tmp_path, reader):
    from dicecall.models.rebox import rebox_folder
    from dicecall.vision.images import load_image

    src = _scene(tmp_path, "throwbox_0000058")
    counts = rebox_folder(reader, src, tmp_path / "out")
    before = json.loads((src / "throwbox_0000058.json").read_text())
    after = json.loads((tmp_path / "out/throwbox_0000058.json").read_text())
    assert counts == {"scenes": 1, "visible": 5, "reboxed": 5}
    _, boxes, _ = reader.detect(load_image(src / "throwbox_0000058.jpg"))
    for old, new in zip(before["dice"], after["dice"], strict=True):
        assert {k: v for k, v in old.items() if k != "box"} == \
               {k: v for k, v in new.items() if k != "box"}
        # the new box is one of the detector's, on the same die
        assert np.abs(boxes - np.array(new["box"])).max(1).min() < 0.01
        side = max(old["box"][2] - old["box"][0], old["box"][3] - old["box"][1])
        shift = np.hypot(*(np.add(new["box"][:2], new["box"][2:]) / 2
                           - np.add(old["box"][:2], old["box"][2:]) / 2))
        assert shift < 0.5 * side
    assert any(o["box"] != n["box"] for o, n in zip(before["dice"], after["dice"], strict=True))
    assert {k: v for k, v in before.items() if k != "dice"} == \
           {k: v for k, v in after.items() if k != "dice"}
    link = tmp_path / "out/throwbox_0000058.jpg"
    assert link.is_symlink() and link.resolve() == (src / "throwbox_0000058.jpg").resolve()


def test_a_die_the_detector_misses_keeps_its_labelled_box(tmp_path, reader):
    from dicecall.models.rebox import rebox_folder

    src = _scene(tmp_path, "shaker_0000001")
    rec = json.loads((src / "shaker_0000001.json").read_text())
    ghost = {**rec["dice"][0], "box": [1.0, 1.0, 21.0, 21.0]}  # a bare corner of the frame
    rec["dice"].append(ghost)
    (src / "shaker_0000001.json").write_text(json.dumps(rec))
    counts = rebox_folder(reader, src, tmp_path / "out")
    after = json.loads((tmp_path / "out/shaker_0000001.json").read_text())
    assert counts["reboxed"] == counts["visible"] - 1
    assert after["dice"][-1]["box"] == [1.0, 1.0, 21.0, 21.0]


def test_the_training_loader_reads_the_copy_with_its_new_boxes(tmp_path, reader):
    from dicecall.models.data import load_folder
    from dicecall.models.rebox import rebox_folder

    src = _scene(tmp_path, "craps_0000005")
    rebox_folder(reader, src, tmp_path / "out")
    (sample,) = load_folder(tmp_path / "out")
    after = json.loads((tmp_path / "out/craps_0000005.json").read_text())
    assert np.allclose(sample.boxes, [d["box"] for d in after["dice"]], atol=0.01)
    assert sample.image.is_file()


def test_rebox_by_game_takes_that_tables_detector_and_refuses_an_unknown_game(tmp_path):
    """`models rebox --game craps` gives the boxes of detector.thrown.onnx, which Craps reads
    behind; without --game, detector.onnx's; an unknown game is refused."""
    from typer.testing import CliRunner

    from dicecall.cli import app
    from dicecall.vision.config import ReaderConfig, for_table
    from dicecall.vision.images import load_image
    from dicecall.vision.reader import DiceReader

    src = _scene(tmp_path, "craps_0000004")
    boxes = {}
    for game in (None, "craps"):
        out = tmp_path / str(game)
        args = ["models", "rebox", "--data", str(src), "--out", str(out)]
        res = CliRunner().invoke(app, args + ([] if game is None else ["--game", game]))
        assert res.exit_code == 0, res.output
        boxes[game] = np.array([d["box"] for d in json.loads(
            (out / "src" / "craps_0000004.json").read_text())["dice"]])
        _, found, _ = DiceReader(for_table(ReaderConfig(), game)).detect(
            load_image(src / "craps_0000004.jpg"))
        assert all(np.abs(found - b).max(1).min() < 0.01 for b in boxes[game])
    assert not np.array_equal(boxes[None], boxes["craps"])
    res = CliRunner().invoke(app, ["models", "rebox", "--data", str(src), "--out",
                                   str(tmp_path / "x"), "--game", "baccarat"])
    assert res.exit_code != 0 and "baccarat" in res.output
