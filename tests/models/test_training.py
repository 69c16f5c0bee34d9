"""A tiny training run is reproducible from the seed, and resumes (needs torch)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dicecall.models.data import load_folder  # noqa: E402
from dicecall.models.det_train import train_detector  # noqa: E402
from dicecall.models.negatives import mine  # noqa: E402
from dicecall.models.read_train import train_reader  # noqa: E402
from dicecall.models.trainloop import setup_torch  # noqa: E402


def _weights(path: Path) -> dict:
    return torch.load(path, map_location="cpu", weights_only=False)["model"]


def _same(a: dict, b: dict) -> bool:
    return all(torch.equal(a[k], b[k]) for k in a)


def test_detector_run_is_reproducible(toy_yolo: Path, tmp_path: Path) -> None:
    setup_torch(1)
    data = load_folder(toy_yolo)
    for run in ("a", "b"):
        train_detector(data, data[:1], tmp_path / run, epochs=1, seed=3, resume=False,
                       batch_size=2)
    assert _same(_weights(tmp_path / "a" / "last.pt"), _weights(tmp_path / "b" / "last.pt"))
    train_detector(data, data[:1], tmp_path / "c", epochs=1, seed=4, resume=False, batch_size=2)
    assert not _same(_weights(tmp_path / "a" / "last.pt"), _weights(tmp_path / "c" / "last.pt"))


def test_the_detector_cache_keeps_files_encoded_and_gives_their_exact_pixels(
        toy_yolo: Path, tmp_path: Path) -> None:
    """Two runs side by side ran out of memory with every scene kept decoded (session 31);
    the cache keeps the file's bytes and must give the pixels training saw before."""
    from dataclasses import replace

    import cv2

    from dicecall.models.data import read_rgb
    from dicecall.models.det_train import MAX_SIDE, cache_images, cached_rgb

    data = load_folder(toy_yolo)
    big = tmp_path / "big.jpg"
    cv2.imwrite(str(big), cv2.resize(cv2.imread(str(data[0].image)), (2 * MAX_SIDE, MAX_SIDE)))
    cache = cache_images([*data, replace(data[0], image=big)])
    for s, (img, boxes, _) in zip(data, cache[:-1], strict=True):
        assert img.ndim == 1 and img.nbytes == s.image.stat().st_size
        assert np.array_equal(cached_rgb(img), read_rgb(s.image))
        assert np.array_equal(boxes, s.boxes)
    img, boxes, _ = cache[-1]
    assert img.shape == (MAX_SIDE // 2, MAX_SIDE, 3)
    assert np.array_equal(cached_rgb(img), img)
    assert np.allclose(boxes, data[0].boxes / 2)


def test_reader_resume_equals_uninterrupted_run(toy_yolo: Path, tmp_path: Path) -> None:
    setup_torch(1)
    data = load_folder(toy_yolo)
    # Random places only (a detector that finds nothing), so the die-or-not head trains too.
    negs = mine(data, lambda frame: np.zeros((0, 5), np.float32), seed=5)
    assert sum(map(len, negs)) > 0
    kw = {"epochs": 2, "seed": 5, "batch_size": 4, "negatives": (negs, negs)}
    train_reader(data, data, tmp_path / "full", resume=False, **kw)
    train_reader(data, data, tmp_path / "part", resume=False, stop_after=1, **kw)
    train_reader(data, data, tmp_path / "part", resume=True, **kw)
    assert _same(_weights(tmp_path / "full" / "last.pt"), _weights(tmp_path / "part" / "last.pt"))


def test_train_command_gives_the_reader_negatives_unless_told_not_to(toy_yolo: Path,
                                                                     tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from dicecall.cli import app

    def negatives(out: Path, *extra: str) -> int:
        args = ["models", "train", "--data", str(toy_yolo), "--valid", str(toy_yolo),
                "--stage", "reader", "--reader-epochs", "1", "--threads", "1",
                "--out", str(out), *extra]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        log = [json.loads(r) for r in (out / "reader" / "log.jsonl").read_text().splitlines()]
        return next(r["negatives"] for r in log if r.get("event") == "cache")

    assert negatives(tmp_path / "default") > 0
    assert negatives(tmp_path / "none", "--mine-with", "none") == 0


def test_train_command_screens_negatives_with_the_reader_it_is_given(
        toy_yolo: Path, tmp_path: Path, monkeypatch) -> None:
    """The reader that screens mined places is part of the recipe (models/reader.md): a
    retrain after a new reader is committed must be able to name the one used before."""
    from typer.testing import CliRunner

    import dicecall.models.negatives as negatives
    from dicecall.cli import app

    used: list[Path] = []
    real = negatives.looks_like_d6

    def spy(path):
        used.append(Path(path))
        return real(path)

    monkeypatch.setattr(negatives, "looks_like_d6", spy)
    older = tmp_path / "older-reader.onnx"
    older.write_bytes((Path(negatives.__file__).parent / "reader.onnx").read_bytes())
    args = ["models", "train", "--data", str(toy_yolo), "--valid", str(toy_yolo), "--stage",
            "reader", "--reader-epochs", "1", "--threads", "1"]
    assert CliRunner().invoke(app, [*args, "--out", str(tmp_path / "a"), "--screen-with",
                                    str(older)]).exit_code == 0
    assert CliRunner().invoke(app, [*args, "--out", str(tmp_path / "b")]).exit_code == 0
    assert used == [older, Path(negatives.__file__).parent / "reader.onnx"]


def test_recipe_counts_pips_as_the_committed_reader_was_trained():
    """The negatives' screen and the best-epoch metric keep the pip count the committed
    reader was trained with (0.5 within 0.45 die sides), whatever the runtime's decode: a
    peak of 0.45 at 0.47 die sides counts at the runtime (0.4 / 0.5), not in the recipe."""
    from dicecall.models.evaluate import count_pips, recipe_count_pips

    heat = np.zeros((1, 1, 32, 32), np.float32)
    side = 32 / 1.5
    heat[0, 0, 15, 15] = 0.9  # the die's one pip, at the centre
    heat[0, 0, 15, int(16 + 0.47 * side)] = 0.45  # a weak peak near the die's edge
    assert recipe_count_pips(heat).tolist() == [1]
    assert count_pips(heat).tolist() == [2]


def test_detector_fine_tune_starts_from_the_committed_detector(toy_yolo: Path,
                                                               tmp_path: Path) -> None:
    """`--stage detector --init`: epoch 0 is the committed detector itself, scored as such,
    and training keeps the folded batch norms in eval mode (batch statistics would undo the
    folding and the start would be lost)."""
    import json

    from dicecall.models.det_train import FINETUNE_LR
    from dicecall.models.onnx_import import detector_from_onnx
    from dicecall.vision.config import MODELS_DIR

    setup_torch(1)
    data = load_folder(toy_yolo)
    committed = MODELS_DIR / "detector.onnx"
    out = tmp_path / "ft"
    train_detector(data, data[:1], out, epochs=1, seed=3, resume=False, batch_size=2,
                   init=committed, lr=FINETUNE_LR)
    start = torch.load(out / "best.pt", map_location="cpu", weights_only=False)
    log = [json.loads(r) for r in (out / "log.jsonl").read_text().splitlines()]
    scores = {r["epoch"]: r["score"] for r in log if r.get("event") == "valid"}
    assert sorted(scores) == [0, 1]
    if start["epoch"] == 0:
        assert _same(start["model"], detector_from_onnx(committed)[0].state_dict())
    assert start["best"] == max(scores.values())
    tuned = _weights(out / "last.pt")
    bn = [k for k in tuned if k.endswith("running_var")]
    reference = detector_from_onnx(committed)[0].state_dict()
    assert bn and all(torch.equal(tuned[k], reference[k]) for k in bn)
    assert not _same(tuned, reference)


def test_export_takes_the_last_checkpoint_when_asked(toy_yolo: Path, tmp_path: Path) -> None:
    """`models export --checkpoint last` exports the schedule's end, not the best epoch, and
    says which epoch it took; the exported detector computes what that checkpoint does."""
    import onnxruntime as ort

    from dicecall.models.export import export_all
    from dicecall.models.nets import Detector
    from dicecall.models.trainloop import load_checkpoint

    setup_torch(1)
    data = load_folder(toy_yolo)
    run = tmp_path / "run"
    train_detector(data, data[:1], run / "detector", epochs=2, seed=3, resume=False,
                   batch_size=2)
    report = export_all(run, tmp_path / "out", [toy_yolo], checkpoint="last")
    assert report["detector_epoch"] == 2
    model = Detector()
    load_checkpoint(run / "detector" / "last.pt", model)
    x = np.random.default_rng(0).random((1, 3, 320, 320), np.float32)
    with torch.no_grad():
        want = model.eval()(torch.from_numpy(x))[0].numpy()
    session = ort.InferenceSession(str(tmp_path / "out" / "detector.onnx"))
    got = session.run(None, {"image": x})[0]
    assert np.abs(got - want).max() < 1e-4
    with pytest.raises(ValueError, match="best or last"):
        export_all(run, tmp_path / "out", [toy_yolo], checkpoint="first")


def test_a_wider_detector_trains_exports_and_imports_at_its_width(toy_yolo: Path,
                                                                   tmp_path: Path) -> None:
    """`models train --det-width 32`: the export and a later fine-tune's import build the
    detector as wide as its weights (models/detector.md, session 33), and the file keeps the
    committed detector's inputs and outputs."""
    import onnxruntime as ort

    from dicecall.models.export import export_all
    from dicecall.models.onnx_import import detector_from_onnx

    setup_torch(1)
    data = load_folder(toy_yolo)
    run = tmp_path / "run"
    train_detector(data, data[:1], run / "detector", epochs=1, seed=3, resume=False,
                   batch_size=2, width=32)
    assert _weights(run / "detector" / "last.pt")["stem.1.0.weight"].shape[0] == 32
    export_all(run, tmp_path / "out", [toy_yolo], checkpoint="last")
    path = tmp_path / "out" / "detector.onnx"
    model, untouched = detector_from_onnx(path)
    assert not untouched and model.head.in_channels == 32
    x = np.random.default_rng(0).random((1, 3, 320, 320), np.float32)
    session = ort.InferenceSession(str(path))
    committed = ort.InferenceSession(str(Path(__file__).parents[2] / "models" / "detector.onnx"))
    assert [(o.name, o.shape) for o in session.get_outputs()] == \
        [(o.name, o.shape) for o in committed.get_outputs()]
    with torch.no_grad():
        want = model.eval()(torch.from_numpy(x))[0].numpy()
    assert np.abs(session.run(None, {"image": x})[0] - want).max() < 1e-4
    with pytest.raises(ValueError, match="not a detector"):
        detector_from_onnx(Path(__file__).parents[2] / "models" / "reader.onnx")


def test_a_fine_tune_refuses_a_width_of_its_own(toy_yolo: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from dicecall.cli import app

    res = CliRunner().invoke(app, ["models", "train", "--data", str(toy_yolo), "--stage",
                                   "detector", "--init",
                                   str(Path(__file__).parents[2] / "models" / "detector.onnx"),
                                   "--det-width", "32", "--out", str(tmp_path)])
    assert res.exit_code != 0 and "a fine-tune keeps the width" in res.output


def test_a_run_folder_holds_one_run_and_resumes_only_with_its_recipe(toy_yolo: Path,
                                                                     tmp_path: Path) -> None:
    """`--resume` with other data, seed or epochs trained a different run from the middle of
    this one (the order, augmentation and schedule come from them), and fewer epochs than
    done was a silent no-op; a new run into a begun folder overwrote it."""
    import json

    from typer.testing import CliRunner

    from dicecall.cli import app

    out = tmp_path / "run"
    args = ["models", "train", "--data", str(toy_yolo), "--valid", str(toy_yolo), "--stage",
            "detector", "--epochs", "1", "--threads", "1", "--seed", "3", "--out", str(out)]
    assert CliRunner().invoke(app, args).exit_code == 0
    assert json.loads((out / "detector" / "recipe.json").read_text())["seed"] == 3
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 2 and "already holds a run" in again.output
    other = CliRunner().invoke(app, [*args[:-4], "--seed", "4", "--out", str(out),
                                     "--resume"])
    assert other.exit_code == 2 and "seed: 3 then, 4 now" in other.output
    longer = CliRunner().invoke(app, [*args, "--resume", "--epochs", "2"])
    assert longer.exit_code == 2 and "epochs: 1 then, 2 now" in longer.output
    same = CliRunner().invoke(app, [*args, "--resume"])
    assert same.exit_code == 0 and "event=finished epochs=1" in same.output
    # The other stage of the same run is a run of its own: it may start there.
    reader = [*args[:7], "reader", "--reader-epochs", "1", "--mine-with", "none",
              *args[10:]]
    assert CliRunner().invoke(app, reader).exit_code == 0


def test_export_writes_a_card_of_its_own_files_and_a_missing_run_is_a_plain_error(
        toy_yolo: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from dicecall.cli import app

    run, out = tmp_path / "run", tmp_path / "out"
    out.mkdir()
    (out / "older.onnx").write_bytes(b"not this export's")
    train = ["models", "train", "--data", str(toy_yolo), "--valid", str(toy_yolo), "--stage",
             "detector", "--epochs", "1", "--threads", "1", "--out", str(run)]
    assert CliRunner().invoke(app, train).exit_code == 0
    res = CliRunner().invoke(app, ["models", "export", "--run", str(run), "--calib",
                                   str(toy_yolo), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "older.onnx" not in res.output
    card = (out / "detector.card.md").read_text()
    import hashlib

    for name in ("detector.onnx", "detector.int8.onnx"):
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() in card
    assert '"epochs": 1' in card and "`image` float32 [1, 3, 320, 320]" in card
    missing = CliRunner().invoke(app, ["models", "export", "--run", str(tmp_path / "nope"),
                                       "--calib", str(toy_yolo), "--out", str(out)])
    assert missing.exit_code == 2 and "Traceback" not in missing.output
    assert "no " in missing.output and "best.pt" in missing.output
    no_out = CliRunner().invoke(app, ["models", "export", "--run", str(run), "--calib",
                                      str(toy_yolo)])
    assert no_out.exit_code == 2 and "--out" in no_out.output
