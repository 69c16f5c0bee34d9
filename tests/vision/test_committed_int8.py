"""The committed INT8 reader reads the committed sample frames as FP32 does: every die found
and its face right, behind the INT8 detector and behind the FP32 one (the pair session 24
measured safer in Props & Hops; models/reader.md)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dicecall.vision.config import MODELS_DIR, ReaderConfig
from dicecall.vision.images import load_image
from dicecall.vision.reader import DiceReader
from dicecall.vision.scoring import match

FRAMES = sorted((Path(__file__).resolve().parent.parent / "data" / "frames").glob("*.json"))
PAIRS = {"int8 pair": ("detector.int8.onnx", "reader.int8.onnx"),
         "fp32 detector, int8 reader": ("detector.onnx", "reader.int8.onnx")}


@pytest.fixture(scope="module", params=list(PAIRS))
def reader(request) -> DiceReader:
    det, read = PAIRS[request.param]
    if not (MODELS_DIR / det).is_file() or not (MODELS_DIR / read).is_file():
        pytest.skip(f"{det} or {read} is not committed")
    return DiceReader(ReaderConfig(detector=MODELS_DIR / det, reader=MODELS_DIR / read))


@pytest.mark.parametrize("label", FRAMES, ids=[p.stem for p in FRAMES])
def test_int8_reader_reads_sample_frame(reader, label):
    rec = json.loads(label.read_text())
    dice = reader.read(load_image(label.with_name(rec["image"])))
    boxes = np.array([d["box"] for d in rec["dice"]], np.float32)
    pairs = match(dice.centers, boxes)
    faces = [d["face"] for d in rec["dice"]]
    assert len(pairs) == len(faces), "a labelled die was not found"
    read = {g: int(dice.face[p]) for p, g in pairs}
    assert [read[g] for g in range(len(faces))] == faces
    # Flat dice: the up margin reads near its top (45 = "45 degrees or more").
    assert (dice.up_margin > 40).all()
