"""The `Dice` dataclass checks shapes and selects by mask (DESIGN.md, data flow)."""

from __future__ import annotations

import numpy as np
import pytest

from dicecall.vision.dice import Dice


def make(n: int) -> Dice:
    probs = np.full((n, 6), 0.02, np.float32)
    probs[np.arange(n), np.arange(n) % 6] = 0.9
    return Dice(centers=np.arange(2 * n, dtype=np.float32).reshape(n, 2),
                boxes=np.tile(np.array([0, 0, 10, 10], np.float32), (n, 1)),
                face=np.arange(n) % 6 + 1, face_probs=probs, pip_face=np.arange(n) % 6 + 1,
                tilt=np.zeros(n), stacked=np.linspace(0, 1, n), det_score=np.ones(n))


def test_shape_mismatch_names_the_field_and_shapes():
    d = make(3)
    with pytest.raises(ValueError, match=r"Dice.boxes: expected shape \(3, 4\), got \(3, 3\)"):
        Dice(**{**d.__dict__, "boxes": np.zeros((3, 3))})


def test_mask_selection_keeps_rows_together():
    d = make(4)
    sub = d[d.stacked > 0.5]
    assert len(sub) == 2
    assert sub.face.tolist() == [3, 4] and sub.centers[0].tolist() == [4.0, 5.0]


def test_confidence_and_json_contract():
    d = make(2)
    assert np.allclose(d.confidence, 0.9)
    out = d.to_json()
    assert set(out[0]) >= {"x", "y", "w", "h", "face", "confidence", "tilted", "stacked"}
    assert out[1]["face"] == 2 and out[0]["w"] == 10.0


def test_empty_and_concat():
    assert len(Dice.concat([make(2), Dice.empty(), make(1)])) == 3


def test_up_margin_is_optional_and_shape_checked():
    """Readers before session 11 have no margin output: it is NaN, and kept row by row."""
    d = make(3)
    assert d.up_margin.shape == (3,) and np.isnan(d.up_margin).all()
    given = Dice(**{**d.__dict__, "up_margin": np.array([90.0, 4.0, 30.0])})
    assert given[given.up_margin < 10].face.tolist() == [2]
    assert np.isnan(Dice.concat([d, given]).up_margin[:3]).all()
    with pytest.raises(ValueError, match=r"Dice.up_margin: expected shape \(3,\)"):
        Dice(**{**d.__dict__, "up_margin": np.zeros(2)})
