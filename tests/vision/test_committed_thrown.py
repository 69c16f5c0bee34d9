"""Craps and High Roll find their dice with `detector.thrown.onnx` (docs/verdicts.md, session
25, rule 15): behind it the committed reader reads every committed sample frame of those
tables (craps and throw box scenes) right, every die found, no die added."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dicecall.vision.config import ReaderConfig, for_game
from dicecall.vision.images import load_image
from dicecall.vision.reader import DiceReader
from dicecall.vision.scoring import match

FRAMES = sorted(p for p in (Path(__file__).resolve().parent.parent / "data" / "frames")
                .glob("*.json") if not p.stem.startswith("shaker"))


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    cfg = for_game(ReaderConfig(), cocked_counts=True)
    if not cfg.detector.is_file():
        pytest.skip(f"{cfg.detector.name} is not committed")
    assert cfg.detector == ReaderConfig().thrown_detector
    return DiceReader(cfg)


@pytest.mark.parametrize("label", FRAMES, ids=[p.stem for p in FRAMES])
def test_thrown_detector_finds_every_die_of_a_sample_frame(reader, label):
    rec = json.loads(label.read_text())
    dice = reader.read(load_image(label.with_name(rec["image"])))
    boxes = np.array([d["box"] for d in rec["dice"]], np.float32)
    faces = [d["face"] for d in rec["dice"]]
    pairs = match(dice.centers, boxes)
    assert len(pairs) == len(faces) == len(dice), "a die missed or one added"
    read = {g: int(dice.face[p]) for p, g in pairs}
    assert [read[g] for g in range(len(faces))] == faces
    assert (dice.pip_face == dice.face).all()
