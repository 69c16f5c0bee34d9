"""`--stage faces`: the face (on its own last stages) and the pip branch fine-tuned on a
frozen reader, its flags, up margin and die-or-not left exactly as they were."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dicecall.models.crops import build_cache, die_size  # noqa: E402
from dicecall.models.data import load_folder  # noqa: E402
from dicecall.models.faces_train import (  # noqa: E402
    REAL_REPEAT,
    SMALL_REPEAT,
    WRONG_COST,
    epoch_order,
    selected,
    with_own_face,
)

FRAMES = Path(__file__).parents[1] / "data" / "frames"
# The reader without stages of its own (reader.onnx has the face's own copy since session 53).
COMMITTED = Path(__file__).parents[2] / "models" / "reader.thrown.onnx"


@pytest.mark.parametrize("stages", [1, 2])
def test_the_face_copy_starts_as_the_reader_it_copies(stages: int) -> None:
    from dicecall.models.onnx_import import reader_from_onnx

    start = reader_from_onnx(COMMITTED)[0]
    own = with_own_face(start, stages)
    assert (own.fb8 is not None) == (stages == 2) and own.fb4 is not None
    crops, geom = torch.rand(4, 3, 64, 64), torch.rand(4, 3)
    with torch.no_grad():
        for a, b in zip(start(crops, geom), own(crops, geom), strict=True):
            assert torch.allclose(a, b, atol=1e-6)


def test_epoch_holds_real_and_small_dice_twice_and_every_other_die_once(toy_yolo: Path) -> None:
    samples = load_folder(FRAMES) + load_folder(toy_yolo)[:2]
    cache = build_cache(samples)
    small = np.concatenate([die_size(s) for s in samples if len(s.faces)]) < 40.0
    assert small.any() and (~small & ~cache.real).any() and cache.real.any()
    counts = np.bincount(epoch_order(cache, small, np.random.default_rng(0)),
                         minlength=len(cache.faces))
    assert (counts[cache.real] == REAL_REPEAT).all()
    assert (counts[small & ~cache.real] == SMALL_REPEAT).all()
    assert (counts[~small & ~cache.real] == 1).all()


def test_the_best_epoch_pays_ten_right_dice_for_one_wrong_one_accepted() -> None:
    base = {"syn_ok": 0.90, "syn_wrong": 0.001, "real_face": 0.95}
    more_right = {**base, "syn_ok": 0.90 + WRONG_COST * 0.001 - 1e-4, "syn_wrong": 0.002}
    assert selected(more_right) < selected(base)
    assert selected({**base, "syn_ok": 0.92}) > selected(base)
    assert selected({**base, "real_face": 0.90}) < selected(base)


def test_face_stages_other_than_one_or_two_are_refused(tmp_path: Path) -> None:
    from dicecall.models.faces_train import train_faces
    from dicecall.models.nets import Reader

    data = load_folder(FRAMES)
    with pytest.raises(ValueError, match="stages 3"):
        train_faces(data, data, COMMITTED, tmp_path, 1, 0, False, stages=3)
    with pytest.raises(ValueError, match="face_stages 3"):
        Reader(face_stages=3)


def test_faces_stage_moves_faces_and_pips_and_leaves_flags_margin_and_die_or_not(
        tmp_path: Path, onnx_and_checkpoint, whole_and_resumed) -> None:
    """On the committed reader: tilt, stacked, die-or-not and up margin stay those of
    reader.thrown.onnx to 1e-4, the face's copy and the pip branch move, the shared stages do not,
    a resumed run equals a whole one, and the exported file reads back with its copy."""
    from dicecall.models.export import READER_OUTPUTS, export_onnx
    from dicecall.models.faces_train import train_faces
    from dicecall.models.nets import Reader
    from dicecall.models.onnx_import import reader_from_onnx
    from dicecall.models.trainloop import load_checkpoint, setup_torch

    setup_torch(1)
    data = load_folder(FRAMES)
    full = whole_and_resumed(train_faces, data, data, COMMITTED, epochs=2, seed=1,
                             batch_size=4, lr=3e-3, stages=2)
    onnx_outs, torch_outs = onnx_and_checkpoint(COMMITTED, tmp_path / "full" / "last.pt")
    for k in (2, 3, 4, 5):
        assert np.abs(onnx_outs[k] - torch_outs[k]).max() < 1e-4, k
    assert np.abs(onnx_outs[0] - torch_outs[0]).max() > 1e-3  # the face moved
    begin = with_own_face(reader_from_onnx(COMMITTED)[0], 2).state_dict()
    for moved in ("fb8.0.0.weight", "fb4.1.0.weight", "face.weight", "pip32.3.weight"):
        assert not torch.equal(full[moved], begin[moved]), moved
    for kept in ("b8.0.0.weight", "b4.1.0.weight", "die.weight", "flags.2.weight"):
        assert torch.equal(full[kept], begin[kept]), kept

    trained = Reader(face_stages=2)
    load_checkpoint(tmp_path / "full" / "last.pt", trained)
    crops, geom = torch.rand(3, 3, 64, 64), torch.rand(3, 3)
    feeds = {"crops": crops[:2].numpy(), "geom": geom[:2].numpy()}
    export_onnx(trained, feeds, tmp_path / "own.onnx", list(READER_OUTPUTS), dynamic=True)
    back, untouched = reader_from_onnx(tmp_path / "own.onnx")
    assert back.fb8 is not None and back.fb4 is not None and untouched == []
    with torch.no_grad():
        for a, b in zip(trained.eval()(crops, geom), back(crops, geom), strict=True):
            assert torch.allclose(a, b, atol=1e-4)


def test_two_colours_gives_pips_and_body_new_colours_that_stay_apart() -> None:
    """White pips on a black die become two other colours, as a gold-on-black or
    red-on-white die is, and stay bright enough apart to be read."""
    from dicecall.models.augment import two_colours

    die = np.zeros((8, 8, 3), np.float32)
    die[2:4, 2:4] = 255.0  # a pip
    rng = np.random.default_rng(0)
    pips, bodies = [], []
    for _ in range(200):
        out = two_colours(die, rng)
        pips.append(out[2, 2])
        bodies.append(out[0, 0])
    pips, bodies = np.array(pips), np.array(bodies)
    apart = np.abs(pips.mean(1) - bodies.mean(1))
    assert apart.min() >= 50 - 1e-3
    # not only white and black: pips of a colour, bodies of a colour
    assert (np.ptp(pips, axis=1) > 60).mean() > 0.5 and (np.ptp(bodies, axis=1) > 60).mean() > 0.5


def test_duotone_is_refused_outside_the_faces_stage(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from dicecall.cli import app

    res = CliRunner().invoke(app, ["models", "train", "--data", str(FRAMES), "--stage",
                                   "flags", "--duotone", "0.3", "--out", str(tmp_path)])
    assert res.exit_code != 0 and "--duotone is for --stage faces or detector" in res.output
