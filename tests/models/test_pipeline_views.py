"""`dicecall models evaluate` and `sweep` read each crop in the runtime's turned views
(vision/views.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from dicecall.models.pipeline import OnnxPipeline
from dicecall.vision.config import ReaderConfig


@pytest.fixture(scope="module")
def crops() -> np.ndarray:
    rng = np.random.default_rng(3)
    return rng.integers(0, 255, (3, 64, 64, 3), np.uint8)


def _pipe(views: int) -> OnnxPipeline:
    cfg = ReaderConfig()
    return OnnxPipeline(cfg.detector, cfg.reader, threads=1, views=views)


def test_four_views_read_a_quarter_turned_crop_as_the_crop(crops):
    """Four quarter turns are the same four views of the crop turned or not (lone dice, no
    offset to turn): the averaged faces agree to rounding. One view does not."""
    turned = np.ascontiguousarray(np.rot90(crops, 1, axes=(1, 2)))
    four = _pipe(4)
    a, b = four.read_crops(crops)["face_logits"], four.read_crops(turned)["face_logits"]
    np.testing.assert_allclose(a, b, atol=1e-4)
    one = _pipe(1)
    assert np.abs(one.read_crops(crops)["face_logits"]
                  - one.read_crops(turned)["face_logits"]).max() > 1e-3


@pytest.mark.parametrize("command", [["evaluate"],
                                     ["sweep", "--reader", str(ReaderConfig().reader)]])
def test_models_commands_default_to_the_runtimes_views(monkeypatch, command):
    from typer.testing import CliRunner

    import dicecall.models.pipeline as pipeline
    from dicecall.cli import app

    seen: list[int] = []
    real = pipeline.OnnxPipeline.__init__

    def spy(self, *a, **kw):
        seen.append(kw.get("views", 1))
        real(self, *a, **kw)

    monkeypatch.setattr(pipeline.OnnxPipeline, "__init__", spy)
    frames = str(Path(__file__).resolve().parents[1] / "data" / "frames")
    runner = CliRunner()
    assert runner.invoke(app, ["models", *command, "--data", frames]).exit_code == 0
    assert runner.invoke(app, ["models", *command, "--data", frames, "--views", "1"]
                         ).exit_code == 0
    assert seen == [ReaderConfig().views, 1]
