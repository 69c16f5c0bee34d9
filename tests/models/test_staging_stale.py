"""Staging folders (`.dicecall-tmp-*`, dicecall/outpaths.py) that a kill -9 left behind
are removed by the next export or quantize into the same folder, said in one line on
stderr; one of a running command never is, however old."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dicecall import outpaths
from dicecall.outpaths import staging

# Enters a staging folder in argv[1], writes part of an export, says so, then waits for a
# line on stdin (a running export) or, given "kill", dies by SIGKILL in the middle.
EXPORT = """
import os, signal, sys
from pathlib import Path
from dicecall.outpaths import staging
with staging(Path(sys.argv[1])) as tmp:
    (tmp / "made").mkdir()
    (tmp / "made" / "reader.int8.onnx").write_bytes(b"half a model")
    print(tmp.name, flush=True)
    if sys.argv[2] == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    sys.stdin.readline()
"""


def _export(out: Path, how: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.Popen([sys.executable, "-c", EXPORT, str(out), how], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def _backdate(path: Path, seconds: float) -> None:
    """Everything in `path`, itself included, last changed `seconds` ago."""
    then = time.time() - seconds
    for p in [path, *path.rglob("*")]:
        os.utime(p, (then, then), follow_symlinks=False)


def test_a_running_exports_folder_is_kept_and_once_killed_removed(tmp_path, capsys):
    """Before, every kill -9 during an export left its .dicecall-tmp-* folder, a partial
    model in it, for good."""
    out = tmp_path / "models"
    running = _export(out, "wait")
    try:
        name = running.stdout.readline().strip()
        _backdate(out / name, 2 * 86400)  # old, but its export still runs
        with staging(out):
            pass
        assert (out / name / "made" / "reader.int8.onnx").is_file()
        assert capsys.readouterr().err == ""
    finally:
        running.kill()  # kill -9 in the middle of it
        running.wait()
    assert running.returncode == -signal.SIGKILL and (out / name).is_dir()
    _backdate(out / name, 120)
    with staging(out) as tmp:
        assert sorted(p.name for p in out.iterdir()) == [tmp.name]
    assert not list(out.iterdir())
    assert capsys.readouterr().err == (
        f"removed 1 stale staging folder in {out} (left by an export or quantize that did "
        f"not finish): {name} (process {running.pid} gone)\n")


def test_a_killed_exports_folder_is_removed_by_the_next(tmp_path, capsys):
    out = tmp_path / "models"
    (out / "keep.onnx").parent.mkdir()
    (out / "keep.onnx").write_bytes(b"a model")
    killed = _export(out, "kill")
    name = killed.stdout.readline().strip()
    killed.wait()
    _backdate(out / name, 120)
    with staging(out):
        pass
    assert [p.name for p in out.iterdir()] == ["keep.onnx"]
    assert f"{name} (process {killed.pid} gone)" in capsys.readouterr().err


def test_one_killed_a_moment_ago_is_left_until_it_is_a_minute_old(tmp_path, capsys):
    # its owner file may have been made an instant before its lock was taken
    out = tmp_path / "models"
    killed = _export(out, "kill")
    name = killed.stdout.readline().strip()
    killed.wait()
    with staging(out):
        pass
    assert (out / name).is_dir() and capsys.readouterr().err == ""


def test_a_folder_with_no_lock_to_ask_is_removed_after_a_day_untouched(tmp_path, capsys):
    """Made by the code before the lock (or on a file system without locks)."""
    out = tmp_path / "models"
    for name in ("old", "recent", "touched"):
        (out / f".dicecall-tmp-{name}" / "made").mkdir(parents=True)
        (out / f".dicecall-tmp-{name}" / "made" / "detector.onnx").write_bytes(b"half")
    _backdate(out / ".dicecall-tmp-old", 25 * 3600)
    _backdate(out / ".dicecall-tmp-recent", 2 * 3600)
    _backdate(out / ".dicecall-tmp-touched", 25 * 3600)
    os.utime(out / ".dicecall-tmp-touched" / "made" / "detector.onnx")  # written just now
    with staging(out) as tmp:
        left = sorted(p.name for p in out.iterdir() if p != tmp)
    assert left == [".dicecall-tmp-recent", ".dicecall-tmp-touched"]
    assert capsys.readouterr().err == (
        f"removed 1 stale staging folder in {out} (left by an export or quantize that did "
        "not finish): .dicecall-tmp-old (untouched for 25 h)\n")


def test_this_processs_own_staging_is_never_stale(tmp_path, capsys, monkeypatch):
    """export_all's staging holds quantize's; a second one in the same folder must not
    take the first for a dead command's."""
    monkeypatch.setattr(outpaths, "OWNER_GRACE_S", 0.0)
    out = tmp_path / "models"
    with staging(out) as first:
        (first / "detector.onnx").write_bytes(b"made")
        _backdate(first, 2 * 86400)
        with staging(out) as second:
            assert first.is_dir() and second.is_dir() and first != second
    assert capsys.readouterr().err == ""


def test_quantize_removes_a_killed_runs_folder_beside_its_output(
        toy_yolo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    pytest.importorskip("torch")
    import onnxruntime.quantization as ortq

    from dicecall.models.data import load_folder
    from dicecall.models.export import calibration_inputs, quantize

    models = Path(__file__).resolve().parents[2] / "models"
    out = tmp_path / "models" / "detector.int8.onnx"
    killed = _export(out.parent, "kill")
    name = killed.stdout.readline().strip()
    killed.wait()
    _backdate(out.parent / name, 120)

    def quick(model_input, model_output, *args, **kw):  # the calibration is not under test
        Path(model_output).write_bytes(b"an INT8 model")

    monkeypatch.setattr(ortq, "quantize_static", quick)
    frames = calibration_inputs(load_folder(toy_yolo), images=2, crops=4)[0]
    quantize(models / "detector.onnx", out, {"image": frames})
    assert [p.name for p in out.parent.iterdir()] == [out.name]
    assert f"{name} (process {killed.pid} gone)" in capsys.readouterr().err
