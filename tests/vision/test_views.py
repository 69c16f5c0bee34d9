"""Views of a crop (vision/views.py): turned with their geometry, merged back per die."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from dicecall.vision.config import ReaderConfig
from dicecall.vision.preprocess import die_geometry
from dicecall.vision.reader import read_batch
from dicecall.vision.views import average_views, sum_views, turn


def test_each_views_geometry_is_what_the_turned_frame_gives():
    # A die off the frame's centre; every view of its crop must carry the geometry the
    # reader would have computed had the whole frame been turned (and mirrored) that way.
    frame = np.zeros((120, 200, 3), np.uint8)
    centre, size = np.array([[150.0, 30.0]], np.float32), np.array([20.0], np.float32)
    geom = die_geometry(centre, size, frame.shape)
    crop = np.random.default_rng(0).random((1, 3, 8, 8)).astype(np.float32)
    h, w = frame.shape[:2]
    for v in range(8):
        turned, turned_geom = turn(crop, geom, v)
        assert turned.shape == (1, 3, 8, 8) and turned_geom.shape == (1, 3)
        k, mirror = v % 4, v >= 4
        x, y = float(centre[0, 0]), float(centre[0, 1])
        shape = (h, w)
        if mirror:
            x = w - x
        for _ in range(k):  # np.rot90: (x, y) -> (y, W - x), the frame becomes W x H
            x, y, shape = y, shape[1] - x, (shape[1], shape[0])
        want = die_geometry(np.array([[x, y]], np.float32), size, (*shape, 3))
        assert np.allclose(turned_geom[0], want[0], atol=1e-6), v
        img = crop[0, :, :, ::-1] if mirror else crop[0]
        assert np.array_equal(turned[0], np.rot90(img, k, axes=(1, 2)))


def test_views_turn_maps_back_and_average_per_die():
    rng = np.random.default_rng(1)
    crops = rng.random((3, 3, 16, 16)).astype(np.float32)
    geom = rng.normal(size=(3, 3)).astype(np.float32)

    # A model whose map follows the image (equivariant) and whose logit does not: averaged,
    # the map is the first view's and the logit is unchanged.
    def run(b, g):
        return {"map": b[:, :1].copy(), "logit": b.mean(axis=(1, 2, 3))[:, None]}

    out = average_views(run, crops, geom, 8)
    assert np.allclose(out["map"], crops[:, :1], atol=1e-6)
    assert np.allclose(out["logit"][:, 0], crops.mean(axis=(1, 2, 3)), atol=1e-6)
    with pytest.raises(ValueError, match="expected 3 rows"):
        average_views(lambda b, g: {"logit": np.zeros((2, 1), np.float32)}, crops, geom, 2)
    with pytest.raises(ValueError, match="views must be 1-8"):
        average_views(run, crops, geom, 9)
    with pytest.raises(ValueError, match="view numbers must be 0-7"):
        sum_views(run, crops, geom, range(1, 9))
    with pytest.raises(ValueError, match="at least one"):
        sum_views(run, crops, geom, range(1, 1))
    # The views a cascade adds to the first one sum to the average of all of them.
    rest = sum_views(run, crops, geom, range(1, 4))
    first = sum_views(run, crops, geom, range(1))
    every = average_views(run, crops, geom, 4)
    assert np.allclose((first["map"] + rest["map"]) / 4, every["map"], atol=1e-6)


class _Session:
    """A reader that gets one view of the second die wrong, as one view of a real die can;
    it records the size of each batch it is given."""

    def get_inputs(self):
        return [SimpleNamespace(name="crops"), SimpleNamespace(name="geom")]

    def get_outputs(self):
        return [SimpleNamespace(name=n) for n in ("face_logits", "pip_heatmap", "tilt_logit",
                                                  "stacked_logit")]

    def run(self, names, feeds):
        x = feeds["crops"]
        self.runs.append(len(x))
        n = len(x)
        logits = np.zeros((n, 6), np.float32)
        logits[:, 2] = 2.0
        if len(self.runs) == 1:  # the second die's first view wrongly prefers face 5
            logits[1, 4] = 4.0
        out = {"face_logits": logits, "pip_heatmap": np.zeros((n, 1, 32, 32), np.float32),
               "tilt_logit": np.full((n, 1), -2.0, np.float32),
               "stacked_logit": np.full((n, 1), -2.0, np.float32)}
        return [out[k] for k in names]


def test_read_batch_reads_one_view_per_run_and_outvotes_one_bad_view():
    session = _Session()
    session.runs = []
    crops = np.zeros((2, 3, 64, 64), np.float32)
    one = read_batch(session, crops, ReaderConfig(views=1))
    assert session.runs == [2] and one[0].argmax(1).tolist() == [2, 4]
    session.runs = []
    four = read_batch(session, crops, ReaderConfig(views=4))
    assert session.runs == [2, 2, 2, 2] and four[0].shape == (2, 6)
    assert four[0].argmax(1).tolist() == [2, 2]
