"""The reader refuses settings its models cannot take when it opens, reads no die in the
letterbox's padding, cuts crops wherever a die lies, and warms up both sessions (issue 5;
an audit in session 39 found each of these failing only on a table's first frames)."""

from __future__ import annotations

import numpy as np
import pytest

import dicecall.vision.reader as reader_module
from dicecall.vision.config import ReaderConfig
from dicecall.vision.decode import decode_centres
from dicecall.vision.preprocess import crops
from dicecall.vision.reader import DiceReader


@pytest.mark.parametrize(("update", "message"), [
    ({"det_size": 640}, "takes image of 320x320; det_size is 640"),
    ({"crop_size": 32}, "takes crops of 64x64; crop_size is 32"),
])
def test_a_size_the_models_were_not_exported_at_is_refused_at_start(update, message):
    with pytest.raises(ValueError, match=message):
        DiceReader(ReaderConfig(**update))


def test_a_detector_and_reader_swapped_are_refused_at_start():
    cfg = ReaderConfig()
    with pytest.raises(ValueError, match="no input 'image'"):
        DiceReader(cfg.model_copy(update={"detector": cfg.reader, "reader": cfg.detector}))


def test_no_die_is_read_in_the_letterbox_padding():
    """A 640x320 frame letterboxed to 320 fills rows 0-159; a peak at row 30 of the 80-row
    heatmap (detector y 120-124, frame y 240-248 of 320) is in view, one at row 60 (frame y
    480) is in the padding, and it must not take a place from a die under `max_dice`."""
    heat = np.zeros((1, 1, 80, 80), np.float32)
    heat[0, 0, 60, 10], heat[0, 0, 30, 40] = 0.9, 0.5
    wh = np.full((1, 2, 80, 80), 10.0, np.float32)
    off = np.zeros((1, 2, 80, 80), np.float32)
    centres, _, _ = decode_centres(heat, wh, off, 4, 0.5, 0.1, 1, frame_size=(640, 320))
    assert centres.tolist() == [[320.0, 240.0]]
    both, _, _ = decode_centres(heat, wh, off, 4, 0.5, 0.1, 2)
    assert len(both) == 2  # without the frame's size both are kept, as before


@pytest.mark.parametrize(("centre", "side"), [((320, 700), 200.0), ((-400, 100), 300.0),
                                              ((700, -300), 150.0), ((320, 240), 300.0)])
def test_a_large_crop_is_cut_wherever_it_lies(centre, side):
    """Over twice the crop's size the crop is averaged from the frame (INTER_AREA); a square
    wholly outside the frame repeats its edge, as the smaller crops' warp does."""
    frame = np.zeros((480, 640, 3), np.uint8)
    frame[:, :, 2] = np.arange(640) * 255 // 639  # red grows left to right
    out = crops(frame, np.array([centre], np.float32), np.array([side], np.float32), 64)
    assert out.shape == (1, 3, 64, 64) and np.isfinite(out).all()
    edge_red = float(np.clip(centre[0], 0, 639)) / 639
    if not 0 <= centre[0] < 640:
        assert out[0, 0].mean() == pytest.approx(edge_red, abs=0.01)


def test_warm_up_runs_the_reader_session_too(monkeypatch):
    """Noise holds no die, so reading it alone never ran the crop reader: its first real
    run, on the table's first throw, paid onnxruntime's first-run cost."""
    runs = {}
    real = reader_module.open_session

    class Counting:
        def __init__(self, session, name):
            self._s, self._name = session, name

        def __getattr__(self, attr):
            return getattr(self._s, attr)

        def run(self, *a, **k):
            runs[self._name] = runs.get(self._name, 0) + 1
            return self._s.run(*a, **k)

    monkeypatch.setattr(reader_module, "open_session",
                        lambda path, threads: Counting(real(path, threads), path.name))
    cfg = ReaderConfig(warmup=2)
    DiceReader(cfg)
    assert runs.get(cfg.reader.name, 0) >= 2 and runs.get(cfg.detector.name, 0) >= 2
