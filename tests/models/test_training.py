"""A tiny training run is reproducible from the seed, and resumes (needs torch)."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from dicecall.models.data import load_folder  # noqa: E402
from dicecall.models.det_train import train_detector  # noqa: E402
from dicecall.models.read_train import train_reader  # noqa: E402
from dicecall.models.trainloop import setup_torch  # noqa: E402


def _weights(path: Path) -> dict:
    return torch.load(path, map_location="cpu", weights_only=False)["model"]


def _same(a: dict, b: dict) -> bool:
    return all(torch.equal(a[k], b[k]) for k in a)


def test_detector_run_is_reproducible(toy_yolo: Path, tmp_path: Path) -> None:
    setup_torch(1)
    data = load_folder(toy_yolo)
    for run in ("a", "b"):
        train_detector(data, data[:1], tmp_path / run, epochs=1, seed=3, resume=False,
                       batch_size=2)
    assert _same(_weights(tmp_path / "a" / "last.pt"), _weights(tmp_path / "b" / "last.pt"))
    train_detector(data, data[:1], tmp_path / "c", epochs=1, seed=4, resume=False, batch_size=2)
    assert not _same(_weights(tmp_path / "a" / "last.pt"), _weights(tmp_path / "c" / "last.pt"))


def test_reader_resume_equals_uninterrupted_run(toy_yolo: Path, tmp_path: Path) -> None:
    setup_torch(1)
    data = load_folder(toy_yolo)
    train_reader(data, data, tmp_path / "full", epochs=2, seed=5, resume=False, batch_size=4)
    train_reader(data, data, tmp_path / "part", epochs=2, seed=5, resume=False, batch_size=4,
                 stop_after=1)
    train_reader(data, data, tmp_path / "part", epochs=2, seed=5, resume=True, batch_size=4)
    assert _same(_weights(tmp_path / "full" / "last.pt"), _weights(tmp_path / "part" / "last.pt"))
