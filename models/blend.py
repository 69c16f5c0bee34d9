"""A fine-tune blended back toward its start in weight space (WiSE-FT, Wortsman et al. 2022).

Every fine-tune of the no-game detector on new die styles since session 31 moved the held-out
styles up and epanemu's oblique phone photos down (models/detector.md, rules 23-26, 48-49).
Averaging the weights of a fine-tune with those of the net it started from is the known
remedy for that trade: both lie in one basin, so the average keeps most of the new skill and
much of the old. The detector fine-tunes in eval mode from an export whose batch norms are
folded (`det_train.train_detector`), so the net is the same function of its parameters at
every point of the line and a blend of the two is a net of the same shape.

The blend is written as a run folder's `<stage>/last.pt`, so `models export --checkpoint
last` makes its ONNX files and card as for any run.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

from dicecall.models.export import _checkpoint

STAGES = ("detector", "reader")


def blend_states(start: dict, end: dict, alpha: float) -> dict:
    """(1 - alpha) x start + alpha x end, tensor by tensor.

    Floating tensors are interpolated; any other (a batch norm's step count) is the end's.

    Raises:
        ValueError: alpha outside [0, 1], or the two states are not of one net (keys or
            shapes differ).
    """
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha {alpha}: between 0 (the start) and 1 (the fine-tune)")
    if start.keys() != end.keys():
        odd = sorted(start.keys() ^ end.keys())
        raise ValueError(f"not one net: {len(odd)} tensors in one only, e.g. {odd[:3]}")
    out = {}
    for name, b in end.items():
        a = start[name]
        if a.shape != b.shape:
            raise ValueError(f"not one net: {name} is {tuple(a.shape)} and {tuple(b.shape)}")
        out[name] = (torch.lerp(a.to(b.dtype), b, alpha) if b.is_floating_point()
                     else b.clone())
    return out


def load_start(path: Path, stage: str) -> dict:
    """The start's weights: a checkpoint of `models train`, or the ONNX file the fine-tune
    was started from (`--init`), read back as the fine-tune read it."""
    if path.suffix == ".onnx":
        from google.protobuf.message import DecodeError

        from dicecall.models.onnx_import import detector_from_onnx, whole_reader_from_onnx

        try:
            net = (detector_from_onnx(path)[0] if stage == "detector"
                   else whole_reader_from_onnx(path))
        except DecodeError as exc:
            raise ValueError(f"{path}: not an ONNX model ({exc})") from None
        return net.state_dict()
    return _checkpoint(path)["model"]


def blend_run(start: Path, end: Path, alpha: float, out: Path) -> Path:
    """Writes the blend of `start` and the fine-tune checkpoint `end` as `out/<stage>/last.pt`
    (the stage is `end`'s folder: detector or reader), with a recipe naming both; returns it.

    Raises:
        ValueError: `end` is not in a stage folder, a file is not a checkpoint, the nets
            differ, alpha is out of range, or `out/<stage>` already holds a checkpoint.
    """
    stage = end.parent.name
    if stage not in STAGES:
        raise ValueError(f"{end}: the fine-tune's checkpoint lies in a run's detector/ or "
                         "reader/ folder")
    state = _checkpoint(end)
    blended = blend_states(load_start(start, stage), state["model"], alpha)
    folder = out / stage
    if any(folder.glob("*.pt")):
        raise ValueError(f"{folder} already holds a checkpoint: name a new run folder")
    folder.mkdir(parents=True, exist_ok=True)
    recipe = {"blend": {"start": str(start), "end": str(end), "alpha": alpha,
                        "end_epoch": int(state["epoch"])}}
    made = end.parent / "recipe.json"
    if made.is_file():
        recipe["end_recipe"] = json.loads(made.read_text())
    (folder / "recipe.json").write_text(json.dumps(recipe, indent=1) + "\n")
    path = folder / "last.pt"
    torch.save({"model": blended, "epoch": int(state["epoch"]), "best": float("nan"),
                "extra": {"blend": recipe["blend"]}}, path)
    return path
