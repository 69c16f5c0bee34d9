"""The runtime gives the reader the table camera's view only when the reader ONNX says it was
trained on views (`preprocess.GEOM_META`): a reader that learnt the typical camera's guess
reads worse with a true view (docs/verdicts.md, session 13). The committed reader has been
trained on views since session 14."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from dicecall.vision.config import ReaderConfig
from dicecall.vision.images import load_image
from dicecall.vision.preprocess import LEAN_UNIT, FloorView
from dicecall.vision.reader import DiceReader

pytest.importorskip("onnx")

FRAME = Path(__file__).parents[1] / "data" / "frames" / "throwbox_0000005.jpg"
MODELS = Path(__file__).parents[2] / "models"


def _view(shape, tilt_deg: float, zoom: float = 1.0) -> FloorView:
    h, w = shape[:2]
    f = zoom * max(w, h) / LEAN_UNIT
    t = np.radians(tilt_deg)
    return FloorView.of([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]], [0] * 5,
                        [np.sin(t), 0, -np.cos(t)], (w, h))


def _flags(dice) -> np.ndarray:
    return np.column_stack([dice.tilt, dice.stacked])


def _unstamped(tmp_path: Path) -> ReaderConfig:
    """A copy of the committed models whose reader carries no `dicecall.geom` stamp, as
    readers trained before session 13 do."""
    import onnx

    from dicecall.vision.preprocess import GEOM_META

    shutil.copy(MODELS / "detector.onnx", tmp_path / "detector.onnx")
    model = onnx.load(str(MODELS / "reader.onnx"))
    keep = [p for p in model.metadata_props if p.key != GEOM_META]
    del model.metadata_props[:]
    model.metadata_props.extend(keep)
    onnx.save(model, str(tmp_path / "reader.onnx"))
    # Every die in every view: the one-view shortcut reads a die the view puts in doubt in
    # more views, which would move its face too; these tests are about the model's inputs.
    return ReaderConfig(detector=tmp_path / "detector.onnx", reader=tmp_path / "reader.onnx",
                        warmup=0, first_views=4)


def test_the_committed_reader_was_trained_on_views() -> None:
    """Session 14's reader: its flags were fine-tuned with each scene's own camera."""
    assert DiceReader(ReaderConfig(warmup=0)).uses_view


def test_a_reader_without_the_stamp_reads_as_if_uncalibrated(tmp_path) -> None:
    frame = load_image(FRAME)
    reader = DiceReader(_unstamped(tmp_path))
    assert not reader.uses_view
    plain = reader.read(frame)
    np.testing.assert_array_equal(_flags(reader.read(frame, _view(frame.shape, 8, 4))),
                                  _flags(plain))


def test_a_stamped_reader_reads_with_the_view(tmp_path) -> None:
    from dicecall.models.export import stamp_floor_view

    cfg = _unstamped(tmp_path)
    stamp_floor_view(tmp_path / "reader.onnx")
    stamp_floor_view(tmp_path / "reader.onnx")  # stamping twice keeps one entry
    frame = load_image(FRAME)
    reader = DiceReader(cfg)
    assert reader.uses_view
    plain = reader.read(frame)
    assert len(plain) >= 2
    # the typical straight camera is what the reader guesses without a view
    np.testing.assert_allclose(_flags(reader.read(frame, _view(frame.shape, 0))), _flags(plain),
                               atol=1e-5)
    leaning = reader.read(frame, _view(frame.shape, 8, 4))
    assert np.abs(_flags(leaning) - _flags(plain)).max() > 1e-3
    np.testing.assert_array_equal(leaning.face_probs, plain.face_probs)  # flags only
    # a view given to the reader at start serves every frame that brings none
    fixed = DiceReader(cfg, view=_view(frame.shape, 8, 4))
    np.testing.assert_allclose(_flags(fixed.read(frame)), _flags(leaning), atol=1e-6)
