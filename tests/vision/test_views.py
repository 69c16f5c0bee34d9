"""Views of a crop (vision/views.py): turned with their geometry, merged back per die."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from dicecall.vision.config import ReaderConfig
from dicecall.vision.preprocess import die_geometry
from dicecall.vision.reader import read_batch
from dicecall.vision.views import expand, merge


@pytest.mark.parametrize("views", range(1, 9))
def test_each_views_geometry_is_what_the_turned_frame_gives(views):
    # A die off the frame's centre; every view of its crop must carry the geometry the
    # reader would have computed had the whole frame been turned (and mirrored) that way.
    frame = np.zeros((120, 200, 3), np.uint8)
    centre, size = np.array([[150.0, 30.0]], np.float32), np.array([20.0], np.float32)
    geom = die_geometry(centre, size, frame.shape)
    crop = np.random.default_rng(0).random((1, 3, 8, 8)).astype(np.float32)
    many, many_geom = expand(crop, geom, views)
    assert many.shape == (views, 3, 8, 8) and many_geom.shape == (views, 3)
    h, w = frame.shape[:2]
    for v in range(views):
        k, mirror = v % 4, v >= 4
        x, y = float(centre[0, 0]), float(centre[0, 1])
        shape = (h, w)
        if mirror:
            x = w - x
        for _ in range(k):  # np.rot90: (x, y) -> (y, W - x), the frame becomes W x H
            x, y, shape = y, shape[1] - x, (shape[1], shape[0])
        want = die_geometry(np.array([[x, y]], np.float32), size, (*shape, 3))
        assert np.allclose(many_geom[v], want[0], atol=1e-6), v
        img = crop[0, :, :, ::-1] if mirror else crop[0]
        assert np.array_equal(many[v], np.rot90(img, k, axes=(1, 2)))


def test_merge_turns_maps_back_and_averages_per_die():
    rng = np.random.default_rng(1)
    crops = rng.random((3, 3, 16, 16)).astype(np.float32)
    geom = rng.normal(size=(3, 3)).astype(np.float32)
    many, _ = expand(crops, geom, 8)
    # A model whose map follows the image (equivariant) and whose logit does not: merged,
    # the map is the first view's and the logit is unchanged.
    outs = {"map": many[:, :1].copy(), "logit": many.mean(axis=(1, 2, 3))[:, None]}
    merged = merge(outs, 3, 8)
    assert np.allclose(merged["map"], crops[:, :1], atol=1e-6)
    assert np.allclose(merged["logit"][:, 0], crops.mean(axis=(1, 2, 3)), atol=1e-6)
    with pytest.raises(ValueError, match="expected 24 rows"):
        merge({"logit": np.zeros((23, 1), np.float32)}, 3, 8)
    with pytest.raises(ValueError, match="views must be 1-8"):
        expand(crops, geom, 9)


class _Session:
    """A reader that sees the face in the crop's mean red level and answers each view with a
    different error, as views of a real die do; it records the batch it was given."""

    def get_inputs(self):
        return [SimpleNamespace(name="crops"), SimpleNamespace(name="geom")]

    def get_outputs(self):
        return [SimpleNamespace(name=n) for n in ("face_logits", "pip_heatmap", "tilt_logit",
                                                  "stacked_logit")]

    def run(self, names, feeds):
        x = feeds["crops"]
        self.seen = len(x)
        n = len(x)
        logits = np.zeros((n, 6), np.float32)
        logits[:, 2] = 2.0
        # the second die's first view wrongly prefers face 5; its other views do not
        logits[1, 4] = 4.0
        out = {"face_logits": logits, "pip_heatmap": np.zeros((n, 1, 32, 32), np.float32),
               "tilt_logit": np.full((n, 1), -2.0, np.float32),
               "stacked_logit": np.full((n, 1), -2.0, np.float32)}
        return [out[k] for k in names]


def test_read_batch_reads_all_views_in_one_run_and_outvotes_one_bad_view():
    session = _Session()
    crops = np.zeros((2, 3, 64, 64), np.float32)
    one = read_batch(session, crops, ReaderConfig(views=1))
    assert session.seen == 2 and one[0].argmax(1).tolist() == [2, 4]
    four = read_batch(session, crops, ReaderConfig(views=4))
    assert session.seen == 8 and four[0].shape == (2, 6)
    assert four[0].argmax(1).tolist() == [2, 2]
