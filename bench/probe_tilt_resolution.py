"""Is the tilt of a shallow-leaning shaker die limited by the crop's resolution? (issue 6)

A probe, not a model for the runtime (needs the `train` extra). The same small CNN learns
cocked-or-flat from label-box crops (1.5 x the box side, as the reader's contract crops) at
64 px, the reader's input, and at 128 px (one more stride-2 conv first), with the die's
view geometry (`die_geometry` with the scene's camera); then prints, each epoch, the tilt
AUC on held-out dice, over every cocked die and over the shallow leans (5-12 degrees)
against flat dice, and the share of flat dice flagged at the line that catches 95 % of the
shallow leans. Dice in the zone, not on another, at least 90 % visible.

    dicecall datasets generate --scene shaker --count 6000 --seed 401 --force lean=1 \
        --force stack=0 --force out=0 --out TRAIN
    (the same with --count 1500 --seed 402 --out VALID)
    python bench/probe_tilt_resolution.py --train TRAIN --valid VALID --res 64 --seed 0
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from dicecall.datasets.schema import load_folder
from dicecall.vision.preprocess import die_geometry, record_view

BATCH = 128


def load(folder: Path, res: int) -> tuple[np.ndarray, ...]:
    """Crops (N, res, res, 3) RGB uint8, geometry (N, 3), cocked (N,), tilt degrees (N,)."""
    crops, geoms, cocked, degrees = [], [], [], []
    for path, rec in load_folder(folder):
        dice = [d for d in rec.dice if d.in_zone and not d.stacked and d.visible >= 0.9]
        if not dice:
            continue
        img = cv2.cvtColor(cv2.imread(str(path.parent / rec.image)), cv2.COLOR_BGR2RGB)
        b = np.array([d.box for d in dice], np.float32)
        c = (b[:, :2] + b[:, 2:]) / 2
        s = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
        g = die_geometry(c, s, img.shape, record_view(rec))
        for k, d in enumerate(dice):
            half = 0.75 * s[k]
            z = res / (2 * half)
            m = np.float32([[z, 0, -(c[k, 0] - half) * z], [0, z, -(c[k, 1] - half) * z]])
            crops.append(cv2.warpAffine(img, m, (res, res), flags=cv2.INTER_AREA,
                                        borderMode=cv2.BORDER_REPLICATE))
            geoms.append(g[k])
            cocked.append(float(d.cocked))
            degrees.append(d.tilt_deg)
    return (np.stack(crops), np.stack(geoms).astype(np.float32),
            np.array(cocked, np.float32), np.array(degrees, np.float32))


def _block(cin: int, cout: int, stride: int) -> nn.Module:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


class Probe(nn.Module):
    """Four stride-2 stages to 4x4 (flattened, so the side that shows a side face
    survives), the geometry through 16 units, then 64 units and one logit."""

    def __init__(self, res: int) -> None:
        super().__init__()
        stem = [_block(3, 16, 2)] if res == 128 else []
        c0 = 16 if res == 128 else 3
        self.features = nn.Sequential(*stem, _block(c0, 24, 2), _block(24, 24, 1),
                                      _block(24, 48, 2), _block(48, 48, 1), _block(48, 64, 2),
                                      _block(64, 64, 1), _block(64, 96, 2))
        self.geom = nn.Sequential(nn.Linear(3, 16), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(96 * 16 + 16, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        return self.head(torch.cat([self.features(x).flatten(1), self.geom(g)], 1))[:, 0]


def auc(score: np.ndarray, positive: np.ndarray) -> float:
    """Mann-Whitney AUC of `score` for `positive` (> 0.5) against the rest."""
    order = np.argsort(score)
    rank = np.empty(len(order))
    rank[order] = np.arange(1, len(order) + 1)
    p = positive > 0.5
    return float((rank[p].sum() - p.sum() * (p.sum() + 1) / 2) / (p.sum() * (~p).sum()))


def jitter(x: torch.Tensor) -> torch.Tensor:
    """Each crop's brightness scaled and its channels shifted, as lights and dice differ."""
    return (x * torch.empty(len(x), 1, 1, 1).uniform_(0.7, 1.3)
            + torch.empty(len(x), 3, 1, 1).uniform_(-0.1, 0.1))


def step(opt, sched, loss: torch.Tensor) -> None:
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()


def _tensor(x: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(x).permute(0, 3, 1, 2).float() / 255


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", type=Path, required=True)
    ap.add_argument("--valid", type=Path, required=True)
    ap.add_argument("--res", type=int, choices=(64, 128), default=64)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    torch.set_num_threads(2)
    t0 = time.time()
    xt, gt, yt, _ = load(args.train, args.res)
    xv, gv, yv, dv = load(args.valid, args.res)
    print(f"res {args.res}: train {len(yt)} dice ({int(yt.sum())} cocked), valid {len(yv)} "
          f"({int(yv.sum())}); load {time.time() - t0:.0f} s", flush=True)
    net = Probe(args.res)
    opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=5e-4)
    steps = len(yt) // BATCH
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 2e-3, total_steps=args.epochs * steps)
    pos_weight = torch.tensor((1 - yt.mean()) / yt.mean())
    flat, shallow = yv < 0.5, (yv > 0.5) & (dv < 12)
    for epoch in range(args.epochs):
        net.train()
        order = rng.permutation(len(yt))
        for i in range(steps):
            idx = order[i * BATCH:(i + 1) * BATCH]
            x, g = _tensor(xt[idx]), torch.from_numpy(gt[idx].copy())
            if rng.random() < 0.5:  # a mirrored frame mirrors the view's lean with it
                x, g[:, 0] = x.flip(3), -g[:, 0]
            if rng.random() < 0.5:
                x, g[:, 1] = x.flip(2), -g[:, 1]
            loss = nn.functional.binary_cross_entropy_with_logits(
                net(jitter(x), g), torch.from_numpy(yt[idx]), pos_weight=pos_weight)
            step(opt, sched, loss)
        net.eval()
        with torch.no_grad():
            s = torch.cat([net(_tensor(xv[i:i + 256]), torch.from_numpy(gv[i:i + 256]))
                           for i in range(0, len(yv), 256)]).numpy()
        line = np.quantile(s[shallow], 0.05)  # catches 95 % of the shallow leans
        print(f"epoch {epoch + 1}: AUC all {auc(s, yv):.4f}, shallow (5-12 degrees, "
              f"{shallow.sum()} dice) {auc(s[flat | shallow], yv[flat | shallow]):.4f}; flat "
              f"flagged at 95 % shallow recall {100 * (s[flat] >= line).mean():.1f} %; "
              f"{time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
