"""The reader learns the up margin (void, 623a.9(b)) from the synthetic labels only."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dicecall.models.crops import build_cache  # noqa: E402
from dicecall.models.data import load_folder  # noqa: E402
from dicecall.models.nets import Reader  # noqa: E402
from dicecall.models.read_train import make_batch, reader_loss  # noqa: E402

FRAMES = Path(__file__).parents[1] / "data" / "frames"


def test_synthetic_dice_carry_their_margin_real_dice_none(toy_yolo: Path) -> None:
    synth, real = load_folder(FRAMES), load_folder(toy_yolo)
    margins = np.concatenate([s.margin for s in synth])
    assert len(margins) and not np.isnan(margins).any() and margins.max() <= 90.0
    cache = build_cache(synth[:2] + real[:2])
    assert np.isnan(cache.margin[~cache.real]).sum() == 0
    assert np.isnan(cache.margin[cache.real]).all()


def test_margin_loss_is_masked_where_unknown_and_learnt_where_known(toy_yolo: Path) -> None:
    torch.manual_seed(0)
    cache = build_cache(load_folder(FRAMES)[:2] + load_folder(toy_yolo)[:2])
    batch = make_batch(cache, np.arange(len(cache.faces)), np.random.default_rng(0))
    known = ~torch.isnan(batch["margin"])
    assert 0 < known.sum() < len(known)
    assert ((batch["margin"][known] >= 0) & (batch["margin"][known] <= 1)).all()
    model = Reader()
    _, parts = reader_loss(model, batch)
    assert parts["margin"] > 0
    batch["margin"][:] = float("nan")  # nothing known: no margin loss, no gradient from it
    _, parts = reader_loss(model, batch)
    assert parts["margin"] == 0.0


def test_margin_stage_trains_the_branch_and_leaves_every_other_output(
        tmp_path: Path, onnx_and_checkpoint, whole_and_resumed) -> None:
    """`--stage margin` on the committed reader: the face, pips, flags and die-or-not outputs
    stay those of reader.onnx, the margin branch moves, and a resumed run equals a whole one."""
    from dicecall.models.margin_train import train_margin
    from dicecall.models.onnx_import import reader_from_onnx
    from dicecall.models.trainloop import seed_everything, setup_torch

    setup_torch(1)
    committed = Path(__file__).parents[2] / "models" / "reader.onnx"
    data = load_folder(FRAMES)
    full = whole_and_resumed(train_margin, data, data, committed, epochs=2, seed=1,
                             batch_size=4)

    onnx_outs, torch_outs = onnx_and_checkpoint(committed, tmp_path / "full" / "last.pt")
    for a, b in zip(onnx_outs[:5], torch_outs[:5], strict=True):
        assert np.abs(a - b).max() < 1e-4
    seed_everything(1)  # as train_margin starts the branch
    start = Reader().state_dict()
    assert not torch.equal(full["margin.2.weight"], start["margin.2.weight"])
    assert torch.equal(full["b16.0.0.weight"], reader_from_onnx(committed)[0].state_dict()[
        "b16.0.0.weight"])


def test_margin_loss_trains_no_layer_the_other_outputs_use() -> None:
    """The branch reads the shared features detached: training it in the reader recipe
    leaves the face, pips and flags as they train without it (models/reader.md)."""
    torch.manual_seed(3)
    model = Reader()
    model(torch.rand(2, 3, 64, 64), torch.zeros(2, 3))[5].sum().backward()
    assert model.b16[0][0].weight.grad is None and model.flag8[0][0].weight.grad is None
    assert model.margin8[0][0].weight.grad is not None


def test_a_file_that_is_not_a_reader_is_refused_by_name() -> None:
    from dicecall.models.onnx_import import reader_from_onnx

    with pytest.raises(ValueError, match=r"stem\.0\.0/Conv: matches no module"):
        reader_from_onnx(Path(__file__).parents[2] / "models" / "detector.onnx")
