"""bench/tune_verdicts.py: the cascade's tilt doubt reaches the runtime it reads with."""

import pickle
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bench_verdicts as bv
import tune_verdicts as tv

from dicecall.vision.config import ReaderConfig


def _run(monkeypatch, data: Path, reads: Path, sure_tilt: str) -> None:
    monkeypatch.setattr(sys, "argv", ["tune_verdicts.py", "--data", str(data), "--tilt", "0.05",
                                      "--stacked", "0.7", "--no-roll-tilt", "0.025",
                                      "--sure-tilt", sure_tilt, "--reads", str(reads)])
    tv.main()


def test_sure_tilt_keeps_one_runtime_per_value(tmp_path, monkeypatch, capsys):
    """The Props & Hops line and the one-view shortcut's tilt line are chosen together
    (docs/verdicts.md, rule 19): each `--sure-tilt` must read with its own runtime and keep
    its reads apart, or the sweep compares one runtime with itself."""
    data = tmp_path / "suite"
    monkeypatch.setattr(sys, "argv", ["bench_verdicts.py", "--count", "1", "--seed", "9100",
                                      "--width", "320", "--height", "240", "--data", str(data)])
    bv.main()
    reads = tmp_path / "reads.pkl"
    _run(monkeypatch, data, reads, "0.0")
    _run(monkeypatch, data, reads, "1.0")
    saved = pickle.loads(reads.read_bytes())
    assert len(saved) == 2
    for value in (0.0, 1.0):
        doubt = tv._doubt(ReaderConfig(sure_tilt=value))
        assert sum(doubt in key for key in saved) == 1
    assert "valid called valid" in capsys.readouterr().out


def test_game_filter_and_the_steep_band_grid(tmp_path, monkeypatch, capsys):
    """`--game` tallies one game's rolls only (rule 20 is chosen on Props & Hops alone), and
    each `--steep-line` value is a row of the grid."""
    data = tmp_path / "suite"
    monkeypatch.setattr(sys, "argv", ["bench_verdicts.py", "--count", "2", "--seed", "9100",
                                      "--width", "320", "--height", "240", "--data", str(data)])
    bv.main()
    capsys.readouterr()
    rows = {}
    for game in (None, "props-and-hops"):
        monkeypatch.setattr(sys, "argv", ["tune_verdicts.py", "--data", str(data), "--tilt",
                                          "0.05", "--stacked", "0.7", "--steep-line", "0,0.2",
                                          "--shallow-reach", "0.9",
                                          "--reads", str(tmp_path / "reads.pkl")]
                            + ([] if game is None else ["--game", game]))
        tv.main()
        lines = capsys.readouterr().out.splitlines()[1:]
        assert len(lines) == 2 and [line.split()[-16] for line in lines] == ["0.0", "0.2"]
        assert [line.split()[-15] for line in lines] == ["0.0", "0.0"]  # rule 34's floor, off
        assert [line.split()[-5] for line in lines] == ["0.9", "0.9"]  # rule 46's floor
        assert [line.split()[-3] for line in lines] == ["1", "1"]  # rule 62's switch, on
        assert [line.split()[-2] for line in lines] == ["0.7", "0.7"]  # rule 63's line, on
        assert [line.split()[-1] for line in lines] == ["0.6", "0.6"]  # rule 64's line, on
        # the "of" columns: unsafe rolls, then good rolls
        rows[game] = [int(line.split()[-13]) + int(line.split()[-11]) for line in lines]
        # rule 43's sure line, rule 44's switch, and the no-roll calls of each kind of roll
        sure, _, unsafe_off, good_off = lines[0].split()[-9:-5]
        assert float(sure) == 0.5 and int(unsafe_off) + int(good_off) <= rows[game][0]
    assert rows["props-and-hops"] == [2, 2]  # the two shaker scenes
    assert rows[None] == [6, 6]


def test_scenes_reads_only_the_named_folders(tmp_path, monkeypatch, capsys):
    """A Props & Hops line is chosen on shaker scenes alone: `--scenes shaker` reads a suite
    that has no throw box or craps folder, keeps its reads apart from a whole suite's, and
    refuses a folder name the suite cannot have."""
    data = tmp_path / "suite"
    monkeypatch.setattr(sys, "argv", ["bench_verdicts.py", "--count", "2", "--seed", "9100",
                                      "--width", "320", "--height", "240", "--data", str(data)])
    bv.main()
    shaker_only = tmp_path / "shaker_only"
    shaker_only.mkdir()
    (data / "shaker").rename(shaker_only / "shaker")
    capsys.readouterr()
    reads = tmp_path / "reads.pkl"
    monkeypatch.setattr(sys, "argv", ["tune_verdicts.py", "--data", str(shaker_only), "--tilt",
                                      "0.05", "--stacked", "0.7", "--scenes", "shaker",
                                      "--reads", str(reads)])
    tv.main()
    line = capsys.readouterr().out.splitlines()[1]
    assert int(line.split()[-13]) + int(line.split()[-11]) == 2  # the two shaker scenes
    (key,) = pickle.loads(reads.read_bytes())
    assert ("scenes", ("shaker",)) in key
    monkeypatch.setattr(sys, "argv", ["tune_verdicts.py", "--data", str(shaker_only),
                                      "--scenes", "shaker,dice"])
    with pytest.raises(SystemExit):
        tv.main()
    assert "dice is not one of" in capsys.readouterr().err


def test_any_verdict_line_sweeps_and_a_wrong_one_is_refused(tmp_path, monkeypatch, capsys):
    """`--verdict FIELD=V,..` (rule 67's judge) adds a row per value, named at the row's end,
    from the same reads; a field the config lacks or a value it refuses stops the run
    before any scene is read."""
    data = tmp_path / "suite"
    monkeypatch.setattr(sys, "argv", ["bench_verdicts.py", "--count", "1", "--seed", "9100",
                                      "--width", "320", "--height", "240", "--data", str(data)])
    bv.main()
    capsys.readouterr()
    reads = tmp_path / "reads.pkl"
    monkeypatch.setattr(sys, "argv", ["tune_verdicts.py", "--data", str(data), "--tilt",
                                      "0.05", "--stacked", "0.7", "--reads", str(reads),
                                      "--verdict", "edge_counts=0,1",
                                      "--verdict", "zone_edge_line=0.1"])
    tv.main()
    lines = capsys.readouterr().out.splitlines()[1:]
    assert [line.split()[-2:] for line in lines] == [
        ["edge_counts=False", "zone_edge_line=0.1"], ["edge_counts=True", "zone_edge_line=0.1"]]
    assert len(pickle.loads(reads.read_bytes())) == 1  # one read serves every row
    for bad, why in (("edge_count=1", "not FIELD=V"), ("edge_counts=2", "edge_counts=2"),
                     ("zone_edge_line=3", "zone_edge_line=3"), ("zone_edge_line", "not")):
        monkeypatch.setattr(sys, "argv", ["tune_verdicts.py", "--data", str(tmp_path / "none"),
                                          "--verdict", bad])
        with pytest.raises(SystemExit):
            tv.main()
        assert why in capsys.readouterr().err
