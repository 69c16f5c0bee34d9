"""Training the up-margin branch alone on a finished reader (`--stage margin`).

The margin branch (`nets.Reader.margin*`) has its own layers from the 16x16 features, so it
can learn on top of a committed reader whose every other weight stays as it was: its face,
pips, flags and die-or-not outputs, and every figure measured on them, do not move. The
start is the committed reader.onnx read back into torch (`onnx_import.py`). Only synthetic
dice carry the margin label; the rest of the cache is not used.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import torch

from dicecall.models.contract import MARGIN_SPAN_DEG
from dicecall.models.crops import CropCache, build_cache
from dicecall.models.data import Sample
from dicecall.models.evaluate import auc
from dicecall.models.nets import Reader
from dicecall.models.onnx_import import reader_from_onnx
from dicecall.models.read_train import _masked_bce, contract_crops, make_batch
from dicecall.models.trainloop import (
    RunLog,
    load_checkpoint,
    run_epochs,
    seed_everything,
)

PARTS = ("margin8", "margin4", "margin_geom", "margin")
VOID_DEG = 10.0  # the generated labels' void: up margin under 10 degrees
TILTED_DEG = 60.0  # dice under this margin (tilted past about 15 degrees) appear twice
PLAIN = 6000  # other synthetic dice drawn afresh each epoch


def trainable(model: Reader, parts: tuple[str, ...] = PARTS) -> list[torch.nn.Parameter]:
    """Freezes every layer but those of `parts` (the margin branch's); returns theirs."""
    keep = []
    for name, p in model.named_parameters():
        p.requires_grad = name.split(".")[0] in parts
        if p.requires_grad:
            keep.append(p)
    return keep


def margin_mode(model: Reader) -> Reader:
    """Batch norm of the frozen layers keeps its statistics; the branch's learns its own."""
    model.eval()
    for part in PARTS:
        getattr(model, part).train()
    return model


def margin_logit(model: Reader, crops: torch.Tensor, geom: torch.Tensor) -> torch.Tensor:
    """The margin output alone: the frozen layers it reads without a graph, then the branch."""
    with torch.no_grad():
        f16 = model.b16(model.b32(crops))
        f8, h8 = model.b8(f16), model.flag8(f16)
    return model.margin_head(f16, f8, h8, geom)


def margin_loss(model: Reader, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, dict]:
    """BCE of sigmoid(logit) against margin / MARGIN_SPAN_DEG, over dice with a label."""
    loss = _masked_bce(margin_logit(model, batch["crops"], batch["geom"]), batch["margin"])
    return loss, {"margin": loss.item()}


def epoch_order(cache: CropCache, rng: np.random.Generator) -> np.ndarray:
    """Every labelled die tilted past TILTED_DEG of margin twice, PLAIN others, shuffled."""
    known = ~np.isnan(cache.margin) & (cache.is_die > 0.5)
    tilted = np.nonzero(known & (cache.margin < TILTED_DEG))[0]
    plain = np.nonzero(known & (cache.margin >= TILTED_DEG))[0]
    if len(plain) > PLAIN:
        plain = rng.choice(plain, PLAIN, replace=False)
    return rng.permutation(np.concatenate([tilted, tilted, plain]))


@torch.no_grad()
def scores(model: Reader, crops: np.ndarray, geom: np.ndarray, margin: np.ndarray) -> dict:
    """Mean absolute difference in degrees between the margin read (capped at
    MARGIN_SPAN_DEG) and the label (not capped) over dice labelled under TILTED_DEG, and how
    well the margin ranks voids (AUC of a low margin for dice under VOID_DEG against every
    other labelled die). The model that was committed was chosen on these two as they are."""
    model.eval()
    pred = torch.cat([torch.sigmoid(margin_logit(model, torch.from_numpy(crops[i : i + 256]),
                                                 torch.from_numpy(geom[i : i + 256])))[:, 0]
                      for i in range(0, len(crops), 256)]).numpy() * MARGIN_SPAN_DEG
    margin_mode(model)
    tilted = margin < TILTED_DEG
    mae = float(np.abs(pred - margin)[tilted].mean()) if tilted.any() else float("nan")
    void = margin < VOID_DEG
    if not void.any() or void.all():
        return {"mae_tilted": mae, "void_auc": float("nan")}
    pos, neg = pred[void], pred[~void]
    return {"mae_tilted": mae, "void_auc": auc(-pos, -neg)}  # a low margin ranks a void


def train_margin(train: list[Sample], valid: list[Sample], init: Path, out: Path, epochs: int,
                 seed: int, resume: bool, batch_size: int = 128, lr: float = 3e-3,
                 stop_after: int | None = None) -> Path:
    """Trains the margin branch of the reader in `init` (ONNX); returns best.pt's path.

    The checkpoints hold the whole reader, so `models export` takes them as any reader run.

    Raises:
        ValueError: `init` lacks a layer other than the margin branch's.
    """
    log = RunLog(out)
    model, untouched = reader_from_onnx(init)
    missing = sorted({n.split(".")[0] for n in untouched} - set(PARTS))
    if missing:
        raise ValueError(f"{init}: lacks {missing}, which this stage does not train")
    # The branch starts afresh from the seed, also on a reader that has one (the committed
    # reader since session 11), so either file trains the same branch.
    seed_everything(seed)
    blank = Reader()
    for part in PARTS:
        getattr(model, part).load_state_dict(getattr(blank, part).state_dict())
    opt = torch.optim.AdamW(trainable(model), lr=lr, weight_decay=5e-4)
    start, best = 0, -np.inf
    if resume and (out / "last.pt").is_file():
        start, best, _ = load_checkpoint(out / "last.pt", model, opt)
        log(event="resume", epoch=start)
    margin_mode(model)
    synth = [s for s in train if s.margin is not None]
    cache = build_cache(synth)
    val = [s for s in valid if s.margin is not None]
    crops, geom = contract_crops(val)[:2]
    val_margin = np.concatenate([s.margin for s in val]) if val else np.zeros(0, np.float32)
    steps = max(1, len(epoch_order(cache, np.random.default_rng(0))) // batch_size)
    log(event="cache", dice=len(cache.faces), steps=steps, init=str(init))
    last = epochs if stop_after is None else min(epochs, start + stop_after)

    def score(epoch: int) -> float:
        s = scores(model, crops, geom, val_margin)
        log(event="valid", epoch=epoch, **s)
        # Voids ranked first: that is the call it exists for; the error breaks ties.
        return float(np.nan_to_num(s["void_auc"]) - 1e-3 * np.nan_to_num(s["mae_tilted"]))

    return run_epochs(model, opt, out, log, seed=seed, start=start, last=last, epochs=epochs,
                      lr=lr, steps=steps, batch_size=batch_size,
                      order_of=partial(epoch_order, cache), batch_of=partial(make_batch, cache),
                      loss_fn=margin_loss, log_every=20, score=score, best=best)
