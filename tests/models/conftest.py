"""Fixtures for the model tests: a handful of drawn dice images in YOLO layout."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

# Pip positions on a unit face, per face value, as fractions of the face side.
_PIPS = {
    1: [(0.5, 0.5)],
    2: [(0.25, 0.25), (0.75, 0.75)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.25, 0.2), (0.75, 0.2), (0.25, 0.5), (0.75, 0.5), (0.25, 0.8), (0.75, 0.8)],
}


def draw_scene(rng: np.random.Generator, size: int = 160) -> tuple[np.ndarray, list[tuple]]:
    """A flat background with 1-3 white dice with black pips.

    Returns:
        (bgr image [size, size, 3] uint8, [(face, cx, cy, side)] in pixels).
    """
    img = np.full((size, size, 3), rng.integers(40, 200, 3), np.uint8)
    dice = []
    for k in range(int(rng.integers(1, 4))):
        side = int(rng.integers(18, 30))
        x0, y0 = 10 + 48 * k, int(rng.integers(10, size - side - 10))
        face = int(rng.integers(1, 7))
        cv2.rectangle(img, (x0, y0), (x0 + side, y0 + side), (245, 245, 245), -1)
        for u, v in _PIPS[face]:
            cv2.circle(
                img, (int(x0 + u * side), int(y0 + v * side)), max(2, side // 9), (0, 0, 0), -1
            )
        dice.append((face, x0 + side / 2, y0 + side / 2, side))
    return img, dice


@pytest.fixture(scope="session")
def toy_yolo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four drawn images in YOLO layout (images/, labels/; class = face - 1)."""
    root = tmp_path_factory.mktemp("toy") / "train"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    rng = np.random.default_rng(7)
    for i in range(4):
        img, dice = draw_scene(rng)
        cv2.imwrite(str(root / "images" / f"toy_{i}.png"), img)
        h, w = img.shape[:2]
        rows = [
            f"{f - 1} {cx / w:.5f} {cy / h:.5f} {s / w:.5f} {s / h:.5f}" for f, cx, cy, s in dice
        ]
        (root / "labels" / f"toy_{i}.txt").write_text("\n".join(rows) + "\n")
    return root


@pytest.fixture()
def onnx_and_checkpoint() -> Callable[[Path, Path], tuple[list[np.ndarray], list[np.ndarray]]]:
    """Reads five random crops with an ONNX reader and with a training checkpoint's reader:
    (onnx outputs, torch outputs), both in the contract's output order."""

    def read(onnx_path: Path, checkpoint: Path) -> tuple[list[np.ndarray], list[np.ndarray]]:
        import onnxruntime as ort
        import torch

        from dicecall.models.nets import reader_for
        from dicecall.models.trainloop import load_checkpoint

        model = reader_for(torch.load(checkpoint, map_location="cpu", weights_only=False)["model"])
        load_checkpoint(checkpoint, model)
        model.eval()
        rng = np.random.default_rng(0)
        crops = rng.random((5, 3, 64, 64), np.float32)
        geom = rng.normal(0, 0.2, (5, 3)).astype(np.float32)
        onnx_outs = ort.InferenceSession(str(onnx_path)).run(None, {"crops": crops,
                                                                     "geom": geom})
        with torch.no_grad():
            outs = model(torch.from_numpy(crops), torch.from_numpy(geom))
        return onnx_outs, [o.numpy() for o in outs]

    return read


@pytest.fixture()
def exports_as_checkpoint(onnx_and_checkpoint) -> Callable[[Path, Path], Path]:
    """Exports a training checkpoint's reader to ONNX at `onnx_path` and checks that the
    file reads as the checkpoint does; returns `onnx_path`."""

    def export(checkpoint: Path, onnx_path: Path) -> Path:
        import torch

        from dicecall.models.export import READER_OUTPUTS, export_onnx
        from dicecall.models.nets import reader_for
        from dicecall.models.trainloop import load_checkpoint

        model = reader_for(torch.load(checkpoint, map_location="cpu", weights_only=False)["model"])
        load_checkpoint(checkpoint, model)
        feeds = {"crops": np.random.default_rng(0).random((2, 3, 64, 64), np.float32),
                 "geom": np.zeros((2, 3), np.float32)}
        export_onnx(model, feeds, onnx_path, list(READER_OUTPUTS), dynamic=True)
        onnx_outs, torch_outs = onnx_and_checkpoint(onnx_path, checkpoint)
        for a, b in zip(onnx_outs, torch_outs, strict=True):
            assert np.abs(a - b).max() < 1e-4
        return onnx_path

    return export


@pytest.fixture()
def whole_and_resumed(tmp_path: Path) -> Callable[..., dict]:
    """Runs a stage's training twice on the committed reader, once whole and once stopped
    after one epoch and resumed; checks both end on the same weights and returns them.
    The whole run's checkpoints are in tmp_path / "full"."""

    def run(train: Callable, *args, **kw) -> dict:
        import torch

        train(*args, tmp_path / "full", resume=False, **kw)
        train(*args, tmp_path / "part", resume=False, stop_after=1, **kw)
        train(*args, tmp_path / "part", resume=True, **kw)
        full, part = (torch.load(tmp_path / r / "last.pt", weights_only=False)["model"]
                      for r in ("full", "part"))
        assert all(torch.equal(full[k], part[k]) for k in full)
        return full

    return run
