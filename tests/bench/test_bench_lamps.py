"""bench/bench_lamps.py: Props & Hops scenes with lamp frames, called with and without the
lamps' reading (issue 6)."""

import dataclasses
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bench_lamps as bl


def test_the_suite_reads_the_lamps_and_calls_each_line(tmp_path, monkeypatch, capsys):
    reads = tmp_path / "reads.pkl"
    monkeypatch.setattr(sys, "argv", ["bench_lamps.py", "--seed", "5605", "--count", "4",
                                      "--polarised", "--data", str(tmp_path / "d"),
                                      "--lines", "0,4", "--reads", str(reads),
                                      # a pool forked beside the suite's onnxruntime threads
                                      # can deadlock
                                      "--workers", "1"])
    bl.main()
    assert len(list((tmp_path / "d").glob("shaker_???????.lamp?.jpg"))) == 16
    kept = pickle.loads(reads.read_bytes())
    assert len(kept) == 4
    # every die found has a lamps' reading or NaN, in degrees
    deg = np.concatenate([r["dice"].lamp_tilt for r in kept])
    assert len(deg) and np.all(np.isnan(deg) | ((deg >= 0) & (deg <= 180)))
    out = capsys.readouterr().out
    assert "lamp_cocked_deg 0 (lamps not used)" in out and "lamp_cocked_deg 4:" in out
    assert out.count("valid rolls called valid") == 2
    # line 0 calls every roll as the runtime without lamps calls it
    bare = [{**r, "dice": dataclasses.replace(r["dice"], lamp_tilt=None)} for r in kept]
    assert bl.call(kept, 0.0) == bl.call(bare, 0.0)


def test_scenes_without_lamp_frames_are_refused(tmp_path):
    from dicecall.datasets.generate import GenerateConfig, generate

    generate(GenerateConfig(scene="shaker", count=1, seed=1, workers=1, out=tmp_path),
             progress=False)
    with pytest.raises(SystemExit, match="no lamp frames"):
        bl.read_all(tmp_path)
