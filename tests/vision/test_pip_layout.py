"""The pip reading as a layout fit (`vision.pip_layout.fit_pips`, `pip_reading` "layout"):
the second, independent reading of each die's face that a disagreement sends to review
(623a.9(c), 668a.3(h), 675a.4(d))."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicecall.vision.config import ReaderConfig
from dicecall.vision.decode import count_pips
from dicecall.vision.images import load_image
from dicecall.vision.pip_layout import LAYOUTS, fit_pips
from dicecall.vision.reader import DiceReader
from dicecall.vision.scoring import match

GRID, CROP_SCALE = 32, 1.5
SIDE = GRID / CROP_SCALE  # the die's side in heatmap cells
FRAMES = sorted((Path(__file__).resolve().parent.parent / "data" / "frames").glob("*.json"))


def heatmap(face: int, angle_deg: float = 0.0, spread: float = 0.28,
            strengths: float | list[float] = 0.9, shift=(0.23, 0.11), sigma: float = 1.0
            ) -> np.ndarray:
    """A (1, 1, 32, 32) map as the reader draws it: a Gaussian of `sigma` cells at each pip
    of `face`, turned, its outer pips `spread` x the die side from the centre. The default
    shift is off the cells' symmetry: a pip exactly between cells gives two equal cells,
    which the peak count takes for two pips (a trained map never ties)."""
    yy, xx = np.mgrid[0:GRID, 0:GRID]
    cx, cy = xx + 0.5 - GRID / 2 - shift[0], yy + 0.5 - GRID / 2 - shift[1]
    r = np.deg2rad(angle_deg)
    rot = np.array([[np.cos(r), -np.sin(r)], [np.sin(r), np.cos(r)]])
    pips = np.array(LAYOUTS[face], np.float64) @ rot.T * spread * SIDE
    amps = np.broadcast_to(np.asarray(strengths, np.float64), (len(pips),))
    m = np.zeros((GRID, GRID))
    for (px, py), a in zip(pips, amps, strict=True):
        m = np.maximum(m, a * np.exp(-((cx - px) ** 2 + (cy - py) ** 2) / (2 * sigma ** 2)))
    return m[None, None].astype(np.float32)


# Spreads up to 0.32 side: a wider die's corner pips lie past the 0.5-side radius both
# readings look within (`ReaderConfig.pip_radius`, against a neighbour's pips).
@settings(max_examples=150, deadline=None)
@given(face=st.integers(1, 6), angle=st.floats(0, 360), spread=st.floats(0.17, 0.32),
       strength=st.floats(0.4, 1.0), dx=st.floats(-2, 2), dy=st.floats(-2, 2))
def test_every_face_reads_at_any_turn_spread_strength_and_offset(face, angle, spread,
                                                                   strength, dx, dy):
    m = heatmap(face, angle, spread, strength, (dx, dy))
    assert fit_pips(m, 0.5, CROP_SCALE)[0] == face


@settings(max_examples=150, deadline=None)
@given(face=st.integers(1, 6), angle=st.floats(0, 360), spread=st.floats(0.17, 0.32),
       strength=st.floats(0.2, 0.4), dx=st.floats(-2, 2), dy=st.floats(-2, 2))
def test_faint_pips_read_right_or_not_at_all(face, angle, spread, strength, dx, dy):
    """Under 0.4 a wide die turned between the fit's 15-degree steps may fall under its
    0.2 strength line (a face 2 at 0.31, spread 0.32, 37 degrees): no reading, a review,
    never another face."""
    m = heatmap(face, angle, spread, strength, (dx, dy))
    assert fit_pips(m, 0.5, CROP_SCALE)[0] in (face, 0)


def test_faint_pips_all_alike_still_read_where_the_peak_count_sees_none():
    """A blurred die: every pip at 0.3, under the peak count's 0.4 line."""
    maps = np.concatenate([heatmap(f, 20.0, 0.3, 0.3) for f in range(1, 7)])
    assert count_pips(maps, 0.4, 0.5, CROP_SCALE).tolist() == [0] * 6
    assert fit_pips(maps, 0.5, CROP_SCALE).tolist() == [1, 2, 3, 4, 5, 6]


def test_a_pip_much_weaker_than_its_fellows_is_not_counted():
    """A 5 whose centre pip barely shows (0.1 against 0.9) reads as the 4 it looks like:
    the fit asks for one strength common to a face's pips."""
    m = heatmap(5, 0.0, 0.3, [0.9, 0.9, 0.1, 0.9, 0.9])
    assert fit_pips(m, 0.5, CROP_SCALE)[0] == 4


def test_a_merged_pair_of_weak_pips_does_not_turn_a_six_into_a_five():
    """Peaks over a line miss a 6's dim pip (it reads 5); the layout of five strong pips
    and one dim one is still a 6, never a 5 (whose centre pip is not there)."""
    m = heatmap(6, 0.0, 0.3, [0.9, 0.35, 0.9, 0.9, 0.9, 0.9])
    assert count_pips(m, 0.4, 0.5, CROP_SCALE)[0] == 5
    assert fit_pips(m, 0.5, CROP_SCALE)[0] == 6


def test_a_neighbours_pips_beyond_the_radius_change_nothing():
    m = heatmap(3, 30.0, 0.3, 0.8)
    yy, xx = np.mgrid[0:GRID, 0:GRID]
    for px, py in ((2.5, 2.5), (29.5, 3.5), (30.5, 28.5)):  # crop corners, > 0.5 side out
        m[0, 0] = np.maximum(m[0, 0], np.exp(-((xx + 0.5 - px) ** 2 + (yy + 0.5 - py) ** 2) / 2))
    assert fit_pips(m, 0.5, CROP_SCALE)[0] == 3


