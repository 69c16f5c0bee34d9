"""The reader works whatever the photo's size (issue 5: dice 15 px wide in a small frame and
150 px wide in a 4032x3024 one). The detector sees a 320-pixel copy either way, and each
die's crop is cut from the full-resolution frame and averaged down (`preprocess.crops`), so
the same dice photographed six times larger must read the same. The committed sample frames
are 640x480; enlarged 6.3 times they are 4032x3024, with dice 120-450 px wide.
`bench/bench_reader.py --large N` measures it on scenes rendered at that size."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from dicecall.vision.images import load_image
from dicecall.vision.reader import DiceReader
from dicecall.vision.scoring import match

FRAMES = sorted((Path(__file__).resolve().parent.parent / "data" / "frames").glob("*.json"))
SCALE = 6.3


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    return DiceReader()


@pytest.mark.parametrize("label", FRAMES, ids=[p.stem for p in FRAMES])
def test_a_frame_six_times_larger_reads_the_same(reader, label):
    rec = json.loads(label.read_text())
    small = load_image(label.with_name(rec["image"]))
    big = cv2.resize(small, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_CUBIC)
    assert big.shape[:2] == (3024, 4032)
    boxes = np.array([d["box"] for d in rec["dice"]], np.float32) * SCALE
    dice = reader.read(big)
    # A match is a centre inside the labelled box scaled up: the coordinates come back in
    # the large frame's pixels, where the dice are.
    pairs = match(dice.centers, boxes)
    assert len(dice) == len(rec["dice"]) == len(pairs), "a die missed or a false die"
    for p, g in pairs:
        assert int(dice.face[p]) == rec["dice"][g]["face"]
        assert int(dice.pip_face[p]) == int(dice.face[p]), "the pip reading disagrees"
