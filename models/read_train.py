"""Training the reader on the crop cache: face, pip heatmap, tilt and stacked heads."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import cv2
import numpy as np
import torch
from torch.nn import functional as F

from dicecall.models.contract import (
    CROP_SCALE,
    CROP_SIZE,
    MARGIN_SPAN_DEG,
    crop_die,
    crops_to_input,
    die_geometry,
)
from dicecall.models.crops import CropCache, build_cache, die_size, random_crop
from dicecall.models.data import Sample, read_rgb
from dicecall.models.det_train import focal_loss
from dicecall.models.evaluate import recipe_count_pips
from dicecall.models.negatives import geometry as negatives_geometry
from dicecall.models.nets import Reader
from dicecall.models.trainloop import (
    RunLog,
    load_checkpoint,
    run_epochs,
    save_checkpoint,
    seed_everything,
)
from dicecall.vision.preprocess import SOFTEN_BELOW

REAL_REPEAT = 2  # each real die appears this often per epoch: real photos are few
SYNTH_PER_REAL = 2.0  # at most this many synthetic dice per real die in one epoch
FLAG_REPEAT = 2  # cocked and stacked dice are a few percent of the scenes; the regulation's
# no-roll calls depend on them, so each appears this often per epoch
# Weight of the flags' balanced accuracy (logged every epoch) in choosing the best epoch. The
# reader before session 4 was chosen on the face alone (0); since the flags have layers of
# their own and the no-roll calls rest on them, they count (models/reader.md).
FLAG_WEIGHT = 0.25
# Negatives (negatives.py) per labelled die in one epoch; the die-or-not head needs enough to
# learn chips and d20s, not so many that the face heads see fewer dice.
NEG_PER_DIE = 0.3
DIE_WEIGHT = 0.25  # weight of the die-or-not balanced accuracy in choosing the best epoch
# Weight of the pip count's synthetic validation accuracy in choosing the best epoch: a roll
# whose readings disagree goes to review, so the second reading counts too (session 10).
PIP_WEIGHT = 0.25
# Fine-tuning a finished reader read back from ONNX (`init`): its batch norms are folded, so
# every layer stays in eval mode, and AdamW moves each weight by about lr a step whatever its
# size; 1e-3 lowered the flags' AUCs when only they trained (flags_train.py, session 12).
FINETUNE_LR = 2e-4


def make_batch(cache: CropCache, idx: np.ndarray, rng: np.random.Generator,
               duotone: float = 0.0, soften: float = 0.0) -> dict[str, torch.Tensor]:
    """Augmented crops of the dice `idx` with their targets, as tensors; `duotone`:
    `augment.photometric`'s, `soften`: `crops.random_crop`'s."""
    crops, heats, geom = zip(*(random_crop(cache, int(i), rng, duotone, soften) for i in idx),
                             strict=True)
    return {
        "crops": torch.from_numpy(crops_to_input(np.stack(crops))),
        "geom": torch.from_numpy(np.stack(geom).astype(np.float32)),
        "face": torch.from_numpy(cache.faces[idx] - 1),
        "pips": torch.from_numpy(np.stack(heats)[:, None]),
        "tilt": torch.from_numpy(cache.tilt[idx]),
        "stacked": torch.from_numpy(cache.stacked[idx]),
        "die": torch.from_numpy(cache.is_die[idx]),
        # Turning or mirroring a crop leaves the margin as it is.
        "margin": torch.from_numpy(np.clip(cache.margin[idx] / MARGIN_SPAN_DEG, 0.0, 1.0)),
    }


def _masked_bce(logit: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Binary cross-entropy over the rows whose label is known (not NaN)."""
    known = ~torch.isnan(target)
    if not known.any():
        return logit.sum() * 0.0
    return F.binary_cross_entropy_with_logits(logit[:, 0][known], target[known])


def reader_loss(model: Reader, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, dict]:
    """Face cross-entropy + pip focal loss + tilt, stacked and die-or-not BCE + the up
    margin's BCE on a soft target (margin / MARGIN_SPAN_DEG); unknown labels masked, and a
    negative (no die) scores only on the die-or-not head."""
    face, pip, tilt, stacked, die, margin = model(batch["crops"], batch["geom"])
    pos = batch["die"] > 0.5
    lf = (F.cross_entropy(face[pos], batch["face"][pos], label_smoothing=0.05) if pos.any()
          else face.sum() * 0.0)
    known = pos & (batch["pips"][:, 0, 0, 0] >= 0)
    lp = focal_loss(pip[known], batch["pips"][known]) if known.any() else pip.sum() * 0.0
    lt = _masked_bce(tilt, batch["tilt"])
    ls = _masked_bce(stacked, batch["stacked"])
    ld = F.binary_cross_entropy_with_logits(die[:, 0], batch["die"])
    lm = _masked_bce(margin, batch["margin"])
    # The pip map is the second, independent reading (623a.9(c) review on disagreement) and
    # the flags decide no-rolls: they weigh as much as the face.
    loss = lf + lp + lt + ls + ld + lm
    return loss, {"face": lf.item(), "pip": lp.item(), "tilt": lt.item(), "stacked": ls.item(),
                  "die": ld.item(), "margin": lm.item()}


