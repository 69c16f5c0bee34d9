"""Fine-tuning the reader's flags and up margin on its frozen rest (`--stage flags`).

Why (session 12, docs/verdicts.md): on a tuning suite the committed reader put the tilt
probability of 37 % of the flat dice in the shaker at or above the Props & Hops no-roll line
(0.05), and the stacked probability of 30 % above 0.35; a good roll there was called valid
one time in five. The flags were one loss of six in the reader's recipe and saw a flat die
only when the draw of plain dice picked it. This stage trains the flag layers (and the
margin branch, which reads their 8x8 features) alone, starting from the committed weights,
on every flagged synthetic die and, several times over, on the flat dice the starting reader
flags: faces, pips and die-or-not do not move.

The start is the committed ONNX read back into torch (`onnx_import.py`); its batch norms are
folded, so every layer stays in eval mode and only weights and biases train.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import torch

from dicecall.models.contract import crops_to_input
from dicecall.models.crops import CropCache, build_cache, random_crop
from dicecall.models.data import Sample
from dicecall.models.evaluate import auc
from dicecall.models.margin_train import PARTS as MARGIN_PARTS
from dicecall.models.margin_train import scores as margin_scores
from dicecall.models.margin_train import trainable
from dicecall.models.nets import Reader
from dicecall.models.onnx_import import whole_reader_from_onnx
from dicecall.models.read_train import _masked_bce, contract_crops, make_batch
from dicecall.models.trainloop import (
    RunLog,
    load_checkpoint,
    run_epochs,
    save_checkpoint,
    seed_everything,
)

PARTS = ("fstem", "flag8", "flag4", "geom", "flags", *MARGIN_PARTS)
# A flat die is "hard" when the starting reader raises either flag on it where a verdict
# would act: the Props & Hops tilt line of sessions 17-26 (0.05; 0.025 since session 27,
# vision/verdict.py, kept here so the committed reader's recipe repeats) and a little under
# the stacked line.
HARD_TILT, HARD_STACKED = 0.05, 0.25
HARD_REPEAT = 3  # each hard flat die appears this often per epoch
FLAG_REPEAT = 2  # each cocked or stacked die appears this often per epoch
PLAIN = 8000  # other flat dice drawn afresh each epoch
# A die leaning under about 12 degrees is the cocked die hardest to see from above, and it
# decides the Props & Hops line: six of the eight Props & Hops rolls let through on session
# 19's untouched suites leaned 5.3-11 degrees on the wall. Labels carry no tilt angle but the
# up margin, 90 - 2 x the tilt for a die tipped about one edge: on tuning suite seeds 9200
# every cocked shaker die under 12 degrees had a margin of 66 or more, and none over 12.
SLIGHT_MARGIN = 66.0
SELECT = ("auc", "slight")


def flag_outputs(model: Reader, crops: torch.Tensor, geom: torch.Tensor
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(tilt, stacked, margin) logits: the frozen layers without a graph, then the heads."""
    with torch.no_grad():
        f16 = model.b16(model.b32(crops))
        f8 = model.b8(f16)
    h8, flags = model.flag_head(f16 if model.fstem is None else model.fstem(crops), geom)
    return flags[:, :1], flags[:, 1:2], model.margin_head(f16, f8, h8.detach(), geom)


def flags_loss(model: Reader, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, dict]:
    """Tilt, stacked and margin BCE over the dice that carry each label."""
    tilt, stacked, margin = flag_outputs(model, batch["crops"], batch["geom"])
    lt = _masked_bce(tilt, batch["tilt"])
    ls = _masked_bce(stacked, batch["stacked"])
    lm = _masked_bce(margin, batch["margin"])
    return lt + ls + lm, {"tilt": lt.item(), "stacked": ls.item(), "margin": lm.item()}


@torch.no_grad()
def _probs(model: Reader, crops: np.ndarray, geom: np.ndarray) -> np.ndarray:
    """[D, 2] tilt and stacked probabilities, in batches."""
    out = []
    for i in range(0, len(crops), 256):
        t, s, _ = flag_outputs(model, torch.from_numpy(crops[i : i + 256]),
                               torch.from_numpy(geom[i : i + 256]))
        out.append(torch.sigmoid(torch.cat([t, s], 1)).numpy())
    return np.concatenate(out) if out else np.zeros((0, 2), np.float32)


