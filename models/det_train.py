"""Training the detector: CenterNet targets, losses, batches and the epoch loop."""

from __future__ import annotations

from functools import partial
from itertools import zip_longest
from pathlib import Path

import cv2
import numpy as np
import torch

from dicecall.models.augment import detector_view, photometric
from dicecall.models.contract import DET_SIZE, DET_STRIDE, letterbox
from dicecall.models.data import Sample, read_rgb
from dicecall.models.evaluate import decode, match
from dicecall.models.nets import Detector
from dicecall.models.trainloop import (
    RunLog,
    load_checkpoint,
    run_epochs,
    save_checkpoint,
    seed_everything,
)

PATCH = 192  # training crops of the 320 canvas: the net is convolutional, and ~3x cheaper
MAX_SIDE = 960  # images are cached no larger than this; synthetic frames may be bigger
MIN_DIE = 3.0  # dice smaller than this many input pixels are left out of the targets
SYNTH_PER_REAL = 2.0  # synthetic scenes per real photo in one epoch
FINETUNE_LR = 3e-4  # a tenth of the from-scratch rate: the start is a trained detector
VAL_T = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)  # heatmap thresholds tried at validation


def cache_images(samples: list[Sample]) -> list[tuple[np.ndarray, np.ndarray, bool]]:
    """Loads every image once; returns (image, boxes, whole_box), the image as its file's
    bytes, or shrunk to MAX_SIDE as pixels when larger. Kept encoded because an epoch views a
    few thousand of the images: decoded, two runs side by side (11.5 and 12.5 GB, one loading
    15,614 scenes of 640x480) ran out of this machine's 24 GB (session 31); encoded, 57 KB each
    (3,000 craps scenes: 383 MB against 2,894 MB; a batch of 16 views 125 ms against 107)."""
    out = []
    for s in samples:
        img = read_rgb(s.image)
        k = min(1.0, MAX_SIDE / max(img.shape[:2]))
        if k < 1.0:
            img = cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
        else:
            img = np.fromfile(s.image, np.uint8)
        out.append((img, s.boxes * k, s.whole_box))
    return out


