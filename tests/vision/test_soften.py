"""A crop cut at more than twice its size is softened when asked (`ReaderConfig.soften_sigma`,
models/reader.md, session 51, rule 52): the reader trained on 640x480 scenes reads the sharper
crops of a 1920-pixel frame worse. Crops nearer their own size stay as cut."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError

from dicecall.vision.config import ReaderConfig
from dicecall.vision.preprocess import SOFTEN_BELOW, crops


def _checker(side: int, cell: int) -> np.ndarray:
    """A black-and-white checkerboard frame: the sharpest edges a crop can hold."""
    y, x = np.mgrid[0:side, 0:side]
    board = (((x // cell) + (y // cell)) % 2 * 255).astype(np.uint8)
    return np.repeat(board[:, :, None], 3, axis=2)


def _roughness(crop: np.ndarray) -> float:
    """Mean absolute step between neighbouring pixels of a (3, h, w) crop."""
    return float(np.abs(np.diff(crop, axis=2)).mean() + np.abs(np.diff(crop, axis=1)).mean())


def test_a_crop_cut_far_down_is_softened() -> None:
    frame = _checker(600, 40)
    centre = np.array([[300.0, 300.0]], np.float32)
    side = np.array([400.0], np.float32)  # 64 / 400 = 0.16, under SOFTEN_BELOW
    assert SOFTEN_BELOW > 64 / 400
    sharp = crops(frame, centre, side, 64)
    soft = crops(frame, centre, side, 64, soften=1.5)
    assert soft.shape == sharp.shape == (1, 3, 64, 64)
    assert _roughness(soft) < 0.8 * _roughness(sharp)
    # a blur moves no brightness: the crop's mean stays within a grey level
    assert abs(float(soft.mean()) - float(sharp.mean())) < 1 / 255


@pytest.mark.parametrize("side", [40.0, 64.0, 100.0, 127.0])
def test_a_crop_near_its_own_size_is_left_as_cut(side: float) -> None:
    frame = _checker(300, 6)
    centre = np.array([[150.0, 150.0]], np.float32)
    sides = np.array([side], np.float32)
    assert 64 / side >= SOFTEN_BELOW
    np.testing.assert_array_equal(crops(frame, centre, sides, 64, soften=1.5),
                                  crops(frame, centre, sides, 64))


def test_each_crop_of_a_batch_is_judged_by_its_own_scale() -> None:
    frame = _checker(800, 30)
    centres = np.array([[200.0, 200.0], [600.0, 600.0]], np.float32)
    sides = np.array([60.0, 300.0], np.float32)
    sharp, soft = crops(frame, centres, sides, 64), crops(frame, centres, sides, 64, 1.5)
    np.testing.assert_array_equal(soft[0], sharp[0])
    assert not np.array_equal(soft[1], sharp[1])


@pytest.mark.parametrize("sigma", [-0.1, 5.5])
def test_config_refuses_a_sigma_out_of_range(sigma: float) -> None:
    with pytest.raises(ValidationError, match="soften_sigma"):
        ReaderConfig(soften_sigma=sigma)


def test_the_reader_without_a_game_softens_and_no_game_does_unless_asked() -> None:
    from dicecall.vision.config import for_game, for_table
    from dicecall.vision.profiles import GAMES

    assert ReaderConfig().soften_sigma == 1.5  # predict, evaluate: rule 52
    for game in GAMES:
        assert for_table(ReaderConfig(), game).soften_sigma == 0.0
    asked = ReaderConfig(soften_sigma=1.0)
    assert for_game(asked, cocked_counts=True).soften_sigma == 1.0
    assert for_game(asked, cocked_counts=False).soften_sigma == 1.0


def test_an_unsoftened_crop_is_the_frame_scaled_to_0_1_bit_for_bit() -> None:
    """The games read crops as cut (`for_game`); their verdict lines were judged on crops
    computed as frame / 255 in double precision, so the softening may not change one bit of
    them."""
    frame = np.random.default_rng(5).integers(0, 256, (200, 200, 3), np.uint8)
    got = crops(frame, np.array([[100.0, 90.0]], np.float32), np.array([64.0], np.float32), 64)
    want = frame[58:122, 68:132, ::-1].transpose(2, 0, 1) * (1 / 255)
    np.testing.assert_array_equal(got[0], want.astype(np.float32))
