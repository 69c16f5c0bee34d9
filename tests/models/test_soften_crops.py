"""Training crops softened as the runtime softens them (`random_crop`'s `soften`): a die
the runtime would cut at more than 2x downscale is blurred alike, a smaller one never is
(models/reader.md, session 53)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

pytest.importorskip("torch")

from dicecall.models.crops import CACHE_SIZE, CropCache, build_cache, random_crop
from dicecall.models.data import load_folder

FRAMES = Path(__file__).parents[1] / "data" / "frames"


def _checker(side: int) -> np.ndarray:
    """(side, side, 3) uint8 fine black and white squares, 3 px each: detail a blur removes."""
    yy, xx = np.mgrid[:side, :side]
    img = np.where(((xx // 3 + yy // 3) % 2)[..., None] == 1, 235, 20).astype(np.uint8)
    return np.repeat(img, 3, axis=2)


def _checker_cache(px: float | None) -> CropCache:
    """One die of fine black and white squares, `px` wide in its own frame."""
    img = _checker(CACHE_SIZE)
    return CropCache(images=img[None], faces=np.array([3]), tilt=np.array([0.0], np.float32),
                     stacked=np.array([0.0], np.float32),
                     pips=np.full((1, 6, 2), np.nan, np.float32), real=np.array([False]),
                     geom=np.zeros((1, 3), np.float32), is_die=np.array([1.0], np.float32),
                     margin=np.array([90.0], np.float32),
                     px=None if px is None else np.array([px], np.float32))


def _detail(crop: np.ndarray) -> float:
    return float(cv2.Laplacian(crop.astype(np.float32).mean(2), cv2.CV_32F).var())


@pytest.mark.parametrize("seed", range(6))
def test_a_die_cut_far_down_is_softened_and_a_small_one_is_not(seed: int) -> None:
    # 300 px: the runtime's crop (1.5 x 300 x 0.8-1.6 px) is cut at under 0.2 of its side.
    big = _checker_cache(300.0)
    sharp, _, g0 = random_crop(big, 0, np.random.default_rng(seed))
    soft, _, g1 = random_crop(big, 0, np.random.default_rng(seed), soften=1.5)
    assert _detail(soft) < 0.6 * _detail(sharp)
    np.testing.assert_array_equal(g0, g1)  # the blur draws nothing: the rest is the same
    # 30 px: cut at 0.9-1.9x, upscaled; the runtime leaves it, so must training.
    small = _checker_cache(30.0)
    a, _, _ = random_crop(small, 0, np.random.default_rng(seed))
    b, _, _ = random_crop(small, 0, np.random.default_rng(seed), soften=1.5)
    np.testing.assert_array_equal(a, b)


def test_a_cache_without_sizes_is_never_softened() -> None:
    old = _checker_cache(None)
    a, _, _ = random_crop(old, 0, np.random.default_rng(1))
    b, _, _ = random_crop(old, 0, np.random.default_rng(1), soften=1.5)
    np.testing.assert_array_equal(a, b)


def test_the_cache_keeps_each_die_size_in_its_own_frame() -> None:
    samples = load_folder(FRAMES)[:2]
    cache = build_cache(samples)
    assert cache.px is not None and cache.px.shape == cache.faces.shape
    sizes = np.concatenate([np.maximum(s.boxes[:, 2] - s.boxes[:, 0],
                                       s.boxes[:, 3] - s.boxes[:, 1]) for s in samples])
    np.testing.assert_allclose(cache.px, sizes, rtol=1e-5)


def _checker_photo(tmp_path: Path) -> Path:
    path = tmp_path / "checker.png"
    cv2.imwrite(str(path), _checker(900))
    return path


def test_validation_crops_are_softened_as_the_runtime_softens_them(tmp_path: Path) -> None:
    """The faces stage scores its epochs on contract crops; with `--soften` they are the
    softened crops the runtime will give it, large dice only (session 54)."""
    from dicecall.models.data import Sample
    from dicecall.models.read_train import contract_crops

    # A 300 px die (crop cut at 64 / 450 of its side) and a 30 px one (64 / 45: upscaled).
    boxes = np.array([[100, 100, 400, 400], [600, 600, 630, 630]], np.float32)
    s = Sample(image=_checker_photo(tmp_path), source="synthetic", boxes=boxes,
               faces=np.array([3, 4]), tilt=np.zeros(2, np.float32),
               stacked=np.zeros(2, np.float32))
    sharp = contract_crops([s])[0]
    soft = contract_crops([s], soften=1.5)[0]
    as_image = [(c.transpose(1, 2, 0) * 255).astype(np.float32) for c in (sharp[0], soft[0])]
    assert _detail(as_image[1]) < 0.6 * _detail(as_image[0])
    np.testing.assert_array_equal(sharp[1], soft[1])
