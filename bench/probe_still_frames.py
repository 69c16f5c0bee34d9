"""Would reading a still scene in several frames help the tilt? (issue 6)

A probe, not a runtime change. The edge reads one frame once the dice are still
(`edge/settle.py`). A camera gives more: frames of a still scene differ only in the sensor
noise. If the tilt of a shallow-leaning shaker die moved with that noise, averaging several
frames' readings would separate leans from flat dice better. Each scene of
`dicecall datasets generate --scene shaker --seed SEED --force lean=P` is rendered once and
finished K times with the same exposure, vignetting, glare, blur and JPEG quality and fresh
noise (`effects.finish(noise_rng=...)`); every frame, and the pixel mean of the K frames,
is read by the committed runtime as a Props & Hops table reads it (the scene's camera
view). Prints, for dice in the zone, not on another, at least 90 % visible: the AUC of the
tilt, leaning 5-12 degrees and every cocked die against flat dice, for one frame and for
the mean, median and minimum over the K frames; and the spread of the tilt over a die's
frames against its spread between dice.

    python bench/probe_still_frames.py --seed 90 --count 400 --width 1920 --height 1440 \
        --frames 4 --out READS.pkl
"""

from __future__ import annotations

import argparse
import pickle
from pathlib import Path

import cv2
import numpy as np

import dicecall.datasets.scene as scene
from dicecall.datasets.effects import encode_jpeg, finish
from dicecall.datasets.physics import Sim
from dicecall.models.evaluate import auc
from dicecall.vision.config import ReaderConfig, for_game
from dicecall.vision.preprocess import record_view
from dicecall.vision.reader import DiceReader
from dicecall.vision.scoring import match


def still_frames(img: np.ndarray, rng: np.random.Generator, k: int) -> list[np.ndarray]:
    """K decoded JPEG frames of one still scene: `rng`'s draws for all but the noise (its
    state is left as it was), noise seeded 0..k-1."""
    state, frames = rng.bit_generator.state, []
    for i in range(k):
        r = np.random.default_rng()
        r.bit_generator.state = state
        jpeg = encode_jpeg(finish(img, r, noise_rng=np.random.default_rng(i)), r)
        frames.append(cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR))
    return frames


def collect(seed: int, count: int, width: int, height: int, k: int, lean: float) -> list[dict]:
    """Per labelled die: its label fields and its tilt in each of the K frames, then in
    their pixel mean (NaN where the runtime did not find it)."""
    held: dict = {}
    real_finish = scene.finish

    def keep(img, rng):  # make_scene's own frame is finished as always
        held["frames"] = still_frames(img, rng, k)
        return real_finish(img, rng)

    scene.finish = keep
    try:
        sim, rows = Sim(), []
        reader = DiceReader(for_game(ReaderConfig(), cocked_counts=False))
        for i in range(count):
            _, rec = scene.make_scene(sim, "shaker", scene.scene_seed(seed, i), width, height,
                                      force_probability={"lean": lean})
            frames = held["frames"]
            mean = np.mean(np.stack(frames).astype(np.float32), 0).round().astype(np.uint8)
            reads = [reader.read(f, record_view(rec)) for f in [*frames, mean]]
            boxes = np.array([d.box for d in rec.dice], np.float32)
            found = [{g: p for p, g in match(dice.centers, boxes)} for dice in reads]
            for j, d in enumerate(rec.dice):
                tilts = [float(dice.tilt[f[j]]) if j in f else np.nan
                         for dice, f in zip(reads, found, strict=True)]
                rows.append({"tilt_deg": d.tilt_deg, "cocked": d.cocked, "stacked": d.stacked,
                             "in_zone": d.in_zone, "visible": d.visible, "tilts": tilts})
    finally:
        scene.finish = real_finish
    return rows


def report(rows: list[dict], k: int) -> None:
    ok = [r for r in rows if r["in_zone"] and not r["stacked"] and r["visible"] >= 0.9
          and not np.isnan(r["tilts"]).any()]
    flat = [r["tilts"] for r in ok if not r["cocked"]]
    cocked = [r["tilts"] for r in ok if r["cocked"]]
    shallow = [r["tilts"] for r in ok if r["cocked"] and 5 <= r["tilt_deg"] < 12]
    print(f"dice {len(ok)}: flat {len(flat)}, cocked {len(cocked)}, leaning 5-12 degrees "
          f"{len(shallow)}")
    ways = {"one frame": lambda t: t[0], f"mean of {k}": lambda t: np.mean(t[:k]),
            f"median of {k}": lambda t: np.median(t[:k]), f"min of {k}": lambda t: min(t[:k]),
            f"pixel mean of {k}": lambda t: t[k]}
    print(f"{'reading':>16} {'AUC 5-12':>9} {'AUC cocked':>11} "
          f"{'flat flagged at 95 % of 5-12':>29}")
    for name, f in ways.items():
        s, c, fl = ([f(t) for t in group] for group in (shallow, cocked, flat))
        line = np.quantile(s, 0.05) if s else np.nan
        print(f"{name:>16} {auc(np.array(s), np.array(fl)):>9.4f} "
              f"{auc(np.array(c), np.array(fl)):>11.4f} "
              f"{100 * np.mean(np.array(fl) >= line):>28.1f}%")
    t = np.array([x[:k] for x in flat])
    print(f"flat dice: median spread over a die's frames (std) {np.median(t.std(1)):.4f}, "
          f"spread of the frame mean between dice {t.mean(1).std():.4f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, default=400)
    ap.add_argument("--width", type=int, default=1920)
    ap.add_argument("--height", type=int, default=1440)
    ap.add_argument("--frames", type=int, default=4)
    ap.add_argument("--lean", type=float, default=0.5, help="forced lean probability")
    ap.add_argument("--out", type=Path, default=None, help="pickle of the rows, kept")
    args = ap.parse_args()
    rows = collect(args.seed, args.count, args.width, args.height, args.frames, args.lean)
    if args.out is not None:
        args.out.write_bytes(pickle.dumps(rows))
    report(rows, args.frames)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
