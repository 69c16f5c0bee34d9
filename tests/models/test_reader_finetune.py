"""`--stage reader --init ONNX`: a finished reader fine-tuned whole, its folded batch norms
left as exported, the start scored as epoch 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from dicecall.models.data import load_folder  # noqa: E402

FRAMES = Path(__file__).parents[1] / "data" / "frames"
COMMITTED = Path(__file__).parents[2] / "models" / "reader.onnx"


def test_fine_tune_moves_every_layer_keeps_folded_norms_and_resumes_exactly(
        tmp_path: Path, toy_yolo: Path, whole_and_resumed) -> None:
    from dicecall.models.onnx_import import reader_from_onnx
    from dicecall.models.read_train import train_reader
    from dicecall.models.trainloop import setup_torch

    setup_torch(1)
    data = load_folder(FRAMES) + load_folder(toy_yolo)
    full = whole_and_resumed(train_reader, data, data, epochs=2, seed=1, batch_size=4,
                             lr=1e-3, init=COMMITTED)
    start = reader_from_onnx(COMMITTED)[0].state_dict()
    for name in ("b32.0.0.weight", "b16.0.0.weight", "face.weight", "flags.2.weight",
                 "pip32.3.weight"):
        assert not torch.equal(full[name], start[name]), name
    # eval mode throughout: the pass-through norms of the folded layers keep their statistics
    norms = [k for k in start if k.endswith(("running_mean", "running_var"))]
    assert norms and all(torch.equal(full[k], start[k]) for k in norms)
    log = [json.loads(line) for line in (tmp_path / "full" / "log.jsonl").read_text().splitlines()]
    assert [e["epoch"] for e in log if e.get("event") == "valid"] == [0, 1, 2]