def mine_hard(model: Reader, cache: CropCache, flat: np.ndarray, seed: int) -> np.ndarray:
    """The flat dice (indices into the cache) on which the model raises a flag, each seen in
    one augmented crop as training sees it."""
    rng = np.random.default_rng(seed)
    hard = []
    for i in range(0, len(flat), 512):
        idx = flat[i : i + 512]
        crops, _, geom = zip(*(random_crop(cache, int(k), rng) for k in idx), strict=True)
        p = _probs(model, crops_to_input(np.stack(crops)), np.stack(geom).astype(np.float32))
        hard.append(idx[(p[:, 0] >= HARD_TILT) | (p[:, 1] >= HARD_STACKED)])
    return np.concatenate(hard) if hard else np.zeros(0, np.int64)


def split(cache: CropCache) -> tuple[np.ndarray, np.ndarray]:
    """(flagged, flat): synthetic dice with both flag labels, cocked or stacked, or neither."""
    known = (cache.is_die > 0.5) & ~np.isnan(cache.tilt) & ~np.isnan(cache.stacked)
    flagged = known & ((cache.tilt > 0.5) | (cache.stacked > 0.5))
    return np.nonzero(flagged)[0], np.nonzero(known & ~flagged)[0]


def slight(cache: CropCache, flagged: np.ndarray) -> np.ndarray:
    """The cocked dice among `flagged` that lean only slightly (margin >= SLIGHT_MARGIN)."""
    margin = cache.margin[flagged]
    return flagged[(cache.tilt[flagged] > 0.5) & ~np.isnan(margin) & (margin >= SLIGHT_MARGIN)]


def epoch_order(flagged: np.ndarray, flat: np.ndarray, hard: np.ndarray,
                rng: np.random.Generator, leaning: np.ndarray | None = None,
                slight_repeat: int = 0) -> np.ndarray:
    """Flagged dice FLAG_REPEAT times, hard flat dice HARD_REPEAT times, PLAIN other flat
    dice drawn afresh, and the slightly leaning dice `slight_repeat` times more, shuffled."""
    others = np.setdiff1d(flat, hard)
    if len(others) > PLAIN:
        others = rng.choice(others, PLAIN, replace=False)
    more = np.tile(leaning, slight_repeat) if leaning is not None else np.zeros(0, np.int64)
    return rng.permutation(np.concatenate([np.tile(flagged, FLAG_REPEAT),
                                           np.tile(hard, HARD_REPEAT), others, more]))


def slight_flat(tilt: np.ndarray, flags: np.ndarray, margin: np.ndarray,
                shaker: np.ndarray) -> float:
    """The share of flat shaker dice whose tilt reaches the line that catches every slightly
    leaning shaker die: what the Props & Hops line costs good rolls at full recall of the
    dice that decide it (lower is better; NaN without both kinds)."""
    lean = shaker & (flags[:, 0] > 0.5) & ~np.isnan(margin) & (margin >= SLIGHT_MARGIN)
    flat = shaker & (flags[:, 0] == 0) & (flags[:, 1] == 0)
    if not lean.any() or not flat.any():
        return float("nan")
    return float((tilt[flat] >= tilt[lean].min()).mean())


def scores(model: Reader, crops: np.ndarray, geom: np.ndarray, flags: np.ndarray,
           margin: np.ndarray | None = None, shaker: np.ndarray | None = None) -> dict:
    """AUC of each flag over the validation dice that carry its label, the share of flat
    dice (neither flag) raised at the hard lines, as the verdict would act on them, and, given
    each die's margin and whether it lies in a shaker, `slight_flat`."""
    p = _probs(model, crops, geom)
    out = {} if margin is None or shaker is None else {
        "slight_flat": slight_flat(p[:, 0], flags, margin, shaker)}
    for k, name in enumerate(("tilt", "stacked")):
        known = ~np.isnan(flags[:, k])
        out[f"{name}_auc"] = auc(p[known & (flags[:, k] > 0.5), k],
                                 p[known & (flags[:, k] <= 0.5), k])
    flat = (flags[:, 0] == 0) & (flags[:, 1] == 0)
    out["flat_raised"] = float(((p[flat, 0] >= HARD_TILT) | (p[flat, 1] >= HARD_STACKED)).mean()
                               ) if flat.any() else float("nan")
    return out


def with_own_stem(model: Reader) -> Reader:
    """`model` with the flags reading their own stem, a copy of the face's first two stages
    (so the flags start exactly where they were); a model that has one is returned as is."""
    if model.fstem is not None:
        return model
    own = Reader(flag_stem=True)
    own.load_state_dict({**own.state_dict(), **model.state_dict(),
                         **{f"fstem.{k}": v for k, v in model.b32.state_dict().items()},
                         **{f"fstem.{int(k.split('.')[0]) + 2}.{k.split('.', 1)[1]}": v
                            for k, v in model.b16.state_dict().items()}})
    return own.eval()


