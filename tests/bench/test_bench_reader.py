"""bench/bench_reader.py: the target table of issue 5; here only its refusal of bad input."""

import subprocess
import sys
from pathlib import Path


def test_bench_reader_refuses_a_synth_folder_without_its_test_sets(tmp_path):
    """Without test-{throwbox,shaker,craps} the synthetic rows and the frame timings would
    be left out of the table without a word."""
    (tmp_path / "test-throwbox").mkdir()
    bench = Path(__file__).resolve().parents[2] / "bench" / "bench_reader.py"
    res = subprocess.run([sys.executable, str(bench), "--synth", str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2
    assert "no test-shaker, test-craps" in res.stderr


def test_unseen_rows_hold_only_held_out_styles_and_are_judged_at_the_real_photo_target(
        tmp_path):
    """The unseen-styles rows stand for the held-out real set (DESIGN: 99 % on real photos of
    unseen styles): their scenes must hold no die of a training style."""
    import pytest

    pytest.importorskip("pybullet")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from bench_reader import UNSEEN, _generate_unseen

    from dicecall.datasets.schema import load_folder
    from dicecall.datasets.styles import UNSEEN_STYLES

    rows = _generate_unseen(tmp_path, 2, workers=1)
    assert [name for name, _, _ in rows] == [f"unseen styles {s}" for s, _ in UNSEEN]
    for _, folders, target in rows:
        assert target["read"] == 0.99
        styles = {d.style for f in folders for _, rec in load_folder(f) for d in rec.dice}
        assert styles and styles <= set(UNSEEN_STYLES)


def test_the_camera_size_rows_are_the_same_scenes_three_times_wider(tmp_path):
    """`--unseen-hd` reads the held-out scenes at the camera's size (rule 52): the same dice,
    faces and styles as the 640x480 rows, their boxes 3x wider, so a difference between
    the rows is the size alone."""
    import pytest

    pytest.importorskip("pybullet")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from bench_reader import UNSEEN, _generate_unseen

    from dicecall.datasets.schema import load_folder

    small = _generate_unseen(tmp_path / "s", 1, workers=1)
    large = _generate_unseen(tmp_path / "l", 1, workers=1, size=(1920, 1440))
    assert [name for name, _, _ in large] == [f"unseen styles {s} 1920x1440" for s, _ in UNSEEN]
    for (_, fs, _), (_, fl, tl) in zip(small, large, strict=True):
        assert tl["game"] is None
        (_, a), = load_folder(fs[0])
        (_, b), = load_folder(fl[0])
        assert (b.width, b.height) == (1920, 1440)
        assert [(d.face, d.style) for d in a.dice] == [(d.face, d.style) for d in b.dice]
        for da, db in zip(a.dice, b.dice, strict=True):
            wa, wb = da.box[2] - da.box[0], db.box[2] - db.box[0]
            assert wb == pytest.approx(3 * wa, rel=0.05)


def test_a_row_is_judged_on_every_target_it_has():
    """Issue 5 asks real photos for 99 % read right and at most 0.02 false dice an image, and
    synthetic scenes for 99.5 % cocked and stacked recall as well: a row that reads right but
    finds false dice, or misses a flag, must not read "ok"."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from bench_reader import missed

    real = {"read": 0.99, "false": 0.02}
    assert missed({"read": 0.996, "false": 0.02, "cocked": None, "stacked": None}, real) == []
    assert missed({"read": 0.996, "false": 0.081, "cocked": None, "stacked": None},
                  real) == ["false"]
    synth = {"read": 0.999, "flags": 0.995, "counts": True}
    assert missed({"read": 0.9995, "false": 0.5, "cocked": 1.0, "stacked": None}, synth) == []
    assert missed({"read": 0.9885, "false": 0.0, "cocked": 1.0, "stacked": 0.449},
                  synth) == ["read", "flags"]


def test_the_latency_frames_at_the_camera_size_are_the_edge_s_frames(tmp_path):
    """The latency target is frame in -> verdict on a table: the edge reads its camera's main
    stream (1920x1080 by default), not the 640x480 test frames, so `--camera` times the same
    throws at that size, one craps and one throw box folder."""
    import pytest

    pytest.importorskip("pybullet")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from bench_reader import _generate_camera

    from dicecall.datasets.schema import load_folder
    from dicecall.edge.config import Picamera2Source

    out = _generate_camera(tmp_path, 1)
    assert sorted(p.name for p in out.iterdir()) == ["camera-craps", "camera-throwbox"]
    want = tuple(Picamera2Source(kind="picamera2").main_size)
    for folder in out.iterdir():
        (_, rec), = load_folder(folder)
        assert (rec.width, rec.height) == want == (1920, 1080)
        assert rec.dice


def test_the_counting_reader_reads_a_frame_short_of_its_count():
    """`evaluate` reads each scene with its expected count, so a frame short of it takes the
    faint look (rule 66), which calls the detector with its lower line: the bench's counting
    wrapper must pass it on (it did not from session 62 until 63, and the table crashed)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from bench_reader import _reader, accuracy

    from dicecall.vision.config import ReaderConfig

    models = Path(__file__).resolve().parents[2] / "models"
    faint = Path(__file__).resolve().parents[1] / "data" / "faint"
    reader = _reader(models, "fp32", threads=1, views=ReaderConfig().views)
    calls = []
    real = reader._look  # under the wrapper: every look, with its line
    reader._look = lambda image, shrink=1.0, threshold=None: (
        calls.append(threshold), real(image, shrink, threshold))[1]
    row = accuracy(reader, [faint])
    assert row["dice"] == 12 and ReaderConfig().faint_det in calls
    # Its crops are the reader's cost on such a frame, not views of the dice found.
    assert reader.faint_crops > 0
    assert row["views"] is not None and 1.0 <= row["views"] <= ReaderConfig().views
