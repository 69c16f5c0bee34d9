"""bench/frontier_verdicts.py: the lines chosen at each count let through (issue 6)."""

import pickle
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from dicecall.vision.dice import Dice
from dicecall.vision.verdict import VerdictConfig

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import frontier_verdicts as fv

SHAKER = [(0.0, 0.0), (400.0, 0.0), (400.0, 300.0), (0.0, 300.0)]


def _roll(category: str, tilts: tuple[float, float]):
    """One Props & Hops read as tune_verdicts keeps it: two touching dice, faces 3 and 5 (each
    can lean on the other, so a tilt flag on either is a no roll, 668a.3(h))."""
    n = len(tilts)
    centers = np.array([[100.0, 100.0], [131.0, 100.0]], np.float32)
    probs = np.zeros((n, 6), np.float32)
    probs[0, 2] = probs[1, 4] = 1.0
    dice = Dice(centers=centers, boxes=np.hstack([centers - 15, centers + 15]),
                face=np.array([3, 5]), face_probs=probs, pip_face=np.array([3, 5], np.int8),
                tilt=np.array(tilts, np.float32), stacked=np.zeros(n, np.float32),
                det_score=np.ones(n, np.float32))
    rec = SimpleNamespace(game="props-and-hops", expected_dice=2, zones={"shaker": SHAKER},
                          width=640, height=480, dice=[])  # no labels: no die size
    faces = [] if category == "cocked_ph" else [3, 5]
    return ("shaker", rec, category, faces, dice)


def test_frontier_takes_the_line_that_catches_the_cocked_die_and_passes_the_flat_one():
    """668a.3(h): a cocked die read at tilt 0.03 and a flat one at 0.01. Line 0.02 catches
    the first and passes the second; 0.005 passes nothing, 0.05 lets the cocked die through."""
    suite = [_roll("cocked_ph", (0.03, 0.0)), _roll("valid", (0.01, 0.0))]
    configs = [VerdictConfig(tilt_threshold=0.1, no_roll_tilt_threshold=ph)
               for ph in (0.05, 0.005, 0.02)]  # the looser line first: the tie must be broken
    rows = fv.frontier([suite], configs, most=1)
    k, through, passed, wrong, cfg = rows[0]
    assert (k, through, passed, wrong) == (0, 0, 100.0, 0)
    assert cfg.no_roll_tilt_threshold == 0.02
    # At one let through, 0.05 passes as many good rolls; the safer line is kept.
    assert rows[1][4].no_roll_tilt_threshold == 0.02


def test_suites_are_pooled_and_none_marks_counts_no_line_reaches():
    suite = [_roll("cocked_ph", (0.03, 0.0))]
    rows = fv.frontier([suite, suite], [VerdictConfig(no_roll_tilt_threshold=0.05)], most=2)
    assert [r[1] for r in rows] == [None, None, 2]


def test_a_reads_file_must_hold_exactly_one_matching_runtime(tmp_path):
    key = ("suite", "det", "abc123", 0.2, 0.6, 4)
    saved = {key: ["reads"], (*key[:2], "def456", *key[3:]): ["other"]}
    assert fv.pick(saved, "abc", "f") == ["reads"]
    with pytest.raises(SystemExit, match="2 runtimes match"):
        fv.pick(saved, None, "f")
    (tmp_path / "r.pkl").write_bytes(pickle.dumps(saved))
    with pytest.raises(SystemExit, match="0 runtimes match"):
        fv.pick(fv._load(tmp_path / "r.pkl"), "fff", "r.pkl")


def test_a_runtime_is_picked_by_its_wide_tilt_crop_too():
    """Session 16 keys end with the tilt's wider crop; older keys read without one."""
    old = ("suite", "det", "abc123", 0.2, 0.6, 4, 0.4, 0.5, 0.79, "calibrated", (24.0,))
    saved = {old: ["narrow"], (*old, 2.1): ["wide"]}
    assert fv.pick(saved, "abc", "f", 2.1) == ["wide"]
    assert fv.pick(saved, "abc", "f", 0.0) == ["narrow"]
    with pytest.raises(SystemExit, match="2 runtimes match"):
        fv.pick(saved, "abc", "f")


def test_a_runtime_is_picked_by_its_pip_radius():
    """`tune_verdicts --pip-radius 0.5,0.6` keeps one runtime per radius in one file."""
    key = ("suite", "det", "abc123", 0.2, 0.6, 4, 0.4, 0.5, 0.79, "calibrated", (24.0,),
           0.0, 0.0, 0.0)
    saved = {key: ["0.5"], (*key[:7], 0.6, *key[8:]): ["0.6"]}
    assert fv.pick(saved, "abc", "f", pip_radius=0.6) == ["0.6"]
    assert fv.pick(saved, "abc", "f", pip_radius=0.5) == ["0.5"]
    with pytest.raises(SystemExit, match=r"2 runtimes match.*pips 0\.5"):
        fv.pick(saved, "abc", "f")


def test_a_runtime_is_picked_by_its_one_view_shortcut():
    """`tune_verdicts --sure-tilt` keeps one runtime per shortcut in one file (rule 19)."""
    key = ("suite", "det", "abc123", 0.2, 0.6, 4, 0.4, 0.5, 0.79, "calibrated", (24.0,),
           0.0, 0.0, 0.0)
    doubt = (1, 0.98, 0.03, 0.5, 42.0, 0.8, ("sure_no_die", 0.05))
    low = (*doubt[:2], 0.015, *doubt[3:])
    saved = {(*key, doubt): ["0.03"], (*key, low): ["0.015"], key: ["every view"]}
    assert fv.pick(saved, "abc", "f", sure_tilt=0.015) == ["0.015"]
    assert fv.pick(saved, "abc", "f", sure_tilt=0.03) == ["0.03"]
    with pytest.raises(SystemExit, match=r"3 runtimes match.*sure tilt 0\.015"):
        fv.pick(saved, "abc", "f")


def test_per_game_floor_keeps_the_line_that_holds_props_and_hops():
    """668a.3(h): a cocked Props & Hops die read at tilt 0.03 beside a good roll. The loose
    line (0.05) passes the good roll but catches none of the game's unsafe rolls, so a 99 %
    floor takes the strict line (0.02), which passes the good roll too; with the loose line
    alone no line holds the floor."""
    suite = [_roll("cocked_ph", (0.03, 0.0)), _roll("valid", (0.01, 0.0))]
    configs = [VerdictConfig(tilt_threshold=0.1, no_roll_tilt_threshold=ph)
               for ph in (0.05, 0.02)]
    through, passed, wrong, cfg, caught = fv.per_game_best([suite], configs, 99.0)
    assert cfg.no_roll_tilt_threshold == 0.02
    assert (through, passed, wrong, caught) == (0, 100.0, 0, {"props-and-hops": 100.0})
    assert fv.per_game_best([suite], configs[:1], 99.0) is None

