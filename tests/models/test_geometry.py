"""The die geometry the reader's flag heads get: computed alike in training and at run
time, and turned with every augmented crop so that perspective stays consistent."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from dicecall.models.crops import CACHE_SIZE, CropCache, random_crop
from dicecall.vision.preprocess import die_geometry
from dicecall.vision.reader import reader_feeds


def test_geometry_is_offset_from_the_centre_and_size_against_the_median() -> None:
    centres = np.array([[320, 240], [640, 240], [0, 0]], np.float32)
    g = die_geometry(centres, np.array([40, 40, 44], np.float32), (480, 640, 3))
    assert g.dtype == np.float32 and g.shape == (3, 3)
    np.testing.assert_allclose(g[0], [0, 0, 0], atol=1e-6)
    np.testing.assert_allclose(g[1, :2], [0.5, 0.0], atol=1e-6)
    np.testing.assert_allclose(g[2, :2], [-0.5, -0.375], atol=1e-6)
    assert g[2, 2] == pytest.approx(np.log(1.1), rel=1e-5)  # larger than its neighbours
    assert die_geometry(np.zeros((0, 2)), np.zeros(0), (10, 10)).shape == (0, 3)


def test_a_lone_die_is_not_larger_than_its_neighbours() -> None:
    g = die_geometry(np.array([[10.0, 20.0]]), np.array([55.0]), (100, 100))
    assert g[0, 2] == 0.0


def _cache_with_marker(direction: np.ndarray) -> CropCache:
    """One die whose frame centre lies in `direction`; a bright mark is drawn that way."""
    img = np.full((CACHE_SIZE, CACHE_SIZE, 3), 60, np.uint8)
    c = CACHE_SIZE / 2 + 22 * direction / np.linalg.norm(direction)
    yy, xx = np.mgrid[:CACHE_SIZE, :CACHE_SIZE]
    img[(xx - c[0]) ** 2 + (yy - c[1]) ** 2 <= 9] = 250
    return CropCache(images=img[None], faces=np.array([1]), tilt=np.array([0.0], np.float32),
                     stacked=np.array([0.0], np.float32),
                     pips=np.full((1, 6, 2), np.nan, np.float32), real=np.array([False]),
                     geom=np.array([[*direction, 0.0]], np.float32),
                     is_die=np.array([1.0], np.float32), margin=np.array([90.0], np.float32))


@pytest.mark.parametrize("seed", range(12))
def test_augmented_crop_turns_the_geometry_with_the_image(seed: int) -> None:
    direction = np.array([0.3, -0.1], np.float32)
    crop, _, geom = random_crop(_cache_with_marker(direction), 0,
                                np.random.default_rng(seed))
    grey = crop.astype(np.float32).mean(2)
    dev = np.abs(grey - np.median(grey))  # the mark stands out even when colours invert
    y, x = np.unravel_index(np.argmax(dev), dev.shape)
    seen = np.array([x, y], np.float32) - crop.shape[0] / 2
    cos = seen @ geom[:2] / (np.linalg.norm(seen) * np.linalg.norm(geom[:2]))
    assert cos > 0.9, (seen, geom)
    assert np.linalg.norm(geom[:2]) == pytest.approx(np.linalg.norm(direction), rel=1e-4)
    assert abs(geom[2]) < 0.2


class _Input:
    def __init__(self, name: str) -> None:
        self.name = name


class _Session:
    def __init__(self, *names: str) -> None:
        self.names = names

    def get_inputs(self) -> list[_Input]:
        return [_Input(n) for n in self.names]


def test_feeds_give_geometry_only_to_a_reader_that_takes_it() -> None:
    batch = np.zeros((2, 3, 64, 64), np.float32)
    assert list(reader_feeds(_Session("crops"), batch, None)) == ["crops"]
    feeds = reader_feeds(_Session("crops", "geom"), batch, None)
    assert feeds["geom"].shape == (2, 3) and not feeds["geom"].any()
    g = np.ones((2, 3))
    assert reader_feeds(_Session("crops", "geom"), batch, g)["geom"].dtype == np.float32