def train_flags(train: list[Sample], valid: list[Sample], init: Path, out: Path, epochs: int,
                seed: int, resume: bool, batch_size: int = 128, lr: float = 2e-4,
                stop_after: int | None = None, own_stem: bool = False, slight_repeat: int = 0,
                select: str = "auc") -> Path:
    """Fine-tunes the flags and margin of the reader in `init` (ONNX); returns best.pt's path.

    The best epoch has the highest mean of the two flag AUCs on `valid` (`select` "auc"), or
    the lowest `slight_flat` on its shaker scenes ("slight"), the start (epoch 0) included;
    the other measures and the margin's void AUC and error are logged beside them. The
    checkpoints hold the whole reader.

    The learning rate is low because the folded layers have no batch norm left to undo a
    change of scale, and AdamW moves every weight by about lr a step whatever its size: at
    1e-3 both flag AUCs fell in the first epochs (session 12).

    `own_stem`: the flags get their own first two stages, copied from the face's, and train
    them too (`nets.Reader.fstem`); the face, pips and die-or-not still do not move.

    `slight_repeat`: each slightly leaning cocked die (`SLIGHT_MARGIN`) appears this many
    more times an epoch.

    Raises:
        ValueError: `init` lacks a layer this stage fine-tunes or keeps; `select` is unknown,
            or "slight" with no slightly leaning and flat shaker dice in `valid`.
    """
    if select not in SELECT:
        raise ValueError(f"select {select!r}: one of {', '.join(SELECT)}")
    log = RunLog(out)
    model = whole_reader_from_onnx(init)
    if own_stem:
        model = with_own_stem(model)
    seed_everything(seed)
    opt = torch.optim.AdamW(trainable(model, PARTS), lr=lr, weight_decay=5e-4)
    cache = build_cache([s for s in train if s.source.startswith("synthetic")])
    flagged, flat = split(cache)
    hard = mine_hard(model, cache, flat, seed)
    leaning = slight(cache, flagged)
    val = [s for s in valid if s.source.startswith("synthetic") and s.margin is not None]
    crops, geom, _, flags = contract_crops(val)
    val_margin = np.concatenate([s.margin for s in val]) if val else np.zeros(0, np.float32)
    in_shaker = np.concatenate([np.full(len(s.faces), s.image.name.startswith("shaker"))
                                for s in val]) if val else np.zeros(0, bool)
    measure = partial(scores, model, crops, geom, flags, val_margin, in_shaker)
    start, best = 0, -np.inf
    if resume and (out / "last.pt").is_file():
        start, best, _ = load_checkpoint(out / "last.pt", model, opt)
        log(event="resume", epoch=start)
    model.eval()  # folded batch norms: statistics and all stay as exported
    order_of = partial(epoch_order, flagged, flat, hard, leaning=leaning,
                       slight_repeat=slight_repeat)
    steps = max(1, len(order_of(np.random.default_rng(0))) // batch_size)
    s = measure()
    if select == "slight" and np.isnan(s["slight_flat"]):
        raise ValueError("select 'slight': the validation sets hold no slightly leaning "
                         "and flat shaker dice (generated scenes named shaker_*)")
    log(event="cache", dice=len(cache.faces), flagged=len(flagged), flat=len(flat),
        hard=len(hard), slight=len(leaning), steps=steps, init=str(init), select=select, **s)
    if start == 0:
        best = _selected(s, select)
        save_checkpoint(out / "best.pt", model, opt, 0, best)
    last = epochs if stop_after is None else min(epochs, start + stop_after)

    def score(epoch: int) -> float:
        s = measure()
        s.update(margin_scores(model, crops, geom, val_margin))
        model.eval()
        log(event="valid", epoch=epoch, **s)
        return _selected(s, select)

    return run_epochs(model, opt, out, log, seed=seed, start=start, last=last, epochs=epochs,
                      lr=lr, steps=steps, batch_size=batch_size, order_of=order_of,
                      batch_of=partial(make_batch, cache), loss_fn=flags_loss, log_every=20,
                      score=score, best=best)


def _selected(s: dict, select: str) -> float:
    """The number the best epoch maximises."""
    return -s["slight_flat"] if select == "slight" else float(np.nanmean([s["tilt_auc"],
                                                                          s["stacked_auc"]]))
