"""`--stage flags`: the tilt, stacked and margin layers fine-tuned on a frozen reader."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dicecall.models.crops import build_cache  # noqa: E402
from dicecall.models.data import load_folder  # noqa: E402
from dicecall.models.evaluate import auc  # noqa: E402
from dicecall.models.flags_train import (  # noqa: E402
    FLAG_REPEAT,
    HARD_REPEAT,
    SLIGHT_MARGIN,
    epoch_order,
    slight,
    slight_flat,
    split,
)

FRAMES = Path(__file__).parents[1] / "data" / "frames"
# The reader without stages of its own (reader.onnx has the face's own copy since session 53).
COMMITTED = Path(__file__).parents[2] / "models" / "reader.thrown.onnx"


def test_auc_counts_pairs_and_ties_half() -> None:
    rng = np.random.default_rng(5)
    pos, neg = rng.integers(0, 5, 40).astype(float), rng.integers(0, 4, 60).astype(float)
    pairs = (pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean()
    assert auc(pos, neg) == pytest.approx(pairs)
    assert np.isnan(auc(pos, neg[:0]))


def test_epoch_holds_flagged_twice_hard_flat_three_times_and_no_unlabelled_die(
        toy_yolo: Path) -> None:
    cache = build_cache(load_folder(FRAMES) + load_folder(toy_yolo)[:2])
    flagged, flat = split(cache)
    assert len(flat) and not np.isin(np.nonzero(cache.real)[0], np.r_[flagged, flat]).any()
    assert (np.nan_to_num(cache.tilt[flat]) == 0).all() and (cache.stacked[flat] == 0).all()
    hard = flat[:2]
    order = epoch_order(flagged, flat, hard, np.random.default_rng(0))
    counts = np.bincount(order, minlength=len(cache.faces))
    assert (counts[flagged] == FLAG_REPEAT).all() and (counts[hard] == HARD_REPEAT).all()
    assert (counts[np.setdiff1d(flat, hard)] == 1).all() and counts[cache.real].sum() == 0


def test_slightly_leaning_dice_come_back_as_often_as_asked(toy_yolo: Path) -> None:
    """`--slight-repeat K`: a cocked die with an up margin of 66 or more (leaning under about
    12 degrees) appears K more times an epoch; a steeper one and a die on a die do not."""
    cache = build_cache(load_folder(FRAMES) + load_folder(toy_yolo)[:2])
    flagged, flat = split(cache)
    # three of the flagged dice made cocked by hand: slight, steep, and cocked with no margin
    tilt, margin = cache.tilt.copy(), cache.margin.copy()
    a, b, c = flagged[:3] if len(flagged) >= 3 else flat[:3]
    tilt[[a, b, c]] = 1.0
    margin[[a, b, c]] = [SLIGHT_MARGIN, SLIGHT_MARGIN - 0.1, np.nan]
    cache = type(cache)(**{**cache.__dict__, "tilt": tilt, "margin": margin})
    flagged, flat = split(cache)
    leaning = slight(cache, flagged)
    assert a in leaning and b not in leaning and c not in leaning
    assert (cache.tilt[leaning] == 1).all() and (cache.margin[leaning] >= SLIGHT_MARGIN).all()
    plain = np.bincount(epoch_order(flagged, flat, flat[:0], np.random.default_rng(0)),
                        minlength=len(cache.faces))
    more = np.bincount(epoch_order(flagged, flat, flat[:0], np.random.default_rng(0),
                                   leaning=leaning, slight_repeat=4), minlength=len(cache.faces))
    assert (more[leaning] == plain[leaning] + 4).all() and more[b] == plain[b] == FLAG_REPEAT


def test_slight_flat_is_the_flat_shaker_share_at_full_recall_of_slight_leans() -> None:
    # tilt, labels (tilt, stacked), margin, shaker: two slight leans at 0.3 and 0.6, a steep
    # lean at 0.01 (not counted), flat shaker dice at 0.2, 0.3, 0.5, 0.9, a flat throw box die
    # at 0.95 and a shaker die on a die at 0.99 (neither counted)
    tilt = np.array([0.3, 0.6, 0.01, 0.2, 0.3, 0.5, 0.9, 0.95, 0.99])
    flags = np.array([[1, 0], [1, 0], [1, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 1]],
                     np.float32)
    margin = np.array([80, 70, 30, 90, 90, 90, 90, 90, 90], np.float32)
    shaker = np.array([1, 1, 1, 1, 1, 1, 1, 0, 1], bool)
    assert slight_flat(tilt, flags, margin, shaker) == pytest.approx(3 / 4)  # line 0.3
    assert np.isnan(slight_flat(tilt, flags, margin, np.zeros(9, bool)))
    assert np.isnan(slight_flat(tilt, flags, np.full(9, 30.0, np.float32), shaker))


def test_an_unknown_selection_or_no_slight_dice_to_select_by_is_refused(tmp_path: Path) -> None:
    from dicecall.models.flags_train import train_flags

    data = load_folder(FRAMES)
    with pytest.raises(ValueError, match="select 'best'"):
        train_flags(data, data, COMMITTED, tmp_path / "a", 1, 0, False, select="best")
    # the sample frames hold no cocked shaker die
    with pytest.raises(ValueError, match="no slightly leaning"):
        train_flags(data, data, COMMITTED, tmp_path / "b", 1, 0, False, select="slight")


def test_flags_stage_moves_the_flags_and_leaves_faces_pips_and_die_or_not(
        tmp_path: Path, onnx_and_checkpoint, whole_and_resumed) -> None:
    """On the committed reader: face, pips and die-or-not stay those of reader.thrown.onnx to 1e-4,
    the flag layers move, the shared layers do not, and a resumed run equals a whole one."""
    from dicecall.models.flags_train import train_flags
    from dicecall.models.onnx_import import reader_from_onnx
    from dicecall.models.trainloop import setup_torch

    setup_torch(1)
    data = load_folder(FRAMES)
    full = whole_and_resumed(train_flags, data, data, COMMITTED, epochs=2, seed=1,
                             batch_size=4, lr=3e-3)

    # face, pips, die-or-not: the contract's outputs 0, 1 and 4
    onnx_outs, torch_outs = onnx_and_checkpoint(COMMITTED, tmp_path / "full" / "last.pt")
    for k in (0, 1, 4):
        assert np.abs(onnx_outs[k] - torch_outs[k]).max() < 1e-4, k
    start = reader_from_onnx(COMMITTED)[0].state_dict()
    assert not torch.equal(full["flags.2.weight"], start["flags.2.weight"])
    assert torch.equal(full["b16.0.0.weight"], start["b16.0.0.weight"])
    assert torch.equal(full["b16.0.1.running_var"], start["b16.0.1.running_var"])
    assert torch.equal(full["flag8.0.1.running_mean"], start["flag8.0.1.running_mean"])


def test_own_stem_starts_as_the_reader_it_copies_and_trains_only_the_flags(
        tmp_path: Path, onnx_and_checkpoint, whole_and_resumed) -> None:
    """`--own-flag-stem`: the copy changes no output at the start; after training, face,
    pips and die-or-not are still reader.thrown.onnx's, the stem moved and the face's did not, a
    resumed run equals a whole one, and the exported file reads back with its stem."""
    from dicecall.models.export import READER_OUTPUTS, export_onnx
    from dicecall.models.flags_train import train_flags, with_own_stem
    from dicecall.models.nets import Reader
    from dicecall.models.onnx_import import reader_from_onnx
    from dicecall.models.trainloop import load_checkpoint, setup_torch

    setup_torch(1)
    start = reader_from_onnx(COMMITTED)[0]
    own = with_own_stem(start)
    crops, geom = torch.rand(3, 3, 64, 64), torch.rand(3, 3)
    with torch.no_grad():
        assert all(torch.equal(a, b) for a, b in zip(start(crops, geom), own(crops, geom),
                                                     strict=True))
    data = load_folder(FRAMES)
    full = whole_and_resumed(train_flags, data, data, COMMITTED, epochs=2, seed=1,
                             batch_size=4, lr=3e-3, own_stem=True)
    onnx_outs, torch_outs = onnx_and_checkpoint(COMMITTED, tmp_path / "full" / "last.pt")
    for k in (0, 1, 4):
        assert np.abs(onnx_outs[k] - torch_outs[k]).max() < 1e-4, k
    begin = own.state_dict()
    assert not torch.equal(full["fstem.2.0.weight"], begin["fstem.2.0.weight"])
    assert torch.equal(full["b16.0.0.weight"], begin["b16.0.0.weight"])

    trained = Reader(flag_stem=True)
    load_checkpoint(tmp_path / "full" / "last.pt", trained)
    feeds = {"crops": crops[:2].numpy(), "geom": geom[:2].numpy()}
    export_onnx(trained, feeds, tmp_path / "own.onnx", list(READER_OUTPUTS), dynamic=True)
    back, untouched = reader_from_onnx(tmp_path / "own.onnx")
    assert back.fstem is not None and untouched == []
    with torch.no_grad():
        for a, b in zip(trained.eval()(crops, geom), back(crops, geom), strict=True):
            assert torch.allclose(a, b, atol=1e-4)
