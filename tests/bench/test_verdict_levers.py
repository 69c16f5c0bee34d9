"""bench/verdict_levers.py: replacing one reading by the truth, per game (issue 6)."""

import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from dicecall.vision.dice import Dice

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import verdict_levers as vl

SHAKER = [(0.0, 0.0), (400.0, 0.0), (400.0, 300.0), (0.0, 300.0)]


def _label(box, face: int, cocked: bool = False):
    return SimpleNamespace(box=box, face=face, cocked=cocked, stacked=False,
                           up_margin_deg=None, top_corners=None)  # no die size


def _read(game: str, tilt: float):
    """Two touching flat dice, faces 3 and 5, read right; the first read at `tilt`."""
    centers = np.array([[100.0, 100.0], [131.0, 100.0]], np.float32)
    probs = np.zeros((2, 6), np.float32)
    probs[0, 2] = probs[1, 4] = 1.0
    dice = Dice(centers=centers, boxes=np.hstack([centers - 15, centers + 15]),
                face=np.array([3, 5]), face_probs=probs, pip_face=np.array([3, 5], np.int8),
                tilt=np.array([tilt, 0.0], np.float32), stacked=np.zeros(2, np.float32),
                det_score=np.ones(2, np.float32))
    labels = [_label([85, 85, 115, 115], 3), _label([116, 85, 146, 115], 5)]
    rec = SimpleNamespace(game=game, expected_dice=2, zones={"shaker": SHAKER}, dice=labels,
                          width=640, height=480)
    return ("shaker", rec, "valid", [3, 5], dice)


def test_a_false_tilt_flag_holds_a_props_and_hops_roll_until_the_tilt_is_the_truth():
    """668a.3(h): a flat die read at tilt 0.9 beside the other is a no roll as read; with the
    tilt replaced by its label (flat) the roll is valid. Only that lever moves it."""
    rows = vl.lever_rows([_read("props-and-hops", 0.9)])
    ph = {name: per["props-and-hops"] for name, per in rows.items()}
    assert ph["as read"]["good"] == 1 and ph["as read"]["passed"] == 0
    assert ph["tilt"]["passed"] == 1 and ph["all"]["passed"] == 1
    assert ph["pips"]["passed"] == 0 and ph["stacked"]["passed"] == 0
    held = vl.held_by([_read("props-and-hops", 0.9)])
    assert held["props-and-hops"]["cocked"] == 1


def test_high_roll_variants_share_a_column():
    assert vl.game_of(SimpleNamespace(game="high-roll-dice-6")) == "high-roll"
    assert vl.game_of(SimpleNamespace(game="craps")) == "craps"


def test_held_by_size_counts_craps_dice_held_for_their_face_by_their_width():
    """A 30 px die read at p 0.9 (under the 0.98 line) and a 31 px one whose pips count
    another number are held; a Props & Hops read is not counted; a die whose label is
    cocked is left out."""
    _, rec, category, faces, dice = _read("craps", 0.0)
    dice = Dice(**{**dice.__dict__, "face_probs": np.array(
        [[0, 0, 0.9, 0.02, 0.08, 0], [0, 0, 0, 0, 1, 0]], np.float32),
        "pip_face": np.array([3, 4], np.int8)})
    labels = [SimpleNamespace(**{**vars(d), "visible": 1.0}) for d in rec.dice]
    craps = ("craps", SimpleNamespace(**{**vars(rec), "dice": labels}), category, faces, dice)
    bands = vl.held_by_size([craps], 0.98)
    assert bands[24]["dice"] == 2 and bands[24]["held"] == 2 and bands[24]["wrong"] == 0
    cocked = [labels[0], SimpleNamespace(**{**vars(labels[1]), "cocked": True})]
    one = ("craps", SimpleNamespace(**{**vars(rec), "dice": cocked}), category, faces, dice)
    assert vl.held_by_size([one], 0.98)[24]["dice"] == 1
    ph = _read("props-and-hops", 0.0)
    assert not vl.held_by_size([(*ph[:1], SimpleNamespace(**{**vars(ph[1]), "dice": labels}),
                                 *ph[2:])], 0.98)
