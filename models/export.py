"""ONNX export of both stages, a check against torch, and the INT8 (QDQ) variants."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from pathlib import Path

import numpy as np
import torch

from dicecall.models.contract import (
    CROP_SCALE,
    DETECTOR_INPUTS,
    DETECTOR_OUTPUTS,
    GEOM_FLOOR_VIEW,
    GEOM_META,
    OPSET,
    READER_INPUTS,
    READER_OUTPUTS,
    crop_die,
    crops_to_input,
    die_geometry,
    letterbox,
)
from dicecall.models.crops import die_size
from dicecall.models.data import Sample, load_folder, read_rgb
from dicecall.models.nets import detector_for, reader_for
from dicecall.models.qdq import output_heads
from dicecall.models.trainloop import load_checkpoint
from dicecall.outpaths import replace_together, staging


def sha256(path: Path) -> str:
    """Hex sha256 of a file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def export_onnx(model: torch.nn.Module, feeds: dict[str, np.ndarray], path: Path,
                outputs: list[str], dynamic: bool) -> None:
    """Writes `model` as ONNX opset 17, with a dynamic first axis when `dynamic`; `feeds`
    are example inputs by name, in the order of the model's arguments."""
    model.eval()
    names = list(feeds)
    axes = {n: {0: "N"} for n in names + outputs} if dynamic else None
    example = tuple(torch.from_numpy(v) for v in feeds.values())
    torch.onnx.export(model, example, str(path), opset_version=OPSET, dynamo=False,
                      input_names=names, output_names=outputs, dynamic_axes=axes,
                      do_constant_folding=True)


def stamp_floor_view(path: Path) -> None:
    """Marks a reader ONNX as trained on calibrated views (`vision.preprocess.GEOM_META`):
    the training geometry comes from each synthetic scene's camera (`vision.preprocess.record_view`)
    since session 13, so the runtime gives such a reader the table's calibrated view."""
    import onnx

    model = onnx.load(str(path))
    kept = [p for p in model.metadata_props if p.key != GEOM_META]
    del model.metadata_props[:]
    model.metadata_props.extend(kept)
    entry = model.metadata_props.add()
    entry.key, entry.value = GEOM_META, GEOM_FLOOR_VIEW
    onnx.save(model, str(path))


def check_against_torch(model: torch.nn.Module, path: Path, feeds: dict[str, np.ndarray]
                        ) -> float:
    """Largest absolute difference between torch and onnxruntime outputs on `feeds`."""
    from dicecall.models.pipeline import session

    with torch.no_grad():
        ref = [t.numpy() for t in model(*(torch.from_numpy(v) for v in feeds.values()))]
    sess = session(path)
    got = sess.run(None, feeds)
    return float(max(np.abs(a - b).max() for a, b in zip(ref, got, strict=True)))