def contract_crops(samples: list[Sample], negatives: list[np.ndarray] | None = None,
                   soften: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Reader inputs cut exactly as the runtime does, around the labelled dice, or around
    each sample's negatives ([M, 3] cx, cy, size) when they are given. `soften`: the
    runtime's `ReaderConfig.soften_sigma`; a crop cut at a scale under `SOFTEN_BELOW` is
    blurred as the runtime blurs it, so a stage trained with `--soften` is scored on the
    crops it will be given (models/reader.md, session 53, left it scored on crops as cut).

    Returns:
        (crops, geom, faces, flags): [D, 3, 64, 64] float32; [D, 3] float32 die geometry;
        [D] int64 faces 1-6 (0 for a negative); [D, 2] float32 tilt and stacked labels
        (NaN = unknown).
    """
    crops, geom, faces, flags = [], [], [], []
    for i, s in enumerate(samples):
        frame = read_rgb(s.image)
        if negatives is None:
            where = np.column_stack([s.centres, die_size(s)])
            g = die_geometry(s.centres, die_size(s), frame.shape, s.view)
            labels = list(zip(s.faces, s.tilt, s.stacked, strict=True))
        else:
            where = negatives[i]
            g = negatives_geometry(s, where, frame.shape)
            labels = [(0, np.nan, np.nan)] * len(where)
        geom.append(g)
        for (cx, cy, size), (face, tilt, stacked) in zip(where, labels, strict=True):
            crop = crop_die(frame, cx, cy, CROP_SCALE * size)
            if soften > 0 and CROP_SIZE / max(CROP_SCALE * float(size), 1.0) < SOFTEN_BELOW:
                crop = cv2.GaussianBlur(crop, (0, 0), soften)
            crops.append(crop)
            faces.append(face)
            flags.append((tilt, stacked))
    if not crops:
        return (np.zeros((0, 3, 64, 64), np.float32), np.zeros((0, 3), np.float32),
                np.zeros(0, np.int64), np.zeros((0, 2), np.float32))
    return (crops_to_input(np.stack(crops)), np.concatenate(geom), np.array(faces, np.int64),
            np.array(flags, np.float32))


@torch.no_grad()
def accuracy(model: Reader, crops: np.ndarray, geom: np.ndarray, faces: np.ndarray,
             flags: np.ndarray) -> tuple[float, float, float]:
    """Fractions of crops whose arg-max face, and whose pip count, equal the label, and the
    balanced accuracy of the tilt and stacked flags at 0.5, averaged over the flags that have
    both classes (NaN when there is nothing to score)."""
    if len(faces) == 0:
        return float("nan"), float("nan"), float("nan")
    was = model.training
    model.eval()
    outs = [model(torch.from_numpy(crops[i : i + 256]), torch.from_numpy(geom[i : i + 256]))
            for i in range(0, len(crops), 256)]
    model.train(was)
    pred = torch.cat([o[0].argmax(1) for o in outs]).numpy() + 1
    heat = torch.cat([o[1] for o in outs]).numpy()
    pips = recipe_count_pips(heat)
    raised = np.stack([torch.cat([o[k] for o in outs])[:, 0].numpy() > 0 for k in (2, 3)], 1)
    balanced = []
    for k in range(2):
        known = ~np.isnan(flags[:, k])
        pos, neg = known & (flags[:, k] > 0.5), known & (flags[:, k] <= 0.5)
        if pos.any() and neg.any():
            balanced.append((raised[pos, k].mean() + (~raised[neg, k]).mean()) / 2)
    flag = float(np.mean(balanced)) if balanced else float("nan")
    return float((pred == faces).mean()), float((pips == faces).mean()), flag


@torch.no_grad()
def die_accuracy(model: Reader, dice: tuple[np.ndarray, np.ndarray],
                 places: tuple[np.ndarray, np.ndarray]) -> float:
    """Balanced accuracy of the die-or-not head at 0.5: labelled dice (crops, geom) kept,
    negatives (crops, geom) dropped. NaN when either set is empty."""
    if len(dice[0]) == 0 or len(places[0]) == 0:
        return float("nan")
    was = model.training
    model.eval()
    rates = []
    for crops, geom, keep in ((*dice, True), (*places, False)):
        logit = torch.cat([model(torch.from_numpy(crops[i : i + 256]),
                                 torch.from_numpy(geom[i : i + 256]))[4][:, 0]
                           for i in range(0, len(crops), 256)]).numpy()
        rates.append(float(((logit > 0) == keep).mean()))
    model.train(was)
    return float(np.mean(rates))


def epoch_order(cache: CropCache, rng: np.random.Generator,
                synth_per_real: float = SYNTH_PER_REAL) -> np.ndarray:
    """Every real die REAL_REPEAT times, every cocked or stacked synthetic die FLAG_REPEAT
    times, plus at most `synth_per_real` other synthetic dice per real one (a fresh draw each
    epoch), and NEG_PER_DIE negatives per die drawn, shuffled."""
    die = cache.is_die > 0.5
    flagged = (np.nan_to_num(cache.tilt) > 0) | (np.nan_to_num(cache.stacked) > 0)
    real = np.nonzero(die & cache.real)[0]
    flags = np.nonzero(die & ~cache.real & flagged)[0]
    synth = np.nonzero(die & ~cache.real & ~flagged)[0]
    cap = max(int(synth_per_real * len(real)), 2000)
    if len(synth) > cap:
        synth = rng.choice(synth, cap, replace=False)
    dice = np.concatenate([np.tile(real, REAL_REPEAT), np.tile(flags, FLAG_REPEAT), synth])
    neg = np.nonzero(~die)[0]
    if len(neg):
        n = int(NEG_PER_DIE * len(dice))
        neg = rng.choice(neg, n, replace=n > len(neg))
    return rng.permutation(np.concatenate([dice, neg]))


def train_reader(train: list[Sample], valid: list[Sample], out: Path, epochs: int, seed: int,
                 resume: bool, batch_size: int = 128, lr: float = 3e-3,
                 stop_after: int | None = None,
                 negatives: tuple[list[np.ndarray], list[np.ndarray]] | None = None,
                 synth_per_real: float = SYNTH_PER_REAL, init: Path | None = None) -> Path:
    """Trains, validating and checkpointing every epoch; returns the best checkpoint's path.

    `negatives` are (train, valid) places that are not dice, one [M, 3] array per sample
    (`negatives.mine`); without them the die-or-not head learns nothing. `stop_after` ends
    this call after that many epochs, as an interruption would (tests). `init`: a reader
    ONNX to fine-tune whole, every layer in eval mode (folded batch norms), at `lr`
    (FINETUNE_LR from the command line); its own score is epoch 0's, so the best checkpoint
    is never worse than the start by the selection score.
    """
    log = RunLog(out)
    seed_everything(seed)
    if init is None:
        model = Reader()
    else:
        from dicecall.models.onnx_import import whole_reader_from_onnx

        model = whole_reader_from_onnx(init)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    start, best = 0, -1.0
    if resume and (out / "last.pt").is_file():
        start, best, _ = load_checkpoint(out / "last.pt", model, opt)
        log(event="resume", epoch=start)
    cache = build_cache(train, None if negatives is None else negatives[0])
    synthetic = [s.source.startswith("synthetic") for s in valid]
    val_real = contract_crops([s for s, syn in zip(valid, synthetic, strict=True) if not syn])
    val_syn = contract_crops([s for s, syn in zip(valid, synthetic, strict=True) if syn])
    val_neg = (contract_crops(valid, negatives[1])[:2] if negatives is not None
               else (np.zeros((0, 3, 64, 64), np.float32), np.zeros((0, 3), np.float32)))
    val_dice = (np.concatenate([val_real[0], val_syn[0]]),
                np.concatenate([val_real[1], val_syn[1]]))
    steps = max(1, len(epoch_order(cache, np.random.default_rng(0), synth_per_real))
                // batch_size)
    log(event="cache", dice=int(cache.is_die.sum()), negatives=int((cache.is_die < 0.5).sum()),
        real=int(cache.real.sum()), steps=steps)
    last = epochs if stop_after is None else min(epochs, start + stop_after)

    def validate(epoch: int) -> float:
        (acc_real, _, _), (acc_syn, pip_syn, flag_syn) = (accuracy(model, *val_real),
                                                          accuracy(model, *val_syn))
        die_acc = die_accuracy(model, val_dice, val_neg)
        log(event="valid", epoch=epoch, real=acc_real, synthetic=acc_syn, pips=pip_syn,
            flags=flag_syn, die=die_acc)
        # The face alone chose the best epoch before; the cocked and die-on-die calls rest on
        # the flags, and the false dice on the die-or-not head, so they count too.
        faces = [a for a in (acc_real, acc_syn) if not np.isnan(a)]
        return float((np.mean(faces) if faces else 0.0) + FLAG_WEIGHT * np.nan_to_num(flag_syn)
                     + DIE_WEIGHT * np.nan_to_num(die_acc) + PIP_WEIGHT * np.nan_to_num(pip_syn))

    if init is not None and start == 0:
        best = validate(0)
        save_checkpoint(out / "best.pt", model, opt, 0, best)
    return run_epochs(model, opt, out, log, seed=seed, start=start, last=last, epochs=epochs,
                      lr=lr, steps=steps, batch_size=batch_size,
                      order_of=partial(epoch_order, cache, synth_per_real=synth_per_real),
                      batch_of=partial(make_batch, cache), loss_fn=reader_loss, log_every=20,
                      score=validate, best=best)
