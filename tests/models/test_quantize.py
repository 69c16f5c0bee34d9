"""INT8 variants: calibrated on the places the runtime feeds the reader, with 7-bit weights."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

torch = pytest.importorskip("torch")

from dicecall.models.contract import (  # noqa: E402
    GEOM_FLOOR_VIEW,
    GEOM_META,
    READER_OUTPUTS,
)
from dicecall.models.data import load_folder  # noqa: E402
from dicecall.models.export import (  # noqa: E402
    calibration_inputs,
    export_onnx,
    requantize,
    stamp_floor_view,
)
from dicecall.models.nets import Reader  # noqa: E402
from dicecall.models.qdq import clipped_outputs  # noqa: E402

MODELS = Path(__file__).resolve().parents[2] / "models"


def _int8_weights(path: Path) -> list[np.ndarray]:
    """Every int8 initializer of a QDQ model: the quantized weights."""
    return [numpy_helper.to_array(t) for t in onnx.load(str(path)).graph.initializer
            if t.data_type == onnx.TensorProto.INT8 and np.prod(t.dims) > 1]


def test_calibration_crops_include_places_that_are_not_dice(toy_yolo: Path) -> None:
    samples = load_folder(toy_yolo)
    negatives = [np.array([[20.0, 140.0, 24.0], [140.0, 20.0, 24.0]], np.float32)
                 for _ in samples]
    _, dice_only = calibration_inputs(samples, images=4, crops=8)
    _, mixed = calibration_inputs(samples, images=4, crops=8, negatives=negatives,
                                  neg_share=0.25)
    assert len(mixed["crops"]) == len(mixed["geom"]) == 8
    # Two of the eight crops are background corners of the toy scenes: no white die face.
    white = lambda c: (c.mean(0) > 0.9).mean()  # noqa: E731
    assert sum(white(c) < 0.05 for c in mixed["crops"]) >= 2
    assert sum(white(c) < 0.05 for c in dice_only["crops"]) < sum(
        white(c) < 0.05 for c in mixed["crops"])


def test_requantized_reader_keeps_the_contract_with_seven_bit_weights(
        toy_yolo: Path, tmp_path: Path) -> None:
    torch.manual_seed(0)
    fp32 = tmp_path / "reader.onnx"
    export_onnx(Reader(), {"crops": np.random.rand(2, 3, 64, 64).astype(np.float32),
                           "geom": np.zeros((2, 3), np.float32)},
                fp32, list(READER_OUTPUTS), dynamic=True)
    out = tmp_path / "reader.int8.onnx"
    report = requantize(fp32, out, [toy_yolo], MODELS / "detector.onnx")
    assert report[out.name]["bytes"] == out.stat().st_size
    weights = _int8_weights(out)
    assert weights, "no int8 weights: the model was not quantized"
    # reduce_range: 7-bit weights, so non-VNNI x86 CPUs cannot saturate their int16 sums.
    assert all(np.abs(w.astype(np.int16)).max() <= 64 for w in weights)
    assert [o.name for o in onnx.load(str(out)).graph.output] == list(READER_OUTPUTS)
    # Each output comes from a float layer, not a DequantizeLinear: its range is not the
    # calibration crops' (session 23: a clipped up margin could never call a die void).
    graph = onnx.load(str(out)).graph
    made_by = {o: n for n in graph.node for o in n.output}
    assert {made_by[o.name].op_type for o in graph.output} <= {"Gemm", "Slice", "Sigmoid"}
    assert clipped_outputs(graph) == []
    assert GEOM_META not in [p.key for p in onnx.load(str(out)).metadata_props]
    # A reader trained on calibrated views says so in its INT8 file too, once.
    stamp_floor_view(fp32)
    requantize(fp32, out, [toy_yolo], MODELS / "detector.onnx")
    said = [p.value for p in onnx.load(str(out)).metadata_props if p.key == GEOM_META]
    assert said == [GEOM_FLOOR_VIEW]


def test_quantize_command_writes_the_detector_variant(toy_yolo: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from dicecall.cli import app

    out = tmp_path / "detector.int8.onnx"
    res = CliRunner().invoke(app, ["models", "quantize", "--calib", str(toy_yolo), "--model",
                                   str(MODELS / "detector.onnx"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)[out.name]["sha256"]
    assert all(np.abs(w.astype(np.int16)).max() <= 64 for w in _int8_weights(out))


def test_models_evaluate_defaults_to_the_runtime_thresholds(
        toy_yolo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bench's figures and `dicecall predict`'s must come from the same thresholds."""
    from typer.testing import CliRunner

    from dicecall.cli import app
    from dicecall.models import pipeline
    from dicecall.vision.config import ReaderConfig

    seen = {}
    real = pipeline.OnnxPipeline

    def recording(detector, reader, threshold, **kw):
        seen.update(threshold=threshold, pip=kw["pip_threshold"], reading=kw["pip_reading"])
        return real(detector, reader, threshold, **kw)

    monkeypatch.setattr(pipeline, "OnnxPipeline", recording)
    res = CliRunner().invoke(app, ["models", "evaluate", "--data", str(toy_yolo)])
    assert res.exit_code == 0, res.output
    cfg = ReaderConfig()
    assert seen == {"threshold": cfg.det_threshold, "pip": cfg.pip_threshold,
                    "reading": cfg.pip_reading}
    assert json.loads(res.output.splitlines()[0])["data"] == str(toy_yolo)


@pytest.mark.parametrize("stop", [RuntimeError("calibration failed"), KeyboardInterrupt()])
def test_a_quantize_stopped_partway_leaves_the_old_file_and_nothing_else(
        toy_yolo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop) -> None:
    """DESIGN: bad input loses nothing. `models quantize` wrote OUT.pre.onnx and OUT itself
    in place, so a failure (or a Ctrl-C) while quantize_static wrote left a cut-short INT8
    file where the good one was, and the .pre.onnx beside it."""
    import onnxruntime.quantization as ortq

    from dicecall.models.export import quantize

    out = tmp_path / "models" / "detector.int8.onnx"
    out.parent.mkdir()
    out.write_bytes(b"the good INT8 model")

    def cut_short(model_input, model_output, *args, **kw):
        Path(model_output).write_bytes(b"half a model")
        raise stop

    monkeypatch.setattr(ortq, "quantize_static", cut_short)
    frames = calibration_inputs(load_folder(toy_yolo), images=4, crops=8)[0]
    with pytest.raises(type(stop)):
        quantize(MODELS / "detector.onnx", out, {"image": frames})
    assert out.read_bytes() == b"the good INT8 model"
    assert [p.name for p in out.parent.iterdir()] == [out.name]


def test_quantize_writes_into_a_folder_it_makes_and_leaves_no_temporaries(
        toy_yolo: Path, tmp_path: Path) -> None:
    """An --out in a folder not made yet passes the option check (dicecall/outpaths.py);
    quantize ended in a FileNotFoundError for OUT.pre.onnx after the calibration."""
    from typer.testing import CliRunner

    from dicecall.cli import app

    out = tmp_path / "new" / "sub" / "detector.int8.onnx"
    res = CliRunner().invoke(app, ["models", "quantize", "--calib", str(toy_yolo), "--model",
                                   str(MODELS / "detector.onnx"), "--out", str(out)])
    assert res.exit_code == 0, (res.output, res.exception)
    assert [p.name for p in out.parent.iterdir()] == [out.name]
    assert onnx.load(str(out)).graph.node
