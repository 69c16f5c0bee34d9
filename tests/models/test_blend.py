"""`models blend`: a fine-tune averaged with its start in weight space (models/blend.py). The
blend must be the net between the two (at alpha 0 the start, at 1 the fine-tune), refuse two
nets that are not one, and export as any run does. No test here trains."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from typer.testing import CliRunner  # noqa: E402

from dicecall.cli import app  # noqa: E402
from dicecall.models.blend import blend_run, blend_states  # noqa: E402
from dicecall.models.nets import Detector  # noqa: E402


def _detector(seed: int) -> Detector:
    torch.manual_seed(seed)
    net = Detector()
    with torch.no_grad():  # batch norm statistics away from their defaults too
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.normal_()
                m.running_var.uniform_(0.5, 2.0)
                m.num_batches_tracked.fill_(seed)
    return net.eval()


def _save(net: Detector, path: Path, epoch: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": net.state_dict(), "epoch": epoch, "best": 0.0}, path)
    return path


def test_the_ends_are_the_two_nets_and_the_middle_is_their_mean() -> None:
    a, b = _detector(1).state_dict(), _detector(2).state_dict()
    for alpha, want in ((0.0, a), (1.0, b)):
        got = blend_states(a, b, alpha)
        for name in a:
            if a[name].is_floating_point():
                torch.testing.assert_close(got[name], want[name], rtol=0, atol=1e-7)
    mid = blend_states(a, b, 0.5)
    name = next(n for n in a if n.endswith("weight") and a[n].dim() == 4)
    torch.testing.assert_close(mid[name], (a[name] + b[name]) / 2)
    # a step count is not a weight: the fine-tune's is kept
    steps = next(n for n in a if n.endswith("num_batches_tracked"))
    assert int(mid[steps]) == 2


def test_a_blend_of_one_net_with_itself_reads_as_that_net() -> None:
    net = _detector(3)
    same = Detector()
    same.load_state_dict(blend_states(net.state_dict(), net.state_dict(), 0.37))
    same.eval()
    x = torch.rand(1, 3, 320, 320)
    with torch.no_grad():
        for u, v in zip(net(x), same(x), strict=True):
            torch.testing.assert_close(u, v)


def test_two_different_nets_or_an_alpha_off_the_line_are_refused() -> None:
    a = _detector(1).state_dict()
    wider = Detector(width=32).state_dict()
    with pytest.raises(ValueError, match="not one net"):
        blend_states(a, wider, 0.5)
    fewer = dict(a)
    fewer.pop(next(iter(fewer)))
    with pytest.raises(ValueError, match="in one only"):
        blend_states(fewer, a, 0.5)
    for alpha in (-0.1, 1.5):
        with pytest.raises(ValueError, match="alpha"):
            blend_states(a, a, alpha)


def test_the_blend_is_a_run_that_exports(tmp_path: Path, toy_yolo: Path) -> None:
    from dicecall.models.export import export_all

    start = _save(_detector(1), tmp_path / "ft" / "detector" / "best.pt", 0)
    end = _save(_detector(2), tmp_path / "ft" / "detector" / "last.pt", 15)
    path = blend_run(start, end, 0.5, tmp_path / "blend")
    assert path == tmp_path / "blend" / "detector" / "last.pt"
    saved = torch.load(path, weights_only=False)
    assert saved["epoch"] == 15 and saved["extra"]["blend"]["alpha"] == 0.5
    report = export_all(tmp_path / "blend", tmp_path / "out", [toy_yolo], "last")
    assert report["detector_epoch"] == 15 and report["detector_max_abs_diff"] < 1e-3
    card = (tmp_path / "out" / "detector.card.md").read_text()
    assert '"alpha": 0.5' in card  # the card says what the net is
    with pytest.raises(ValueError, match="already holds a checkpoint"):  # never over a run
        blend_run(start, end, 0.7, tmp_path / "blend")


def test_the_command_names_what_is_wrong_and_writes_nothing(tmp_path: Path) -> None:
    start = _save(_detector(1), tmp_path / "ft" / "detector" / "best.pt", 0)
    loose = _save(_detector(2), tmp_path / "loose.pt", 15)
    junk = tmp_path / "ft" / "detector" / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    runner = CliRunner()
    bad_onnx = tmp_path / "start.onnx"
    bad_onnx.write_bytes(b"not a model")
    for first, end, message in ((start, loose, "detector/ or"), (start, junk, "not a checkpoint"),
                                (bad_onnx, start, "not an ONNX model")):
        res = runner.invoke(app, ["models", "blend", "--start", str(first), "--end", str(end),
                                  "--out", str(tmp_path / "b")])
        assert res.exit_code == 2 and message in res.output, res.output
    assert not (tmp_path / "b").exists()
    res = runner.invoke(app, ["models", "blend", "--start", str(start), "--end", str(start),
                              "--out", str(tmp_path / "b"), "--alpha", "1.2"])
    assert res.exit_code == 2 and not (tmp_path / "b").exists()


def test_an_onnx_start_is_read_back_as_the_fine_tune_read_it(tmp_path: Path) -> None:
    """`--start models/detector.onnx`: the file `train --init` began from. Blending it with
    itself at any alpha gives its own outputs back through export."""
    import onnxruntime as ort

    from dicecall.models.onnx_import import detector_from_onnx

    onnx_path = Path(__file__).resolve().parents[2] / "models" / "detector.onnx"
    end = _save(detector_from_onnx(onnx_path)[0], tmp_path / "ft" / "detector" / "last.pt", 3)
    path = blend_run(onnx_path, end, 0.5, tmp_path / "blend")
    net, _ = detector_from_onnx(onnx_path)
    net.load_state_dict(torch.load(path, weights_only=False)["model"])
    x = np.random.default_rng(0).random((1, 3, 320, 320), np.float32)
    with torch.no_grad():
        mine = [t.numpy() for t in net.eval()(torch.from_numpy(x))]
    theirs = ort.InferenceSession(str(onnx_path)).run(None, {"image": x})
    for u, v in zip(mine, theirs, strict=True):
        np.testing.assert_allclose(u, v, atol=1e-3)
