"""What both training loops share: seeding, checkpoints, learning rate, logging.

Reproducibility: every epoch draws its data order and augmentation from a generator seeded
by (seed, epoch), and re-seeds torch the same way, so a run resumed from the checkpoint of
epoch e continues exactly as the uninterrupted run would have.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import torch


def seed_everything(seed: int, epoch: int = 0) -> np.random.Generator:
    """Seeds python, numpy and torch for one epoch; returns the epoch's numpy generator."""
    mixed = seed * 100_003 + epoch
    random.seed(mixed)
    np.random.seed(mixed % 2**32)
    torch.manual_seed(mixed)
    return np.random.default_rng([seed, epoch])


def setup_torch(threads: int = 2) -> None:
    """Two threads: the machine has two cores, shared with other jobs."""
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True, warn_only=True)


def cosine_lr(step: int, total: int, base: float, warmup: int = 100) -> float:
    """Learning rate with linear warm-up then cosine decay to 2% of `base`."""
    if step < warmup:
        return base * (step + 1) / warmup
    t = min(1.0, (step - warmup) / max(1, total - warmup))
    return base * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * t)))


def save_checkpoint(path: Path, model: torch.nn.Module, opt: torch.optim.Optimizer,
                    epoch: int, best: float, extra: dict | None = None) -> None:
    """Writes the state after `epoch` (1-based count of finished epochs) atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch,
                "best": best, "extra": extra or {}}, tmp)
    tmp.replace(path)


def load_checkpoint(path: Path, model: torch.nn.Module,
                    opt: torch.optim.Optimizer | None = None) -> tuple[int, float, dict]:
    """Restores model (and optimizer); returns (finished epochs, best score, extra)."""
    state = torch.load(path, map_location="cpu", weights_only=False)
    model.load_state_dict(state["model"])
    if opt is not None:
        opt.load_state_dict(state["opt"])
    return int(state["epoch"]), float(state["best"]), dict(state.get("extra", {}))


class RunLog:
    """Appends one JSON line per event to `log.jsonl` and echoes a short line."""

    def __init__(self, out: Path, echo: bool = True) -> None:
        out.mkdir(parents=True, exist_ok=True)
        self.path = out / "log.jsonl"
        self.echo = echo
        self.t0 = time.time()

    def __call__(self, **fields) -> None:
        fields = {"t": round(time.time() - self.t0, 1), **fields}
        with self.path.open("a") as fh:
            fh.write(json.dumps(fields) + "\n")
        if self.echo:
            print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                           for k, v in fields.items()), flush=True)


def train_epoch(model: torch.nn.Module, opt: torch.optim.Optimizer, batches, loss_fn,
                epoch: int, epochs: int, lr: float, log: RunLog, log_every: int) -> None:
    """One epoch of optimizer steps with the cosine schedule.

    Args:
        batches: a list of callables, one per step, each returning a batch (built lazily so
            augmentation draws happen in step order, as the seeded generator expects).
        loss_fn: (model, batch) -> (loss tensor, dict of float parts).
        epoch: 0-based epoch; epochs: total epochs of the schedule.
    """
    steps = len(batches)
    for b, make in enumerate(batches):
        for group in opt.param_groups:
            group["lr"] = cosine_lr(epoch * steps + b, epochs * steps, lr)
        loss, parts = loss_fn(model, make())
        opt.zero_grad()
        loss.backward()
        opt.step()
        if b % log_every == 0:
            log(epoch=epoch + 1, step=b, loss=loss.item(), **parts)


def run_epochs(model: torch.nn.Module, opt: torch.optim.Optimizer, out: Path, log: RunLog, *,
               seed: int, start: int, last: int, epochs: int, lr: float, steps: int,
               batch_size: int, order_of: Callable, batch_of: Callable, loss_fn: Callable,
               log_every: int, score: Callable[[int], float], best: float) -> Path:
    """Epochs `start`..`last` - 1 of a run, as every stage trains them.

    Each epoch draws its data order (`order_of(rng)`) and its batches (`batch_of(indices,
    rng)`, built lazily) from the generator of (seed, epoch), trains, and is scored by
    `score(finished epochs)`; best.pt is written when the score beats `best`, last.pt always.
    Returns the path of best.pt.
    """
    if start >= last:  # a resumed run that had finished: nothing left, and it says so
        log(event="finished", epochs=start)
    for epoch in range(start, last):
        rng = seed_everything(seed, epoch + 1)
        order = order_of(rng)
        batches = [partial(batch_of, order[b * batch_size : (b + 1) * batch_size], rng)
                   for b in range(steps)]
        train_epoch(model, opt, batches, loss_fn, epoch, epochs, lr, log, log_every)
        value = score(epoch + 1)
        if value > best:
            best = value
            save_checkpoint(out / "best.pt", model, opt, epoch + 1, best)
        save_checkpoint(out / "last.pt", model, opt, epoch + 1, best)
    return out / "best.pt"
