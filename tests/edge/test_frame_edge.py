"""The edge calls a roll knowing its frame's size: a die the frame's edge may cut, boxed small
against the other, is held for a person (rule 53, docs/verdicts.md session 52)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np

from dicecall.edge.flow import Expect
from dicecall.edge.reading import Reading
from dicecall.edge.sources import Frame

W, H = 320, 240


class _Two:
    """A 3 in the middle and a 1 boxed at `side` px centred at `at` (the other is 22 px)."""

    def __init__(self, at: tuple[float, float], side: float) -> None:
        self.at, self.side = at, side

    def read(self, image: np.ndarray):
        from dicecall.vision.dice import Dice

        c = np.array([[W / 2, H / 2], self.at], np.float32)
        half = np.array([[11.0], [self.side / 2]], np.float32)
        probs = np.zeros((2, 6), np.float32)
        probs[[0, 1], [2, 0]] = 1.0
        return Dice(centers=c, boxes=np.concatenate([c - half, c + half], 1), face=[3, 1],
                    face_probs=probs, pip_face=[3, 1], tilt=np.zeros(2), stacked=np.zeros(2),
                    det_score=np.ones(2))

    def recount(self, image, dice, expected):
        return dice


def _roll(tmp_path, kit, reader) -> dict:
    svc = SimpleNamespace(url="http://127.0.0.1:9")
    cfg = kit.config(tmp_path, svc, kit.TABLE, kit.DEVICE, "s" * 32, tmp_path)
    image = np.random.default_rng(0).integers(0, 255, (H, W, 3), np.uint8)
    frame = Frame(t=1.0, wall=1_700_000_000.0, image=image, grey=None, label="f")
    return json.loads(Reading(cfg, reader=reader).roll(frame, Expect(dice=2, phase="throw"),
                                                       1).body)


def test_a_small_die_cut_by_the_frames_edge_holds_the_roll(tmp_path, kit):
    body = _roll(tmp_path, kit, _Two((W - 6.0, 60.0), 14.0))
    assert body["verdict"] == "needs_review"
    assert "die_partly_hidden" in {r["code"] for r in body["reasons"]}


def test_the_same_die_inside_the_frame_is_called(tmp_path, kit):
    body = _roll(tmp_path, kit, _Two((W - 60.0, 60.0), 14.0))
    assert body["verdict"] == "valid" and sorted(body["faces"]) == [1, 3]
