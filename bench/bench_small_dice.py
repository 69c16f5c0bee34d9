"""Small dice in a photo of the usual size: the issue's "dice 15 px wide in a 640x640 photo".

Generates synthetic scenes (640x480, held-out die styles) and builds, in a temporary folder,
YOLO sets whose dice are k times smaller than the generator draws them:

- `2x2` / `3x3`: k x k scenes, each shrunk k times, in one 640x480 frame (dice about 20 and
  14 px; many dice of one size);
- `one 3x`: one scene shrunk 3x at a random place in a 640x640 frame, the rest its edge
  pixels (a few small dice in a large, plain photo);
- `as rendered`: the scenes themselves (dice about 40 px), where the tiles must add nothing.

It scores `dicecall evaluate`'s reader (no game, tile zoom 3) with its tiles enlarged up to
2x (`ReaderConfig.tile_enlarge`, since session 41) and without (1: session 40's reader,
which never tiled a photo under 960 px). The default seeds are rule 38's judge
(models/reader.md, "The tiled look"). Usage: python bench/bench_small_dice.py [--seeds
17201,17202,17203] [--count 180]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

from dicecall.vision.cli import PHOTO_TILE_ZOOM
from dicecall.vision.config import ReaderConfig
from dicecall.vision.evaluate import evaluate_folder
from dicecall.vision.reader import DiceReader

SCENES = ("throwbox", "shaker", "craps")
W, H = 640, 480


def _labels(rec: dict, sx: float, sy: float, ox: float, oy: float, size: tuple[int, int]
            ) -> list[str]:
    """YOLO rows of the dice at least 30 % visible, boxes scaled and moved."""
    w, h = size
    rows = []
    for d in rec["dice"]:
        if d["visible"] >= 0.3:
            x0, y0, x1, y1 = np.array(d["box"]) * [sx, sy, sx, sy] + [ox, oy, ox, oy]
            rows.append(f"{d['face'] - 1} {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} "
                        f"{(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}")
    return rows


def _write(out: Path, name: str, image: np.ndarray, rows: list[str]) -> None:
    cv2.imwrite(str(out / "images" / f"{name}.png"), image)
    (out / "labels" / f"{name}.txt").write_text("\n".join(rows) + "\n")


def _folder(out: Path) -> Path:
    (out / "images").mkdir(parents=True)
    (out / "labels").mkdir()
    return out


def mosaics(scenes: list[Path], k: int, out: Path) -> Path:
    """k x k scenes, each shrunk k times, per 640x480 frame."""
    _folder(out)
    cw, ch = W // k, H // k
    for m in range(len(scenes) // (k * k)):
        frame, rows = np.zeros((H, W, 3), np.uint8), []
        for c, path in enumerate(scenes[m * k * k:(m + 1) * k * k]):
            rec, im = json.loads(path.read_text()), cv2.imread(str(path.with_suffix(".jpg")))
            ox, oy = (c % k) * cw, (c // k) * ch
            frame[oy:oy + ch, ox:ox + cw] = cv2.resize(im, (cw, ch), interpolation=cv2.INTER_AREA)
            rows += _labels(rec, cw / im.shape[1], ch / im.shape[0], ox, oy, (W, H))
        _write(out, f"m{m:04d}", frame, rows)
    return out


def shrunk(scenes: list[Path], k: int, out: Path, seed: int = 0) -> Path:
    """Each scene shrunk k times at a random place in a 640x640 frame, edges replicated."""
    _folder(out)
    rng, side = np.random.default_rng(seed), W
    for n, path in enumerate(scenes):
        rec, im = json.loads(path.read_text()), cv2.imread(str(path.with_suffix(".jpg")))
        w, h = round(im.shape[1] / k), round(im.shape[0] / k)
        small = cv2.resize(im, (w, h), interpolation=cv2.INTER_AREA)
        ox, oy = int(rng.integers(0, side - w)), int(rng.integers(0, side - h))
        frame = cv2.copyMakeBorder(small, oy, side - h - oy, ox, side - w - ox,
                                   cv2.BORDER_REPLICATE)
        _write(out, f"s{n:04d}", frame, _labels(rec, 1 / k, 1 / k, ox, oy, (side, side)))
    return out


def as_rendered(scenes: list[Path], out: Path) -> Path:
    return mosaics(scenes, 1, out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="17201,17202,17203",
                    help="generator seeds of the throw box, shaker and craps scenes")
    ap.add_argument("--count", type=int, default=180, help="scenes of each")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    if len(seeds) != len(SCENES):
        ap.error(f"--seeds: one per scene type ({', '.join(SCENES)})")
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        sets: dict[str, list[Path]] = {}
        for scene, seed in zip(SCENES, seeds, strict=True):
            src = t / f"gen-{scene}"
            # Generated before any onnxruntime session exists: the generator's pool forks.
            subprocess.run([str(Path(sys.executable).parent / "dicecall"), "datasets", "generate",
                            "--scene", scene, "--count", str(args.count), "--seed", str(seed),
                            "--styles", "unseen", "--out", str(src)], check=True,
                           stdout=subprocess.DEVNULL)
            scenes = sorted(src.glob("*.json"))
            sets.setdefault("3x3 (dice ~14 px)", []).append(mosaics(scenes, 3, t / f"k3-{scene}"))
            sets.setdefault("one 3x (~14 px)", []).append(shrunk(scenes, 3, t / f"s3-{scene}"))
            sets.setdefault("2x2 (~20 px)", []).append(mosaics(scenes, 2, t / f"k2-{scene}"))
            sets.setdefault("as rendered (~40 px)", []).append(as_rendered(scenes,
                                                                           t / f"k1-{scene}"))
        readers = {e: DiceReader(ReaderConfig(threads=args.threads, tile_zoom=PHOTO_TILE_ZOOM,
                                              tile_enlarge=e)) for e in (1.0, 2.0)}
        print(f"seeds {args.seeds}, {args.count} scenes each, unseen styles; reader without a "
              f"game, tile zoom {PHOTO_TILE_ZOOM:g}")
        print("| set | scene | images | dice | read right, tiles >= 960 px only | false / "
              "image | read right, enlarged tiles | false / image |")
        print("|---|---|---|---|---|---|---|---|")
        for name, folders in sets.items():
            total = {e: [0, 0, 0, 0] for e in readers}
            for scene, folder in zip(SCENES, folders, strict=True):
                cells = []
                for e, reader in readers.items():
                    r = evaluate_folder(reader, folder).as_dict()
                    right, false = r["face_right"], round(r["false_per_image"] * r["images"])
                    for i, v in enumerate((r["images"], r["labelled"], right, false)):
                        total[e][i] += v
                    cells.append(f"{100 * right / r['labelled']:.2f} % | "
                                 f"{false / r['images']:.3f}")
                print(f"| {name} | {scene} | {r['images']} | {r['labelled']} | "
                      + " | ".join(cells) + " |", flush=True)
            imgs, dice = total[1.0][0], total[1.0][1]
            print(f"| {name} | pooled | {imgs} | {dice} | " + " | ".join(
                f"{100 * total[e][2] / dice:.2f} % | {total[e][3] / imgs:.3f}" for e in readers)
                + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
