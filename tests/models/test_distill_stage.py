"""`--stage distill`: a slim reader (models/slim.py) with the reader's contract, trained to
give a finished reader's outputs, scored by how often it reads as that reader does at the
verdict's lines."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dicecall.models.data import load_folder  # noqa: E402
from dicecall.models.distill_train import agreement, distill_loss, selected  # noqa: E402
from dicecall.models.slim import SlimReader  # noqa: E402

FRAMES = Path(__file__).parents[1] / "data" / "frames"
COMMITTED = Path(__file__).parents[2] / "models" / "reader.onnx"


def _outputs(face: list[int], tilt: float = -5.0, n: int | None = None) -> list[np.ndarray]:
    """Reader outputs for dice read as `face` at p ~1, pips agreeing, flat, not stacked."""
    n = len(face) if n is None else n
    logits = np.full((n, 6), -10.0, np.float32)
    heat = np.zeros((n, 1, 32, 32), np.float32)
    spots = {1: [(16, 16)], 2: [(12, 12), (20, 20)], 3: [(12, 12), (16, 16), (20, 20)]}
    for i, f in enumerate(face):
        logits[i, f - 1] = 10.0
        for y, x in spots[f]:
            heat[i, 0, y, x] = 0.9
    col = np.full((n, 1), tilt, np.float32)
    return [logits, heat, col, np.full((n, 1), -5.0, np.float32),
            np.full((n, 1), 5.0, np.float32), np.full((n, 1), 5.0, np.float32)]


def test_the_slim_reader_keeps_the_contract_and_costs_a_seventh() -> None:
    from dicecall.models.nets import Reader, count_macs, reader_for

    slim = SlimReader().eval()
    outs = slim(torch.rand(3, 3, 64, 64), torch.rand(3, 3))
    assert [tuple(o.shape) for o in outs] == [(3, 6), (3, 1, 32, 32), (3, 1), (3, 1), (3, 1),
                                              (3, 1)]
    heat = outs[1].detach()  # the map is a sigmoid
    assert float(heat.min()) >= 0.0 and float(heat.max()) <= 1.0
    assert isinstance(reader_for(slim.state_dict()), SlimReader)
    assert isinstance(reader_for(Reader().state_dict()), Reader)
    shapes = ((1, 3, 64, 64), (1, 3))
    assert count_macs(slim, *shapes) * 7 < count_macs(Reader(), *shapes)


def test_agreement_counts_readings_taken_at_the_lines() -> None:
    teacher = _outputs([1, 2, 3])
    same = agreement(teacher, teacher, np.array([1, 2, 3]))
    assert all(same[k] == 1.0 for k in ("face", "accept", "pips", "tilt0.05", "stacked", "die"))
    assert same["margin_mae"] == 0.0 and same["right_student"] == 1.0
    # one die's tilt over the thrown games' 0.05 line (logit -2.9), the others under it
    leaning = _outputs([1, 2, 3])
    leaning[2][1, 0] = -2.0
    a = agreement(leaning, teacher, np.array([1, 2, 3]))
    assert a["tilt0.05"] == pytest.approx(2 / 3) and a["tilt0.015"] == pytest.approx(2 / 3)
    assert selected(a) < selected(same)
    # a face read differently, and unsure: neither the face nor the acceptance agrees
    unsure = _outputs([1, 2, 3])
    unsure[0][2] = 0.0
    b = agreement(unsure, teacher, np.array([1, 2, 3]))
    assert b["accept"] == pytest.approx(2 / 3) and b["right_student"] < 1.0
    # a negative (face 0) counts on the die-or-not head only
    c = agreement(_outputs([1, 2]), _outputs([1, 3]), np.array([1, 0]))
    assert c["face"] == 1.0 and c["die"] == 1.0


def test_distillation_moves_the_student_towards_the_teacher() -> None:
    """A few steps on one batch of the committed sample frames' dice halve the loss."""
    from dicecall.models.onnx_import import whole_reader_from_onnx
    from dicecall.models.read_train import contract_crops
    from dicecall.models.trainloop import seed_everything, setup_torch

    setup_torch(1)
    seed_everything(3)
    teacher = whole_reader_from_onnx(COMMITTED)
    crops, geom, _, _ = contract_crops(load_folder(FRAMES))
    batch = {"crops": torch.from_numpy(crops[:16]), "geom": torch.from_numpy(geom[:16])}
    student = SlimReader()
    opt = torch.optim.AdamW(student.parameters(), lr=3e-3)
    first = distill_loss(student, teacher, batch)[0].item()
    for _ in range(40):
        loss, parts = distill_loss(student, teacher, batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss.item() < 0.5 * first, (first, loss.item(), parts)
    assert set(parts) == {"face", "pip", "tilt", "stacked", "die", "margin"}


def test_a_resumed_distillation_ends_where_a_whole_one_does_and_exports(
        tmp_path: Path, whole_and_resumed, exports_as_checkpoint) -> None:
    from dicecall.models.distill_train import train_distill
    from dicecall.models.trainloop import setup_torch

    setup_torch(1)
    data = load_folder(FRAMES)
    whole_and_resumed(train_distill, data, data, COMMITTED, epochs=2, seed=1, batch_size=8)
    exports_as_checkpoint(tmp_path / "full" / "last.pt", tmp_path / "slim.onnx")
    # the runtime takes it where it takes the committed reader: same names, shapes, order
    import onnxruntime as ort

    slim, committed = (ort.InferenceSession(str(p)) for p in (tmp_path / "slim.onnx", COMMITTED))
    assert [(i.name, i.shape[1:]) for i in slim.get_inputs()] == \
        [(i.name, i.shape[1:]) for i in committed.get_inputs()]
    assert [(o.name, o.shape[1:]) for o in slim.get_outputs()] == \
        [(o.name, o.shape[1:]) for o in committed.get_outputs()]
    log = (tmp_path / "full" / "log.jsonl").read_text()
    assert '"event": "valid"' in log and "right_teacher" in log


def test_the_distill_stage_is_offered_and_others_refused(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from dicecall.cli import app

    res = CliRunner().invoke(app, ["models", "train", "--data", str(FRAMES), "--stage",
                                   "shrink", "--out", str(tmp_path)])
    said = " ".join(res.output.replace("│", " ").split())  # rich wraps the message in a box
    assert res.exit_code != 0 and "faces or distill" in said
