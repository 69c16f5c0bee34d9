"""Can a crop tell which way a shaker die leans, and would that free flat dice? (issue 6)

A probe, not a model for the runtime (needs the `train` extra). Props & Hops holds most of
its good rolls because the tilt cannot tell a flat die from a shallow lean (5-12 degrees;
docs/verdicts.md). A die only leans on something: the shaker's wall or the other die. If
the reader also said which way a die leans, a flag whose lean points at nothing the die
touches could be a flat die's noise. This asks whether that is learnable before any head
is built: the same small CNN as `probe_tilt_resolution.py` learns cocked-or-flat and, on
cocked dice, the lean's direction in the image (the uppermost face's normal, projected)
from label-box crops at 64 px with the die's view geometry.

Prints, each epoch, on held-out dice in the zone, not on another, at least 90 % visible:
the tilt AUC (shallow leans against flat dice), the raised side's angular error on the
shallow leans (median, 90th, 99th percentile) and, for the dice the verdict would hold as
supported (another die or the wall within 1.3 sides, as `VerdictConfig.support_reach`),
the share of flat dice held at the tilt line catching 95 % and 99 % of the shallow leans,
by the tilt alone and by the tilt and a raised side within THETA degrees of a support.

    python bench/probe_lean_direction.py --make TRAIN --seed 105 --count 6000
    python bench/probe_lean_direction.py --make VALID --seed 106 --count 3000
    python bench/probe_lean_direction.py --train TRAIN --valid VALID --seed 0

`--make` renders `dicecall datasets generate --scene shaker --force lean=1 --force stack=0
--force out=0` scenes (the generator's own `make_scene`, the camera kept) into one .npz.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np

REACH = 1.3  # sides: VerdictConfig.support_reach
FORCE = {"lean": 1.0, "stack": 0.0, "out": 0.0}


def _rot(q: list[float]) -> np.ndarray:
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def lean_direction(cam, d) -> np.ndarray:
    """Unit image vector to the die's raised side, opposite the way its uppermost face's
    normal tilts (NaN when it points straight up): the die's centre and a point beside it,
    both projected. A die propped up on one side (on the wall's foot or on the other die)
    tilts away from what props it, so this points at its support (checked: `report`)."""
    r = _rot(d.quat_xyzw)
    normals = np.concatenate([r, -r], 1)  # columns: the six faces' normals
    n = normals[:, np.argmax(normals[2])]
    h = n[:2]
    if np.linalg.norm(h) < 1e-6:
        return np.full(2, np.nan)
    p = np.asarray(d.position_mm, float)
    q = p - np.array([*h / np.linalg.norm(h), 0.0]) * d.size_mm / 2
    v = np.diff(cam.project(np.stack([p, q])), axis=0)[0]
    return v / np.linalg.norm(v)


def supports(c: np.ndarray, s: np.ndarray, zone: np.ndarray) -> list[list[np.ndarray]]:
    """Per die, unit image vectors to what it could lean on within REACH sides: the other
    dice's centres and the nearest point of the shaker's edge."""
    out = []
    for k in range(len(c)):
        vs = []
        for j in range(len(c)):
            v = c[j] - c[k]
            if j != k and np.linalg.norm(v) <= REACH * s[k]:
                vs.append(v / np.linalg.norm(v))
        a, b = zone, np.roll(zone, -1, 0)
        ab = b - a
        t = np.clip(((c[k] - a) * ab).sum(1) / np.maximum((ab * ab).sum(1), 1e-9), 0, 1)
        near = a + t[:, None] * ab
        dist = np.linalg.norm(near - c[k], axis=1)
        i = int(np.argmin(dist))
        if dist[i] <= REACH * s[k] and dist[i] > 0:
            vs.append((near[i] - c[k]) / dist[i])
        out.append(vs)
    return out


def _worker(args: tuple[int, int, int, int]) -> dict:
    seed, start, stop, res = args
    import dicecall.datasets.scene as scene
    from dicecall.datasets.physics import Sim
    from dicecall.vision.preprocess import die_geometry, record_view

    kept: dict = {}
    real = scene.sample_camera

    def keep(*a, **k):
        kept["cam"] = real(*a, **k)
        return kept["cam"]

    scene.sample_camera = keep
    sim = Sim()
    rows: dict[str, list] = {k: [] for k in ("crop", "geom", "cocked", "deg", "dir", "sup",
                                             "wall", "scene")}
    for i in range(start, stop):
        jpeg, rec = scene.make_scene(sim, "shaker", scene.scene_seed(seed, i), 640, 480,
                                     force_probability=FORCE)
        cam = kept["cam"][0]
        img = cv2.cvtColor(cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR),
                           cv2.COLOR_BGR2RGB)
        dice = [d for d in rec.dice if d.in_zone and not d.stacked and d.visible >= 0.9]
        if not dice or "shaker" not in rec.zones:
            continue
        b = np.array([d.box for d in dice], np.float32)
        c = (b[:, :2] + b[:, 2:]) / 2
        s = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
        g = die_geometry(c, s, img.shape, record_view(rec))
        sup = supports(c, s, np.asarray(rec.zones["shaker"], float))
        for k, d in enumerate(dice):
            half = 0.75 * s[k]
            z = res / (2 * half)
            m = np.float32([[z, 0, -(c[k, 0] - half) * z], [0, z, -(c[k, 1] - half) * z]])
            rows["crop"].append(cv2.warpAffine(img, m, (res, res), flags=cv2.INTER_AREA,
                                               borderMode=cv2.BORDER_REPLICATE))
            rows["geom"].append(g[k])
            rows["cocked"].append(float(d.cocked))
            rows["deg"].append(d.tilt_deg)
            rows["dir"].append(lean_direction(cam, d))
            vs = sup[k] + [np.full(2, np.nan)] * (3 - len(sup[k]))
            rows["sup"].append(np.stack(vs[:3]))
            rows["wall"].append(d.leaning_on == "wall")
            rows["scene"].append(i)
    return {k: np.asarray(v) for k, v in rows.items()}


def make(out: Path, seed: int, count: int, res: int = 64, workers: int = 2) -> None:
    from multiprocessing import get_context

    parts = [(seed, a, min(count, a + 250), res) for a in range(0, count, 250)]
    with get_context("fork").Pool(workers) as pool:
        got = pool.map(_worker, parts)
    np.savez_compressed(out, **{k: np.concatenate([g[k] for g in got]) for k in got[0]})


def angle(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Degrees between unit vectors, row by row (NaN where either is NaN)."""
    return np.degrees(np.arccos(np.clip((a * b).sum(-1), -1, 1)))


def near_support(pred: np.ndarray, sup: np.ndarray) -> np.ndarray:
    """Degrees from each predicted lean to the nearest of its supports (inf: none)."""
    a = np.degrees(np.arccos(np.clip((pred[:, None, :] * sup).sum(-1), -1, 1)))
    return np.where(np.isnan(a), np.inf, a).min(1)


def train(tr: Path, va: Path, seed: int, epochs: int) -> None:
    import torch
    from probe_tilt_resolution import BATCH, Probe, _tensor, auc, jitter, step
    from torch import nn

    torch.manual_seed(seed)
    torch.set_num_threads(2)
    rng = np.random.default_rng(seed)
    t, v = np.load(tr), np.load(va)
    xt, gt, yt = t["crop"], t["geom"].astype(np.float32), t["cocked"].astype(np.float32)
    dt = np.nan_to_num(t["dir"]).astype(np.float32)
    mt = ((yt > 0.5) & ~np.isnan(t["dir"][:, 0])).astype(np.float32)
    print(f"train {len(yt)} dice ({int(yt.sum())} cocked), valid {len(v['cocked'])} "
          f"({int(v['cocked'].sum())})", flush=True)
    net = Probe(64)
    net.head[-1] = nn.Linear(64, 3)  # tilt logit, then the raised side's (x, y)
    opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=5e-4)
    steps = len(yt) // BATCH
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 2e-3, total_steps=epochs * steps)
    pos_weight = torch.tensor((1 - yt.mean()) / yt.mean())

    def forward(x, g):
        return net.head(torch.cat([net.features(x).flatten(1), net.geom(g)], 1))

    for epoch in range(epochs):
        net.train()
        order = rng.permutation(len(yt))
        for i in range(steps):
            idx = order[i * BATCH:(i + 1) * BATCH]
            x, g = _tensor(xt[idx]), torch.from_numpy(gt[idx].copy())
            d = torch.from_numpy(dt[idx].copy())
            if rng.random() < 0.5:  # a mirrored frame mirrors the lean and the view with it
                x, g[:, 0], d[:, 0] = x.flip(3), -g[:, 0], -d[:, 0]
            if rng.random() < 0.5:
                x, g[:, 1], d[:, 1] = x.flip(2), -g[:, 1], -d[:, 1]
            out = forward(jitter(x), g)
            p = nn.functional.normalize(out[:, 1:], dim=1)
            m = torch.from_numpy(mt[idx])
            loss = (nn.functional.binary_cross_entropy_with_logits(
                out[:, 0], torch.from_numpy(yt[idx]), pos_weight=pos_weight)
                + ((1 - (p * d).sum(1)) * m).sum() / m.sum().clamp(min=1))
            step(opt, sched, loss)
        net.eval()
        with torch.no_grad():
            o = torch.cat([forward(_tensor(v["crop"][i:i + 256]),
                                   torch.from_numpy(v["geom"][i:i + 256].astype(np.float32)))
                           for i in range(0, len(v["cocked"]), 256)]).numpy()
        report(epoch + 1, o, v, auc)


