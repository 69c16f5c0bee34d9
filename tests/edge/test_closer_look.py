"""The edge looks again at a settled frame with fewer dice than the roll expects
(`DiceReader.recount`: closer, docs/verdicts.md rule 41, then wide, models/reader.md rule
42): a die it finds there is in the call, and a frame whose count is met is not looked at
again."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np

from dicecall.edge.flow import Expect
from dicecall.edge.reading import Reading
from dicecall.edge.sources import Frame


class _Merged:
    """The first `first` of `faces` (one die where two touch), and all of them closer."""

    def __init__(self, faces: tuple[int, ...], first: int = 1) -> None:
        self.faces, self.first, self.closer_calls = faces, first, 0

    def _dice(self, image: np.ndarray, faces: tuple[int, ...]):
        from dicecall.vision.dice import Dice

        h, w = image.shape[:2]
        n = len(faces)
        c = np.array([[w / 2 + 24 * i, h / 2] for i in range(n)], np.float32).reshape(n, 2)
        probs = np.zeros((n, 6), np.float32)
        probs[np.arange(n), np.array(faces) - 1] = 1.0
        return Dice(centers=c, boxes=np.concatenate([c - 11, c + 11], 1), face=list(faces),
                    face_probs=probs, pip_face=list(faces), tilt=np.zeros(n),
                    stacked=np.zeros(n), det_score=np.ones(n))

    def read(self, image: np.ndarray):
        return self._dice(image, self.faces[:self.first])

    def recount(self, image: np.ndarray, dice, expected: int):
        self.closer_calls, self.expected = self.closer_calls + 1, expected
        return self._dice(image, self.faces)


def _roll(tmp_path, kit, reader, expect: Expect) -> dict:
    svc = SimpleNamespace(url="http://127.0.0.1:9")
    cfg = kit.config(tmp_path, svc, kit.TABLE, kit.DEVICE, "s" * 32, tmp_path)
    image = np.random.default_rng(0).integers(0, 255, (240, 320, 3), np.uint8)
    frame = Frame(t=1.0, wall=1_700_000_000.0, image=image, grey=None, label="f")
    return json.loads(Reading(cfg, reader=reader).roll(frame, expect, 1).body)


def test_a_short_frame_is_looked_at_closer_and_called_on_what_it_finds(tmp_path, kit):
    reader = _Merged((3, 4))
    body = _roll(tmp_path, kit, reader, Expect(dice=2, phase="throw"))
    assert reader.closer_calls == 1 and reader.expected == 2  # the roll's count
    assert body["verdict"] == "valid" and sorted(body["faces"]) == [3, 4]


def test_a_frame_with_the_dice_expected_is_not_looked_at_again(tmp_path, kit):
    reader = _Merged((5, 2), first=2)
    body = _roll(tmp_path, kit, reader, Expect(dice=2, phase="throw"))
    assert reader.closer_calls == 0
    assert sorted(body["faces"]) == [2, 5]


def test_still_short_after_the_closer_look_is_a_no_roll(tmp_path, kit):
    reader = _Merged((6,))
    body = _roll(tmp_path, kit, reader, Expect(dice=2, phase="throw"))
    assert reader.closer_calls == 1
    assert body["verdict"] == "no_roll"
    assert {r["code"] for r in body["reasons"]} == {"die_missing"}
