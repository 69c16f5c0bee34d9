"""ONNX export of both stages, a check against torch, and the INT8 (QDQ) variants."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import torch

from dicecall.models.contract import (
    CROP_SCALE,
    DETECTOR_OUTPUTS,
    OPSET,
    READER_OUTPUTS,
    crop_die,
    crops_to_input,
    letterbox,
)
from dicecall.models.crops import die_size
from dicecall.models.data import Sample, load_folder, read_rgb
from dicecall.models.nets import Detector, Reader
from dicecall.models.trainloop import load_checkpoint


def sha256(path: Path) -> str:
    """Hex sha256 of a file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def export_onnx(model: torch.nn.Module, example: torch.Tensor, path: Path, input_name: str,
                outputs: list[str], dynamic: bool) -> None:
    """Writes `model` as ONNX opset 17, with a dynamic first axis when `dynamic`."""
    model.eval()
    axes = {input_name: {0: "N"}, **{o: {0: "N"} for o in outputs}} if dynamic else None
    torch.onnx.export(model, (example,), str(path), opset_version=OPSET, dynamo=False,
                      input_names=[input_name], output_names=outputs, dynamic_axes=axes,
                      do_constant_folding=True)


def check_against_torch(model: torch.nn.Module, path: Path, x: np.ndarray) -> float:
    """Largest absolute difference between torch and onnxruntime outputs on `x`."""
    from dicecall.models.pipeline import session

    with torch.no_grad():
        ref = [t.numpy() for t in model(torch.from_numpy(x))]
    sess = session(path)
    got = sess.run(None, {sess.get_inputs()[0].name: x})
    return float(max(np.abs(a - b).max() for a, b in zip(ref, got, strict=True)))


def calibration_inputs(samples: list[Sample], images: int, crops: int, seed: int = 0
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Detector frames [F, 3, 320, 320] and reader crops [C, 3, 64, 64], evenly drawn."""
    rng = np.random.default_rng(seed)
    pick = rng.choice(len(samples), min(images, len(samples)), replace=False)
    frames, cut = [], []
    for i in sorted(pick):
        s = samples[i]
        frame = read_rgb(s.image)
        frames.append(letterbox(frame)[0][0])
        for (cx, cy), size in zip(s.centres, die_size(s), strict=True):
            cut.append(crop_die(frame, cx, cy, CROP_SCALE * size))
    cut_arr = np.stack(cut)[rng.permutation(len(cut))[:crops]]
    return np.stack(frames), crops_to_input(cut_arr)


def quantize(src: Path, dst: Path, name: str, data: np.ndarray) -> None:
    """Static INT8 quantization, QDQ format, per-channel weights; output activations
    (sigmoid, exp) stay float so probabilities and sizes keep their resolution."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.it = iter([{name: data[i : i + 1]} for i in range(len(data))])

        def get_next(self) -> dict | None:
            return next(self.it, None)

    pre = dst.with_suffix(".pre.onnx")
    quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
    graph = onnx.load(str(pre)).graph
    keep = [n.name for n in graph.node if n.op_type in ("Sigmoid", "Exp", "Clip")]
    quantize_static(str(pre), str(dst), Reader(), quant_format=QuantFormat.QDQ,
                    per_channel=True, activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8, nodes_to_exclude=keep)
    pre.unlink()


def export_all(run: Path, out: Path, calib: list[Path]) -> dict:
    """Exports run/detector/best.pt and run/reader/best.pt to `out`, FP32 and INT8."""
    det, rd = Detector(), Reader()
    det_epoch = load_checkpoint(run / "detector" / "best.pt", det)[0]
    rd_epoch = load_checkpoint(run / "reader" / "best.pt", rd)[0]
    det.eval()
    rd.eval()
    samples = [s for d in calib for s in load_folder(d)]
    frames, crops = calibration_inputs(samples, images=64, crops=512)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"detector": out / "detector.onnx", "reader": out / "reader.onnx"}
    export_onnx(det, torch.from_numpy(frames[:1]), paths["detector"], "image",
                list(DETECTOR_OUTPUTS), dynamic=False)
    export_onnx(rd, torch.from_numpy(crops[:2]), paths["reader"], "crops",
                list(READER_OUTPUTS), dynamic=True)
    report = {"detector_epoch": det_epoch, "reader_epoch": rd_epoch,
              "detector_max_abs_diff": check_against_torch(det, paths["detector"], frames[:1]),
              "reader_max_abs_diff": check_against_torch(rd, paths["reader"], crops[:7])}
    quantize(paths["detector"], out / "detector.int8.onnx", "image", frames)
    quantize(paths["reader"], out / "reader.int8.onnx", "crops", crops)
    for p in sorted(out.glob("*.onnx")):
        report[p.name] = {"bytes": p.stat().st_size, "sha256": sha256(p)}
    return report
