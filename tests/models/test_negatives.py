"""The reader's negatives: places that are not dice, never on a die the labels know of."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from dicecall.models.data import load_folder
from dicecall.models.negatives import MINED_AWAY, RANDOM_AWAY, image_negatives, mine

pytest.importorskip("torch")
from dicecall.models.crops import build_cache
from dicecall.models.read_train import reader_loss


def _scene(folder: Path, boxes: list, visible: list) -> None:
    """One synthetic-layout scene: a grey image and dice with the given visibility."""
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / "s.jpg"), np.full((240, 320, 3), 90, np.uint8))
    dice = [{"box": b, "face": 3, "visible": v, "stacked": False, "cocked": False}
            for b, v in zip(boxes, visible, strict=True)]
    (folder / "s.json").write_text(json.dumps({"image": "s.jpg", "dice": dice}))


def test_mined_places_skip_labelled_and_hidden_dice(tmp_path: Path) -> None:
    # Die 2 is 10 % visible: left out of the labels, but it is still a die.
    _scene(tmp_path / "syn", [[40, 40, 60, 60], [200, 100, 220, 120]], [1.0, 0.1])
    (sample,) = load_folder(tmp_path / "syn")
    assert len(sample.faces) == 1
    peaks = np.array([[50, 50, 20, 20, 0.9],    # on the labelled die
                      [211, 109, 20, 20, 0.8],  # on the hidden die
                      [120, 180, 20, 20, 0.5]],  # on nothing: a negative
                     np.float32)
    negs = image_negatives(sample, np.zeros((240, 320, 3), np.uint8), lambda f: peaks,
                           np.random.default_rng(0))
    mined = negs[np.isclose(negs[:, 2], 20)]
    assert mined[:, :2].tolist() == [[120, 180]]
    centres = np.array([[50, 50], [210, 110]])
    d = np.linalg.norm(negs[:, None, :2] - centres[None], axis=2)
    assert (d > min(MINED_AWAY, RANDOM_AWAY) * 20).all()


def test_a_real_photo_place_that_reads_as_a_die_is_skipped(toy_yolo: Path) -> None:
    samples = load_folder(toy_yolo)[:2]
    peak = np.array([[5, 5, 10, 10, 0.9]], np.float32)  # a corner, away from the toy dice
    kept = mine(samples, lambda f: peak, 0)
    skipped = mine(samples, lambda f: peak, 0, looks_like_die=lambda f, p: np.ones(len(p), bool))
    assert all((k[:, :2] == [5, 5]).all(1).any() for k in kept)
    assert not any((k[:, :2] == [5, 5]).all(1).any() for k in skipped)


def test_a_negative_trains_only_the_die_head(toy_yolo: Path) -> None:
    import torch

    from dicecall.models.nets import Reader
    from dicecall.models.read_train import make_batch

    samples = load_folder(toy_yolo)[:2]
    cache = build_cache(samples, mine(samples, lambda f: np.zeros((0, 5), np.float32), 0))
    neg = np.nonzero(cache.is_die < 0.5)[0]
    assert len(neg) and np.isnan(cache.tilt[neg]).all() and np.isnan(cache.pips[neg]).all()
    batch = make_batch(cache, neg, np.random.default_rng(0))
    model = Reader()
    loss, parts = reader_loss(model, batch)
    loss.backward()
    assert parts["face"] == parts["pip"] == parts["tilt"] == parts["stacked"] == 0.0
    assert parts["die"] > 0
    assert model.face.weight.grad is None or torch.all(model.face.weight.grad == 0)
    assert model.die.weight.grad.abs().sum() > 0


def test_sweep_counts_what_each_threshold_pair_keeps(toy_yolo: Path) -> None:
    from dicecall.models.evaluate import sweep_thresholds

    (sample,) = load_folder(toy_yolo)[:1]
    truth = np.column_stack([sample.centres, np.full((len(sample.faces), 2), 10.0),
                             np.full(len(sample.faces), 0.9)]).astype(np.float32)
    chip = np.array([[2, 2, 10, 10, 0.3]], np.float32)  # not on any die
    dets = np.vstack([truth, chip])
    faces = np.append(sample.faces, 1)
    faces[0] = faces[0] % 6 + 1  # one die read wrong
    die = np.append(np.full(len(sample.faces), 0.9), 0.2).astype(np.float32)
    rows = sweep_thresholds([sample], lambda f: dets, [0.1, 0.5],
                            lambda f, d: (faces, die), (0.0, 0.5))
    got = {(r["threshold"], r["die_threshold"]): r for r in rows}
    n = len(sample.faces)
    assert got[0.1, 0.0]["false_per_image"] == 1 and got[0.1, 0.5]["false_per_image"] == 0
    assert got[0.5, 0.0]["false_per_image"] == 0
    assert all(r["found_rate"] == 1.0 for r in rows)
    assert got[0.1, 0.5]["read_rate"] == (n - 1) / n
