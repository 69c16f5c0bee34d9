"""`--stage distill --student pruned`: a narrower reader cut from the committed one
(models/prune.py), with the reader's contract, starting where the teacher is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dicecall.models.data import load_folder  # noqa: E402

FRAMES = Path(__file__).parents[1] / "data" / "frames"
# The reader without stages of its own (reader.onnx has the face's own copy since session 53).
COMMITTED = Path(__file__).parents[2] / "models" / "reader.thrown.onnx"


@pytest.fixture(scope="module")
def teacher_and_crops():
    from dicecall.models.onnx_import import whole_reader_from_onnx
    from dicecall.models.read_train import contract_crops

    crops, geom, faces, _ = contract_crops(load_folder(FRAMES))
    return (whole_reader_from_onnx(COMMITTED), torch.from_numpy(crops), torch.from_numpy(geom),
            faces)


def test_a_cut_at_the_teachers_widths_is_the_teacher_in_both_modes(teacher_and_crops) -> None:
    """The batch norms set from the crops' statistics give the folded layers' outputs, in
    eval mode and in training mode (where they normalise by the batch)."""
    from dicecall.models.prune import pruned_reader

    teacher, crops, geom, _ = teacher_and_crops
    same = pruned_reader(teacher, crops, geom, widths=(24, 32, 32))
    with torch.no_grad():
        want = teacher.eval()(crops, geom)
        for mode in (False, True):
            got = same.train(mode)(crops, geom)
            assert max(float((a - b).abs().max()) for a, b in zip(want, got, strict=True)) < 1e-4


def test_the_pruned_reader_keeps_the_contract_at_a_quarter_of_the_cost(teacher_and_crops
                                                                       ) -> None:
    from dicecall.models.nets import Reader, count_macs, reader_for
    from dicecall.models.prune import pruned_reader

    teacher, crops, geom, _ = teacher_and_crops
    student = pruned_reader(teacher, crops, geom).eval()
    with torch.no_grad():
        outs = student(crops, geom)
    n = len(crops)
    assert [tuple(o.shape) for o in outs] == [(n, 6), (n, 1, 32, 32), (n, 1), (n, 1), (n, 1),
                                              (n, 1)]
    shapes = ((1, 3, 64, 64), (1, 3))
    assert count_macs(student, *shapes) * 3.5 < count_macs(Reader(), *shapes)
    again = reader_for(student.state_dict())
    again.load_state_dict(student.state_dict())  # the export builds it from the checkpoint
    with torch.no_grad():
        assert torch.equal(again.eval()(crops, geom)[0], outs[0])


def test_channels_the_teacher_never_uses_are_the_ones_cut(teacher_and_crops) -> None:
    """A channel whose layer gives 0 on every crop is dropped before any that gives more."""
    import copy

    from dicecall.models.prune import kept_channels

    teacher, crops, geom, _ = teacher_and_crops
    dead = copy.deepcopy(teacher)
    with torch.no_grad():
        # b16's second conv: half its 48 channels off (weights 0, folded bias negative)
        off = np.arange(0, 48, 2)
        dead.b16[1][0].weight[off] = 0.0
        dead.b16[1][1].bias[off] = -1.0
        # one channel of the pip branch's shared 32: off in every layer that gives it
        for layer in (dead.pip8[1], dead.pip16, dead.pip_lat, dead.pip32[0].dw,
                      dead.pip32[0].pw, dead.pip32[1].dw, dead.pip32[1].pw):
            layer[0].weight[5] = 0.0
            layer[1].bias[5] = -1.0
    keep = kept_channels(dead, crops, geom)
    assert sorted(keep["f16"]) == list(range(1, 48, 2))
    assert len(keep["P"]) == 16 and 5 not in keep["P"]
    with pytest.raises(ValueError, match="wider"):
        kept_channels(teacher, crops, geom, widths=(32, 16, 16))


def test_a_pruned_distillation_starts_scored_resumes_and_exports(
        tmp_path: Path, whole_and_resumed, exports_as_checkpoint) -> None:
    from dicecall.models.distill_train import train_distill
    from dicecall.models.nets import Reader, reader_for
    from dicecall.models.trainloop import setup_torch

    setup_torch(1)
    data = load_folder(FRAMES)
    state = whole_and_resumed(train_distill, data, data, COMMITTED, epochs=2, seed=1,
                              batch_size=8, student_kind="pruned")
    model = reader_for(state)
    assert isinstance(model, Reader) and model.b32[1][0].out_channels == 12
    exports_as_checkpoint(tmp_path / "full" / "last.pt", tmp_path / "pruned.onnx")
    log = (tmp_path / "full" / "log.jsonl").read_text().splitlines()
    assert any('"event": "pruned"' in x for x in log)
    # the cut teacher is scored before its first step (epoch 0), then every epoch
    epochs = [x for x in log if '"event": "valid"' in x]
    assert '"epoch": 0' in epochs[0] and len(epochs) == 3
    with pytest.raises(ValueError, match="student 'wide'"):
        train_distill(data, data, COMMITTED, tmp_path / "x", 1, 1, False, student_kind="wide")


def test_the_student_option_belongs_to_the_distill_stage(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from dicecall.cli import app

    for args, said in ((["--stage", "reader", "--student", "pruned"], "--stage distill"),
                       (["--stage", "distill", "--student", "wide"], "slim or pruned")):
        res = CliRunner().invoke(app, ["models", "train", "--data", str(FRAMES), "--out",
                                       str(tmp_path), *args])
        text = " ".join(res.output.replace("│", " ").split())
        assert res.exit_code != 0 and said in text, text
