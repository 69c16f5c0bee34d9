"""bench/bench_verdicts.py: the suite renders at the size asked for (issue 6)."""

import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bench_verdicts as bv


def test_the_suite_renders_at_the_size_asked_and_prints_the_targets(tmp_path, monkeypatch,
                                                                      capsys):
    """The edge reads 1920x1080, not the default 640x480: `--width/--height` must reach
    the generator, or the suite measures another picture than the one asked for."""
    monkeypatch.setattr(sys, "argv", ["bench_verdicts.py", "--count", "1", "--seed", "9100",
                                      "--width", "320", "--height", "240",
                                      "--data", str(tmp_path)])
    bv.main()
    for scene in bv.SCENES:
        frames = list((tmp_path / scene).glob("*.jpg"))
        assert len(frames) == 1
        assert cv2.imread(str(frames[0])).shape[:2] == (240, 320)
    out = capsys.readouterr().out
    assert "unsafe not called valid" in out and "valid rolls called valid" in out
    assert "valid rolls called no roll" in out  # DESIGN's false no-roll target


def test_with_lamps_the_shaker_scenes_carry_lamp_frames_and_props_and_hops_reads_them(
        tmp_path, monkeypatch, capsys):
    """`--lamps 45`: the shaker scenes are the same throws with their lamp frames, and the
    Props & Hops rolls are read with the lamps' reading (rule 65); the other games as ever."""
    from dicecall.datasets.schema import load_folder

    monkeypatch.setattr(sys, "argv", ["bench_verdicts.py", "--count", "1", "--seed", "9100",
                                      "--lamps", "45", "--data", str(tmp_path)])
    bv.main()
    assert len(list((tmp_path / "shaker").glob("*.lamp?.jpg"))) == 4
    assert not list((tmp_path / "craps").glob("*.lamp?.jpg"))
    (path, rec), = load_folder(tmp_path / "shaker")
    dice = bv.with_lamps(bv.GameReaders(None).of(rec).read(
        cv2.imread(str(path.parent / rec.image))), path.parent, rec)
    assert len(dice) and np.isfinite(dice.lamp_tilt).any()  # degrees read off the lamps
    assert "valid rolls called valid" in capsys.readouterr().out


def _die(x, side, **kw):
    from dicecall.datasets.schema import DieLabel

    top = [[x, 0.0], [x + side, 0.0], [x + side, side], [x, side]]
    return DieLabel(face=1, box=[x, 0.0, x + side, side], top_corners=top,
                    **{"in_zone": True, "cocked": False, "stacked": False, **kw})


def test_the_suites_die_size_is_the_smallest_flat_die_in_play():
    """Rule 71's `Zones.die_px` stands in for the calibration's smallest die over the play
    zone: dice raised (on a die, leaning, cocked) or out of play look larger or smaller than
    a die on the floor, so only flat dice in play count."""
    from dicecall.datasets.schema import SceneRecord

    dice = [_die(0, 22.0), _die(40, 20.0), _die(80, 31.0, resting_on=0),
            _die(120, 15.0, leaning_on="wall"), _die(160, 14.0, in_zone=False)]
    dice[3].cocked = True
    rec = SceneRecord(image="", width=320, height=240, dice=dice,
                      zones={"shaker": [[0, 0], [320, 0], [320, 240]]})
    assert bv.die_px_of(rec) == 20.0
    assert bv.zones_of(rec, "shaker").die_px == 20.0
    rec.dice = dice[2:]
    assert bv.die_px_of(rec) is None and bv.zones_of(rec, "shaker").die_px is None