def cached_rgb(img: np.ndarray) -> np.ndarray:
    """A `cache_images` image as [H, W, 3] RGB: pixels as they are, file bytes decoded as
    `read_rgb` decodes them (the same decoder, so the same pixels)."""
    if img.ndim == 3:
        return img
    return cv2.cvtColor(cv2.imdecode(img, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def build_targets(dice: np.ndarray, whole_box: bool, size: int) -> dict[str, np.ndarray]:
    """CenterNet targets for one view.

    Args:
        dice: [K, 4] cx, cy, w, h, input pixels of a `size` x `size` view.
        whole_box: the box sizes are whole-die sizes and may train the wh output.
        size: view side, pixels.

    Returns:
        heat [1, G, G] gaussian peaks; mask [G, G] 1 at centre cells; wh [2, G, G] and
        off [2, G, G] regression targets at centre cells; whmask [G, G].
    """
    g = size // DET_STRIDE
    heat = np.zeros((g, g), np.float32)
    mask, whmask = np.zeros((g, g), np.float32), np.zeros((g, g), np.float32)
    wh, off = np.zeros((2, g, g), np.float32), np.zeros((2, g, g), np.float32)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    for cx, cy, w, h in dice:
        if not (0 <= cx < size and 0 <= cy < size) or max(w, h) < MIN_DIE:
            continue
        fx, fy = cx / DET_STRIDE, cy / DET_STRIDE
        ix, iy = int(fx), int(fy)
        # Peak width grows with the die, as CenterNet's radius does; tiny dice get one cell.
        sigma = max(0.5, 0.12 * min(w, h) / DET_STRIDE)
        heat = np.maximum(heat, np.exp(-((xx - ix) ** 2 + (yy - iy) ** 2) / (2 * sigma**2)))
        heat[iy, ix] = 1.0
        mask[iy, ix] = 1.0
        off[:, iy, ix] = (fx - ix, fy - iy)
        if whole_box:
            wh[:, iy, ix] = (w, h)
            whmask[iy, ix] = 1.0
    return {"heat": heat[None], "mask": mask, "wh": wh, "off": off, "whmask": whmask}


def make_batch(cache, idx: np.ndarray, rng: np.random.Generator, duotone: float = 0.0
               ) -> dict[str, torch.Tensor]:
    """Augmented views of cache[idx], cropped to PATCH, with their targets, as tensors;
    `duotone`: `augment.photometric`'s."""
    images, targets = [], []
    for i in idx:
        img, boxes, whole = cache[i]
        canvas, dice = detector_view(cached_rgb(img), boxes, rng)
        canvas = photometric(canvas, rng, duotone=duotone)
        x0, y0 = rng.integers(0, DET_SIZE - PATCH + 1, 2)
        x0, y0 = x0 // DET_STRIDE * DET_STRIDE, y0 // DET_STRIDE * DET_STRIDE
        images.append(canvas[y0 : y0 + PATCH, x0 : x0 + PATCH])
        targets.append(build_targets(dice - np.array([x0, y0, 0, 0], np.float32), whole, PATCH))
    batch = {k: torch.from_numpy(np.stack([t[k] for t in targets])) for k in targets[0]}
    x = np.stack(images).astype(np.float32).transpose(0, 3, 1, 2) / 255.0
    batch["image"] = torch.from_numpy(x)
    return batch


def focal_loss(pred: torch.Tensor, gt: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss, normalised by the number of centres."""
    pred = pred.clamp(1e-4, 1 - 1e-4)
    pos = gt.eq(1).float()
    pos_loss = torch.log(pred) * (1 - pred) ** 2 * pos
    neg_loss = torch.log(1 - pred) * pred**2 * (1 - gt) ** 4 * (1 - pos)
    return -(pos_loss.sum() + neg_loss.sum()) / pos.sum().clamp(min=1)


def detector_loss(model: Detector, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, dict]:
    """Heatmap focal loss + offset L1 + 0.1 * log-size L1 (sizes masked where unknown)."""
    heat, log_wh, off = model.forward_train(batch["image"])
    lh = focal_loss(heat, batch["heat"])
    m = batch["mask"][:, None]
    lo = ((off - batch["off"]).abs() * m).sum() / m.sum().clamp(min=1)
    wm = batch["whmask"][:, None]
    # Log-size error: a 2 px miss matters on a 10 px die, not on a 90 px one.
    lw = ((log_wh - torch.log(batch["wh"].clamp(min=1))).abs() * wm).sum()
    lw = lw / (2 * wm.sum()).clamp(min=1)
    return lh + lo + lw, {"heat": lh.item(), "off": lo.item(), "wh": lw.item()}


@torch.no_grad()
def validate(model: Detector, samples: list[Sample], thresholds: tuple[float, ...]) -> list[dict]:
    """Per threshold: dice found / labelled and false detections per image, at the contract's
    letterbox (the threshold is the runtime's to choose, so the checkpoint is not judged at
    one fixed value)."""
    was_training = model.training
    model.eval()
    dets = []
    for s in samples:
        x, scale = letterbox(read_rgb(s.image))
        heat, wh, off = (t[0].numpy() for t in model(torch.from_numpy(x)))
        # 3x3 peaks only (nms_frac=0): the stricter count, and how the committed run chose
        # its best epoch.
        dets.append((decode(heat[0], wh, off, scale, min(thresholds), nms_frac=0.0), s.boxes))
    model.train(was_training)  # a fine-tune keeps its folded batch norms in eval mode
    rows = []
    for t in thresholds:
        found = false = 0
        for d, boxes in dets:
            keep = d[d[:, 4] >= t]
            n = len(match(keep[:, :2], boxes))
            found, false = found + n, false + len(keep) - n
        rows.append({"found": found / max(1, sum(len(b) for _, b in dets)),
                     "false_per_image": false / max(1, len(dets))})
    return rows


def epoch_order(synthetic: np.ndarray, rng: np.random.Generator,
                synth_per_real: float = SYNTH_PER_REAL) -> np.ndarray:
    """All real images plus SYNTH_PER_REAL times as many synthetic ones (at most), shuffled:
    the few real photos are not drowned, and each epoch sees a fresh draw of synthetic
    scenes."""
    real, synth = np.nonzero(~synthetic)[0], np.nonzero(synthetic)[0]
    cap = max(int(synth_per_real * len(real)), 64)
    if len(synth) > cap:
        synth = rng.choice(synth, cap, replace=False)
    return rng.permutation(np.concatenate([real, synth]))


def train_detector(train: list[Sample], valid: list[Sample], out: Path, epochs: int, seed: int,
                   resume: bool, batch_size: int = 16, lr: float = 3e-3,
                   stop_after: int | None = None, init: Path | None = None,
                   synth_per_real: float = SYNTH_PER_REAL, duotone: float = 0.0,
                   width: int = 24) -> Path:
    """Trains, validating and checkpointing every epoch; returns the best checkpoint's path.

    `stop_after` ends this call after that many epochs, as an interruption would (tests).
    `init`: a detector ONNX to fine-tune instead of training from the seed, in eval mode
    (the export folded its batch norms, so batch statistics would undo them) at `lr`
    (FINETUNE_LR from the command line); its own score is epoch 0's, so the best checkpoint
    is never worse than the start by the selection score. `duotone`: the share of views
    recoloured in two random colours (`augment.two_colours`): a black die with gold pips on
    dark felt was found as single pips, or not at all (models/detector.md, session 30).
    `width`: the first stage's channels of a detector trained from the seed (24 committed);
    a fine-tune keeps its start's.
    """
    log = RunLog(out)
    seed_everything(seed)
    if init is None:
        model = Detector(width=width)
    else:
        from dicecall.models.onnx_import import detector_from_onnx

        model, _ = detector_from_onnx(init)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    start, best = 0, -1e9
    if resume and (out / "last.pt").is_file():
        start, best, _ = load_checkpoint(out / "last.pt", model, opt)
        log(event="resume", epoch=start)
    cache = cache_images(train)
    synthetic = np.array([s.source.startswith("synthetic") for s in train])
    steps = max(1, len(epoch_order(synthetic, np.random.default_rng(0), synth_per_real))
                // batch_size)
    last = epochs if stop_after is None else min(epochs, start + stop_after)

    def score_of(epoch: int) -> float:
        real = validate(model, [s for s in valid if not s.source.startswith("synth")], VAL_T)
        syn = validate(model, [s for s in valid if s.source.startswith("synth")], VAL_T)
        scores = [sum(v["found"] - v["false_per_image"] for v in pair if v)
                  for pair in zip_longest(real, syn)]
        k = int(np.argmax(scores))
        log(event="valid", epoch=epoch, threshold=VAL_T[k], score=scores[k],
            real=real[k] if real else None, synthetic=syn[k] if syn else None)
        return float(scores[k])

    if init is not None and start == 0:
        best = score_of(0)
        save_checkpoint(out / "best.pt", model, opt, 0, best)
    return run_epochs(model, opt, out, log, seed=seed, start=start, last=last, epochs=epochs,
                      lr=lr, steps=steps, batch_size=batch_size,
                      order_of=partial(epoch_order, synthetic, synth_per_real=synth_per_real),
                      batch_of=partial(make_batch, cache, duotone=duotone),
                      loss_fn=detector_loss, log_every=10,
                      score=score_of, best=best)
