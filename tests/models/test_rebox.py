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


def _wider_boxes(src: Path, dst: Path, k: float) -> Path:
    """A copy of the detector `src` whose boxes are `k` times as wide and tall: a candidate
    whose boxes differ from the committed detector's where they sit, as a retrained one's do."""
    import onnx
    from onnx import helper, numpy_helper

    m = onnx.load(str(src))
    for node in m.graph.node:
        node.output[:] = ["wh_raw" if o == "wh" else o for o in node.output]
    m.graph.initializer.append(numpy_helper.from_array(np.array(k, np.float32), "wh_k"))
    m.graph.node.append(helper.make_node("Mul", ["wh_raw", "wh_k"], ["wh"]))
    onnx.save(m, str(dst))
    return dst


def test_rebox_with_a_candidate_detector_gives_its_boxes_and_refuses_two_sources(tmp_path):
    """`models rebox --detector FILE`: the boxes of that file, not the committed detector's,
    so the flags can be fine-tuned behind a candidate before it replaces detector.onnx
    (models/detector.md, session 34). With --game, or a file that is not there: refused."""
    from typer.testing import CliRunner

    from dicecall.cli import app
    from dicecall.vision.config import MODELS_DIR

    src = _scene(tmp_path, "craps_0000004")
    wide = _wider_boxes(MODELS_DIR / "detector.onnx", tmp_path / "wide.onnx", 1.3)
    boxes = {}
    for name, extra in (("committed", []), ("wide", ["--detector", str(wide)])):
        res = CliRunner().invoke(app, ["models", "rebox", "--data", str(src), "--out",
                                       str(tmp_path / name), *extra])
        assert res.exit_code == 0, res.output
        boxes[name] = np.array([d["box"] for d in json.loads(
            (tmp_path / name / "src" / "craps_0000004.json").read_text())["dice"]])
    side = {k: np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]) for k, b in boxes.items()}
    # each die's box from the candidate is the committed one's made 1.3 times as large
    assert np.allclose(side["wide"] / side["committed"], 1.3, atol=0.02)
    for extra, said in ((["--detector", str(wide), "--game", "craps"], "not both"),
                        (["--detector", str(tmp_path / "none.onnx")], "no such")):
        res = CliRunner().invoke(app, ["models", "rebox", "--data", str(src), "--out",
                                       str(tmp_path / "x"), *extra])
        assert res.exit_code != 0 and said in res.output, res.output