def calibration_inputs(samples: list[Sample], images: int, crops: int, seed: int = 0,
                       negatives: list[np.ndarray] | None = None, neg_share: float = 0.25
                       ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Detector frames [F, 3, 320, 320] and reader inputs (crops [C, 3, 64, 64], geom
    [C, 3]), evenly drawn.

    `negatives` ([M, 3] cx, cy, size per sample, `negatives.mine`) adds places that are not
    dice, up to `neg_share` of the crops: the runtime feeds the reader such places (the
    detector's wide net), so the activation ranges are taken on them too. Measured in session
    6, it changed little (epanemu false dice 0.908 -> 0.916 per image behind the FP32
    detector); the INT8 loss session 5 saw was the CPU's (`quantize`).
    """
    from dicecall.models.negatives import geometry

    rng = np.random.default_rng(seed)
    pick = rng.choice(len(samples), min(images, len(samples)), replace=False)
    frames, cut, geom, neg_cut, neg_geom = [], [], [], [], []
    for i in sorted(pick):
        s = samples[i]
        frame = read_rgb(s.image)
        frames.append(letterbox(frame)[0][0])
        geom.append(die_geometry(s.centres, die_size(s), frame.shape, s.view))
        for (cx, cy), size in zip(s.centres, die_size(s), strict=True):
            cut.append(crop_die(frame, cx, cy, CROP_SCALE * size))
        if negatives is not None and len(negatives[i]):
            neg_geom.append(geometry(s, negatives[i], frame.shape))
            neg_cut += [crop_die(frame, cx, cy, CROP_SCALE * z) for cx, cy, z in negatives[i]]
    n_neg = min(len(neg_cut), round(neg_share * crops))
    order = rng.permutation(len(cut))[:crops - n_neg]
    x, g = np.stack(cut)[order], np.concatenate(geom)[order]
    if n_neg:
        pick_neg = rng.permutation(len(neg_cut))[:n_neg]
        x = np.concatenate([x, np.stack(neg_cut)[pick_neg]])
        g = np.concatenate([g, np.concatenate(neg_geom)[pick_neg]])
        mix = rng.permutation(len(x))
        x, g = x[mix], g[mix]
    return np.stack(frames), {"crops": crops_to_input(x), "geom": g.astype(np.float32)}


def quantize(src: Path, dst: Path, data: dict[str, np.ndarray]) -> None:
    """Static INT8 quantization, QDQ format, per-channel weights; output activations
    (sigmoid, exp) and the layers that give each output (`qdq.output_heads`) stay float, so
    probabilities, logits and sizes keep their full range and resolution; they are a few
    small layers, so the cost in speed is small (`bench/bench_reader.py` measures it).

    Weights use 7 bits (`reduce_range`): x86 CPUs without VNNI multiply uint8 activations by
    int8 weights in pairs summed into int16 (`pmaddubsw`), which saturates with full-range
    weights. Session 5's machine lost matteop65 accuracy to it (99.6 % FP32, 96.1 % INT8);
    session 6's, with AVX512-VNNI, read the same files at 99.6 %, and at 96.1 % again under
    valgrind, which hides AVX-512 (`bench/int8_cpu_check.py`, models/reader.md).
    """
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
            n = len(next(iter(data.values())))
            self.it = iter([{k: v[i : i + 1] for k, v in data.items()} for i in range(n)])

        def get_next(self) -> dict | None:
            return next(self.it, None)

    # Both files are written in a temporary folder beside `dst` and the INT8 one renamed
    # onto it when complete: a failure or Ctrl-C partway leaves the old `dst` as it was.
    with staging(dst.parent) as tmp:
        pre, made = tmp / "pre.onnx", tmp / dst.name
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
        graph = onnx.load(str(pre)).graph
        keep = [n.name for n in graph.node if n.op_type in ("Sigmoid", "Exp", "Clip")]
        keep += [n for n in output_heads(graph) if n not in keep]
        quantize_static(str(pre), str(made), Reader(), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8, nodes_to_exclude=keep, reduce_range=True)
        os.replace(made, dst)


def export_all(run: Path, out: Path, calib: list[Path], checkpoint: str = "best") -> dict:
    """Exports run/detector/best.pt and run/reader/best.pt to `out`, FP32 and INT8.

    A run that trained one stage only (`--stage reader`) exports that stage; the other
    stage's files in `out` are left as they are. `checkpoint` "last" exports each stage's
    last.pt instead: the end of the schedule, for a run whose per-epoch score is not the
    runtime's measure (a fine-tune judged afterwards on the verdict suites).

    All or nothing: the files are written to a temporary folder inside `out` and moved
    into place together once every one is made, so a failure (or Ctrl-C) leaves `out` as
    it was, and a folder made for it is removed again.
    """
    if checkpoint not in ("best", "last"):
        raise ValueError(f"checkpoint {checkpoint!r}: best or last")
    name = f"{checkpoint}.pt"
    stages = [k for k in ("detector", "reader") if (run / k / name).is_file()]
    if not stages:
        raise FileNotFoundError(f"no {run}/detector/{name} or {run}/reader/{name}")
    # Every input read before the first file is written: a bad one leaves `out` as it was.
    states = {stage: _checkpoint(run / stage / name) for stage in stages}
    if stages == ["reader"] and (out / "detector.onnx").is_file():
        from dicecall.models.checks import DETECTOR, onnx_problem

        # the reader is calibrated behind it
        problem = onnx_problem(out / "detector.onnx", DETECTOR)
        if problem:
            raise ValueError(problem)
    samples = [s for d in calib for s in load_folder(d)]
    frames, _ = calibration_inputs(samples, images=64, crops=512)
    report: dict = {}
    # Every file is made in a temporary folder inside `out` and all are moved into `out`
    # together at the end: a failure partway (or Ctrl-C) leaves `out` as it was, never a
    # new detector beside an old reader and a card that describes neither.
    with staging(out) as tmp:
        made = tmp / "made"
        made.mkdir()
        for stage in stages:
            state = states[stage]["model"]
            model = detector_for(state) if stage == "detector" else reader_for(state)
            report[f"{stage}_epoch"] = load_checkpoint(run / stage / name, model)[0]
            model.eval()
            path = made / f"{stage}.onnx"
            if stage == "detector":
                feeds, outputs = {"image": frames[:1]}, list(DETECTOR_OUTPUTS)
                data = {"image": frames}
            else:  # behind the detector exported with it, else the one already in `out`
                behind = made / "detector.onnx" if "detector" in stages else out / "detector.onnx"
                crops = reader_calibration(samples, behind)
                feeds, outputs, data = ({k: v[:7] for k, v in crops.items()},
                                        list(READER_OUTPUTS), crops)
            export_onnx(model, {k: v[:2] for k, v in feeds.items()}, path, outputs,
                        dynamic=stage == "reader")
            report[f"{stage}_max_abs_diff"] = check_against_torch(model, path, feeds)
            if stage == "reader":
                stamp_floor_view(path)
            quantize(path, made / f"{stage}.int8.onnx", data)
            for p in (path, made / f"{stage}.int8.onnx"):  # this export's files, not older ones
                report[p.name] = {"bytes": p.stat().st_size, "sha256": sha256(p)}
            write_card(made / f"{stage}.card.md", stage, run / stage / name, calib, report)
        replace_together([(p, out / p.name) for p in sorted(made.iterdir())], tmp)
    return report


def _checkpoint(path: Path) -> dict:
    """A checkpoint of `models train`, or ValueError naming the file."""
    try:
        state = torch.load(path, map_location="cpu", weights_only=False)
    except (OSError, RuntimeError, EOFError, pickle.UnpicklingError) as exc:
        raise ValueError(f"{path}: not a checkpoint of `models train` ({exc})") from None
    if not isinstance(state, dict) or "model" not in state or "epoch" not in state:
        raise ValueError(f"{path}: not a checkpoint of `models train` (no model or epoch)")
    return state


def write_card(path: Path, stage: str, checkpoint: Path, calib: list[Path],
               report: dict) -> None:
    """The exported files' card: what they take and give (the contract), their sha256,
    the checkpoint and its epoch, the run's recipe (`recipe.json`, the command's options)
    and its last validation line. The hand-written cards (detector.md, reader.md) keep the
    history and the measured figures; this one is made at every export so none goes without."""
    recipe = checkpoint.parent / "recipe.json"
    log = checkpoint.parent / "log.jsonl"
    valid = [line for line in (log.read_text().splitlines() if log.is_file() else [])
             if json.loads(line).get("event") == "valid"]
    inputs, outputs = ((DETECTOR_INPUTS, DETECTOR_OUTPUTS) if stage == "detector"
                       else (READER_INPUTS, READER_OUTPUTS))
    rows = [f"| {name} | {r['bytes']:,} | `{r['sha256']}` |" for name, r in report.items()
            if name.startswith(f"{stage}.") and isinstance(r, dict)]
    path.write_text("\n".join([
        f"# {stage}: exported by `dicecall models export`", "",
        f"Checkpoint `{checkpoint}` (epoch {report[f'{stage}_epoch']}); INT8 calibrated on "
        + ", ".join(f"`{c}`" for c in calib) + f"; ONNX opset {OPSET}; largest difference "
        f"from torch {report[f'{stage}_max_abs_diff']:.2e}.", "",
        "| file | bytes | sha256 |", "|---|---|---|", *rows, "",
        "Inputs: " + ", ".join(f"`{k}` {t} {s}" for k, (t, s) in inputs.items()) + ".",
        "Outputs: " + ", ".join(f"`{k}` {t} {s}" for k, (t, s) in outputs.items()) + ".",
        "Preparation and meaning: `models/contract.py`, `vision/preprocess.py`.", "",
        "Recipe (`recipe.json` of the run):", "", "```",
        recipe.read_text().strip() if recipe.is_file() else "(none kept: a run before "
        "session 39)", "```", "",
        "Last validation:", "", "```", valid[-1] if valid else "(none logged)", "```", ""]))


def reader_calibration(samples: list[Sample], detector: Path) -> dict[str, np.ndarray]:
    """The reader's INT8 calibration inputs: 512 crops of 64 images, a quarter of them places
    the detector at `detector` finds that are not dice (exported first when both stages
    are exported, so the reader is calibrated against the detector it will run behind)."""
    from dicecall.models.negatives import mine, onnx_detector

    rng = np.random.default_rng(0)
    pick = sorted(rng.choice(len(samples), min(64, len(samples)), replace=False))
    chosen = [samples[i] for i in pick]
    # No d6 screen, unlike training: calibration needs activation ranges, not clean labels.
    negatives = mine(chosen, onnx_detector(detector), 0) if Path(detector).is_file() else None
    return calibration_inputs(chosen, images=len(chosen), crops=512, negatives=negatives)[1]


def requantize(model: Path, out: Path, calib: list[Path], detector: Path) -> dict:
    """INT8 of an exported FP32 detector or reader, without its training run: calibration as
    `export_all` does it. For committed models whose checkpoints are not at hand."""
    import onnx

    samples = [s for d in calib for s in load_folder(d)]
    inputs = {i.name for i in onnx.load(str(model)).graph.input}
    if "image" in inputs:
        data = {"image": calibration_inputs(samples, images=64, crops=512)[0]}
    else:
        data = reader_calibration(samples, detector)
    quantize(model, out, data)
    return {out.name: {"bytes": out.stat().st_size, "sha256": sha256(out)}}