@pytest.mark.parametrize("level", [0.0, 0.05, 0.15])
def test_a_map_without_pips_is_no_reading(level):
    """No pips in view (a blank or a uniformly faint map) is 0, never a face: a face
    classifier's 1 must not find a pip reading to agree with it in noise."""
    m = np.full((2, 1, GRID, GRID), level, np.float32)
    m[1] += np.random.default_rng(0).uniform(0, 0.1, (GRID, GRID)).astype(np.float32)
    assert fit_pips(m, 0.5, CROP_SCALE).tolist() == [0, 0]


def test_no_dice_is_an_empty_reading():
    out = fit_pips(np.zeros((0, 1, GRID, GRID), np.float32))
    assert out.shape == (0,) and out.dtype == np.int8


def test_the_config_refuses_an_unknown_pip_reading():
    with pytest.raises(ValueError, match="pip_reading"):
        ReaderConfig(pip_reading="count")


@pytest.mark.parametrize("reading", ["peaks", "layout"])
def test_both_readings_agree_with_the_face_on_the_committed_sample_frames(reading):
    """The committed model's pip reading gives every sample frame's labelled faces, either
    way it is read (`tests/vision/test_committed_model.py` checks the default alone)."""
    reader = DiceReader(ReaderConfig(pip_reading=reading))
    for label in FRAMES:
        rec = json.loads(label.read_text())
        dice = reader.read(load_image(label.with_name(rec["image"])))
        pairs = match(dice.centers, np.array([d["box"] for d in rec["dice"]], np.float32))
        pips = {g: int(dice.pip_face[p]) for p, g in pairs}
        assert [pips.get(g) for g in range(len(rec["dice"]))] == \
            [d["face"] for d in rec["dice"]], label.stem


def _reference_fit(maps: np.ndarray, radius: float = 0.5) -> np.ndarray:
    """The fit written out plainly: every layout template at every shift, drawn whole."""
    from dicecall.vision import pip_layout as pl

    yy, xx = np.mgrid[0:GRID, 0:GRID]
    cx, cy = (xx + 0.5 - GRID / 2).ravel(), (yy + 0.5 - GRID / 2).ravel()
    inner = np.hypot(cx, cy) <= radius * SIDE
    reach = (np.hypot(cx, cy) <= (radius + pl.CENTRE_REACH) * SIDE).reshape(GRID, GRID)
    h = pl._centred(maps[:, 0].astype(np.float32), reach).reshape(len(maps), -1)[:, inner]
    best = np.full(len(maps), -1.0)
    face = np.zeros(len(maps), np.int8)
    strength = np.zeros(len(maps))
    for k, pips in pl.LAYOUTS.items():
        turn = {1: 1e-9, 4: 90.0, 5: 90.0}.get(k, 180.0)
        for angle in np.arange(0.0, turn, pl.ANGLE_STEP_DEG):
            r = np.deg2rad(angle)
            rot = np.array([[np.cos(r), -np.sin(r)], [np.sin(r), np.cos(r)]])
            for spread in (pl.SPREADS * SIDE if k > 1 else (0.0,)):
                for sigma in (pl.ONE_SIGMAS if k == 1 else (pl.PIP_SIGMA,)):
                    at = np.array(pips, np.float64) @ rot.T * spread
                    for dx in pl.SHIFTS:
                        for dy in pl.SHIFTS:
                            t = np.exp(-((cx[:, None] - at[:, 0] - dx) ** 2
                                         + (cy[:, None] - at[:, 1] - dy) ** 2)
                                       / (2 * sigma ** 2)).sum(1)
                            t_in = t[inner] - t[inner].mean()
                            norm = (t_in ** 2).sum() + (t[~inner] ** 2).sum()
                            dot = h @ t_in
                            score = np.where(dot > 0, dot * dot / norm, 0.0)
                            better = score > best
                            best[better], face[better] = score[better], k
                            strength[better] = dot[better] / norm
    return np.where(strength >= 0.2, face, 0)


def test_the_fit_moving_the_map_equals_every_template_drawn_at_every_shift():
    """The runtime keeps each template once and moves the map by each shift instead (its
    memory: `bench/bench_edge.py`); the reading must be the plain fit's."""
    rng = np.random.default_rng(7)
    maps = [heatmap(int(rng.integers(1, 7)), rng.uniform(0, 360), rng.uniform(0.15, 0.4),
                    rng.uniform(0.15, 1.0), tuple(rng.uniform(-3, 3, 2))) for _ in range(40)]
    maps = np.concatenate(maps) + rng.uniform(0, 0.08, (40, 1, GRID, GRID)).astype(np.float32)
    assert fit_pips(maps, 0.5, CROP_SCALE).tolist() == _reference_fit(maps).tolist()


def test_the_fit_takes_its_product_on_one_blas_thread(monkeypatch):
    """Session 66 (models/reader.md): numpy's BLAS split the fit's small product over every
    core, whose threads then spun on the cores onnxruntime reads with; with both cores busy
    a two-dice read took 40 ms against 25. The fit asks for one thread around its product."""
    import contextlib

    from dicecall.vision import pip_layout

    asked = []

    class Recorder:
        def limit(self, **kw):
            asked.append(kw)
            return contextlib.nullcontext()

    monkeypatch.setattr(pip_layout, "_blas", lambda: Recorder())
    assert fit_pips(np.concatenate([heatmap(5), heatmap(2)])).tolist() == [5, 2]
    assert asked == [{"limits": 1, "user_api": "blas"}]