def _line(score: np.ndarray, ok: np.ndarray, recall: float) -> float:
    """The highest tilt line at which the dice held (`ok` and over the line) are at least
    `recall` of all; -inf when `ok` alone holds fewer."""
    need = int(np.ceil(recall * len(score)))
    s = np.sort(score[ok])[::-1]
    return float(s[need - 1]) if 0 < need <= len(s) else -np.inf


def report(epoch: int, o: np.ndarray, v, auc) -> None:
    y, deg = v["cocked"] > 0.5, v["deg"]
    s = o[:, 0]
    pred = o[:, 1:] / np.linalg.norm(o[:, 1:], axis=1, keepdims=True)
    flat, shallow = ~y, y & (deg >= 5) & (deg < 12)
    err = angle(pred[shallow], v["dir"][shallow])
    to_sup = near_support(pred, v["sup"])
    true_sup = near_support(np.nan_to_num(v["dir"]), v["sup"])
    held = to_sup < np.inf  # the verdict holds a flag only where a support is in reach
    line = [f"epoch {epoch}: AUC shallow {auc(s[flat | shallow], y[flat | shallow]):.4f}; "
            f"lean error on {shallow.sum()} shallow, degrees: median "
            f"{np.median(err):.0f}, p90 {np.percentile(err, 90):.0f}, p99 "
            f"{np.percentile(err, 99):.0f}; the true lean within 45 of a support: "
            f"{100 * np.mean(true_sup[shallow] <= 45):.1f} % (of the opposite way "
            f"{100 * np.mean(near_support(-np.nan_to_num(v['dir']), v['sup'])[shallow] <= 45):.1f}"
            f" %)"]
    for recall in (0.95, 0.99):
        for theta in (None, 90, 60, 45):
            ok = held if theta is None else held & (to_sup <= theta)
            # The line catching `recall` of the supported shallow leans by this rule.
            cut = _line(s[shallow & held], ok[shallow & held], recall)
            caught = np.mean(ok[shallow & held] & (s[shallow & held] >= cut))
            line.append(f"  recall {recall:.2f} theta {theta}: shallow caught "
                        f"{100 * caught:.1f} %, flat supported held "
                        f"{100 * np.mean(ok[flat & held] & (s[flat & held] >= cut)):.1f} % of "
                        f"{int((flat & held).sum())}")
    print("\n".join(line), flush=True)


def main() -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--make", type=Path, help="render scenes into this .npz")
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--train", type=Path)
    ap.add_argument("--valid", type=Path)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    t0 = time.time()
    if args.make:
        make(args.make, args.seed, args.count)
        print(f"made {args.make} in {time.time() - t0:.0f} s")
    else:
        train(args.train, args.valid, args.seed, args.epochs)


if __name__ == "__main__":
    main()
