"""`models export` is all or nothing: every file is written to a temporary folder and moved
into --out together at the end, so a failure partway leaves --out as it was (DESIGN: bad
input gets a clear error and loses nothing). The checkpoints are untrained nets: no test
here trains."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from dicecall.models import export  # noqa: E402
from dicecall.models.nets import Detector, Reader  # noqa: E402

OLD = {name: f"old {name}".encode() for name in (
    "detector.onnx", "detector.int8.onnx", "detector.card.md",
    "reader.onnx", "reader.int8.onnx", "reader.card.md")}


def _run(root: Path, *stages: str) -> Path:
    """A run folder whose stages hold an untrained net's checkpoint as `models train` saves."""
    for stage in stages:
        torch.manual_seed(0)
        net = Detector() if stage == "detector" else Reader()
        (root / stage).mkdir(parents=True)
        torch.save({"model": net.state_dict(), "epoch": 1, "best": 0.0},
                   root / stage / "best.pt")
    return root


def _contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_a_failure_after_the_detector_leaves_out_as_it_was(
        toy_yolo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader's stage fails once the detector's files are made: before, a new
    detector.onnx, detector.int8.onnx and detector.card.md stood beside the old reader's."""
    run = _run(tmp_path / "run", "detector", "reader")
    out = tmp_path / "out"
    out.mkdir()
    for name, data in OLD.items():
        (out / name).write_bytes(data)

    def fails(*args, **kw):
        raise RuntimeError("the reader's calibration failed")

    monkeypatch.setattr(export, "reader_calibration", fails)
    with pytest.raises(RuntimeError, match="calibration failed"):
        export.export_all(run, out, [toy_yolo])
    assert _contents(out) == OLD


def test_a_failed_export_into_a_new_folder_leaves_no_folder(
        toy_yolo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = _run(tmp_path / "run", "detector")

    def fails(*args, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(export, "write_card", fails)
    with pytest.raises(KeyboardInterrupt):
        export.export_all(run, tmp_path / "new" / "out", [toy_yolo])
    assert not (tmp_path / "new").exists()


def test_an_export_replaces_its_stage_files_and_leaves_the_others(
        toy_yolo: Path, tmp_path: Path) -> None:
    run = _run(tmp_path / "run", "detector")
    out = tmp_path / "out"
    out.mkdir()
    for name, data in OLD.items():
        (out / name).write_bytes(data)
    report = export.export_all(run, out, [toy_yolo])
    now = _contents(out)
    assert sorted(now) == sorted(OLD)  # no temporary file or folder left
    assert {k: v for k, v in now.items() if k.startswith("reader.")} == \
        {k: v for k, v in OLD.items() if k.startswith("reader.")}
    for name in ("detector.onnx", "detector.int8.onnx"):
        assert export.sha256(out / name) == report[name]["sha256"]
    assert report["detector.int8.onnx"]["sha256"] in now["detector.card.md"].decode()


def test_both_stages_replace_all_six_files_the_reader_calibrated_behind_the_new_detector(
        toy_yolo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = _run(tmp_path / "run", "detector", "reader")
    out = tmp_path / "out"
    out.mkdir()
    for name, data in OLD.items():
        (out / name).write_bytes(data)
    behind = []
    real = export.reader_calibration

    def calibration(samples, detector):
        behind.append(Path(detector).read_bytes())  # the file as it is while the reader is made
        return real(samples, detector)

    monkeypatch.setattr(export, "reader_calibration", calibration)
    report = export.export_all(run, out, [toy_yolo])
    now = _contents(out)
    assert sorted(now) == sorted(OLD) and not set(now.values()) & set(OLD.values())
    assert all(export.sha256(out / n) == report[n]["sha256"] for n in OLD if "onnx" in n)
    assert behind == [now["detector.onnx"]]


def test_replace_together_puts_the_old_files_back_when_a_move_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from dicecall.outpaths import replace_together

    new, out, spare = tmp_path / "new", tmp_path / "out", tmp_path / "spare"
    for d in (new, out, spare):
        d.mkdir()
    for name in ("a", "b", "c"):
        (new / name).write_text(f"new {name}")
    (out / "a").write_text("old a")
    (out / "c").write_text("old c")
    real = os.replace

    def flaky(src, dst):
        if Path(src) == new / "c":  # the last new file cannot be moved in
            raise OSError("disk full")
        real(src, dst)

    monkeypatch.setattr(os, "replace", flaky)
    with pytest.raises(OSError, match="disk full"):
        replace_together([(new / n, out / n) for n in ("a", "b", "c")], spare)
    monkeypatch.setattr(os, "replace", real)
    assert _contents(out) == {"a": b"old a", "c": b"old c"}
    assert not any(spare.iterdir())
