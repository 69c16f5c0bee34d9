"""Scenes rendered again under the lamps the camera switches (`generate --lamps`): the same
throw, the same picture as generated, and four lamp frames from which `vision.lamps` reads
each die's top face off level."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dicecall.datasets.generate import GenerateConfig, generate
from dicecall.datasets.schema import load_folder
from dicecall.vision.images import load_image
from dicecall.vision.lamps import LampRig, face_light, lamp_tilt


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("lamps")
    common = {"scene": "shaker", "count": 8, "seed": 71, "workers": 1,
              "force": {"lean": 1.0, "stack": 0.0, "out": 0.0}}
    generate(GenerateConfig(**common, out=root / "plain"), progress=False)
    generate(GenerateConfig(**common, out=root / "lit", lamps=45.0, polarised=True),
             progress=False)
    return root / "plain", root / "lit"


def test_the_scene_is_the_one_generated_without_lamps(folders):
    plain, lit = folders
    for a, b in zip(sorted(plain.glob("*.jpg")), sorted(lit.glob("shaker_???????.jpg")),
                    strict=True):
        assert a.read_bytes() == b.read_bytes()
    for (_, ra), (_, rb) in zip(load_folder(plain), load_folder(lit), strict=True):
        assert ra.dice == rb.dice


def test_lamp_frames_are_named_in_the_record_and_absent_from_plain_json(folders):
    plain, lit = folders
    assert all("lamps" not in json.loads(p.read_text()) for p in plain.glob("*.json"))
    lit_up: list[bool] = []
    for path, rec in load_folder(lit):
        assert rec.lamps["frames"] == [f"{path.stem}.lamp{k}.jpg" for k in range(4)]
        assert rec.lamps["polarised"] is True
        assert LampRig.model_validate(rec.lamps["rig"]).elevation_deg == (45.0, 45.0, 45.0)
        frames = [load_image(path.parent / f) for f in rec.lamps["frames"]]
        assert len({f.tobytes() for f in frames}) == 4  # each lamp lights it differently
        boxes = np.array([d.box for d in rec.dice if d.visible >= 0.9], np.float32)
        light, _ = face_light(frames, boxes)
        lit_up.extend((light[:, 1:] > light[:, :1] + 10).all(1))
    # every lamp lights a die's top face from above, unless the shaker's wall shades it
    assert np.mean(lit_up) >= 0.75, lit_up


def test_the_lamps_read_a_forced_lean_as_off_level_and_a_flat_die_as_level(folders):
    """Each scene leans one die on something (`--force lean=1`): read from the labelled
    boxes, the shallow leans (under 20 degrees, the ones the tilt head misses) come out
    off level and the flat dice near it. A steeper die shows two faces in the square read,
    and the lamps' reading of it means nothing; the tilt head reads those."""
    _, lit = folders
    lean, flat = [], []
    for path, rec in load_folder(lit):
        frames = [load_image(path.parent / f) for f in rec.lamps["frames"]]
        boxes = np.array([d.box for d in rec.dice], np.float32)
        deg = lamp_tilt(frames, boxes, LampRig.model_validate(rec.lamps["rig"]))
        for d, a in zip(rec.dice, deg, strict=True):
            shallow = d.cocked and d.tilt_deg < 20
            if d.visible >= 0.9 and np.isfinite(a) and (shallow or d.tilt_deg < 1):
                (lean if d.cocked else flat).append((d.tilt_deg, float(a)))
    assert len(lean) >= 2 and len(flat) >= 6, (lean, flat)
    assert all(a > t / 2 for t, a in lean), lean
    assert all(a < 4.0 for _, a in flat), flat
