"""The tiled look on large photos: real dice small in a big frame, and big in one.

No real-dev photo is over 640 pixels, so `evaluate` never sees a large photo with small
dice. This builds, in a temporary folder, YOLO sets from the real-dev validation photos
(epanemu valid + test, matteop65 valid: never trained on):

- `mosaic kxk`: k x k photos at their own size in one frame (a 640 px cell each), so every
  die keeps its pixels and the frame grows k times: small dice in a big photo;
- `enlarged 3x`: each photo alone, enlarged 3x: big dice in a big photo, where tiles must
  not add false dice;
- `mosaic 3x3 shrunk`: the 3x3 mosaics shrunk to 640 px: dice a third of their size in a
  photo of the usual size (the issue's "dice 15 px wide in a 640x640 photo"), read in tiles
  enlarged 1.5x (`ReaderConfig.tile_enlarge`, since session 41);
- `as given`: each photo alone in its 640 px cell: the reference (tiled only where its dice
  are small in the whole-frame look, `ReaderConfig.tile_small_below`).

and scores the reader without and with tiles (`ReaderConfig.tile_zoom`), as `dicecall
evaluate` does (the same default zoom). Usage: python bench/bench_tiles.py [--zoom Z]
[--real ../shared/data/real-dev]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

from dicecall.vision.cli import PHOTO_TILE_ZOOM
from dicecall.vision.config import ReaderConfig
from dicecall.vision.evaluate import evaluate_folder
from dicecall.vision.reader import DiceReader

SOURCES = ("epanemu/valid", "epanemu/test", "matteop65/valid")
CELL = 640


def mosaic(real: Path, k: int, out: Path) -> Path:
    """k x k photos per frame, each centred in its cell on its own mean colour."""
    imgs = sorted(p for s in SOURCES for p in (real / s / "images").iterdir())
    random.Random(k).shuffle(imgs)
    (out / "images").mkdir(parents=True)
    (out / "labels").mkdir()
    side = CELL * k
    for n, g in enumerate(range(0, len(imgs) - k * k + 1, k * k)):
        big = np.zeros((side, side, 3), np.uint8)
        rows = []
        for i, p in enumerate(imgs[g:g + k * k]):
            im = cv2.imread(str(p))
            h, w = im.shape[:2]
            cy, cx = (i // k) * CELL, (i % k) * CELL
            big[cy:cy + CELL, cx:cx + CELL] = im.reshape(-1, 3).mean(0)
            oy, ox = cy + (CELL - h) // 2, cx + (CELL - w) // 2
            big[oy:oy + h, ox:ox + w] = im
            for line in (p.parent.parent / "labels" / f"{p.stem}.txt").read_text().splitlines():
                if line.strip():
                    c, x, y, bw, bh = line.split()
                    rows.append(f"{c} {(ox + float(x) * w) / side:.6f} "
                                f"{(oy + float(y) * h) / side:.6f} {float(bw) * w / side:.6f} "
                                f"{float(bh) * h / side:.6f}")
        cv2.imwrite(str(out / "images" / f"m{n:03d}.png"), big)
        (out / "labels" / f"m{n:03d}.txt").write_text("\n".join(rows) + "\n")
    return out


def enlarged(cells: Path, factor: float, out: Path) -> Path:
    (out / "images").mkdir(parents=True)
    (out / "labels").mkdir()
    for p in sorted((cells / "images").iterdir()):
        im = cv2.resize(cv2.imread(str(p)), None, fx=factor, fy=factor,
                        interpolation=cv2.INTER_CUBIC)
        cv2.imwrite(str(out / "images" / p.name), im)
        (out / "labels" / f"{p.stem}.txt").write_text(
            (cells / "labels" / f"{p.stem}.txt").read_text())
    return out


def shrunk(big: Path, side: int, out: Path) -> Path:
    """Each frame of `big` shrunk to `side` pixels (cv2.INTER_AREA), labels unchanged: they
    are normalised to the frame."""
    (out / "images").mkdir(parents=True)
    (out / "labels").mkdir()
    for p in sorted((big / "images").iterdir()):
        im = cv2.imread(str(p))
        cv2.imwrite(str(out / "images" / p.name),
                    cv2.resize(im, (side, side), interpolation=cv2.INTER_AREA))
        (out / "labels" / f"{p.stem}.txt").write_text(
            (big / "labels" / f"{p.stem}.txt").read_text())
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", type=Path, default=Path("../shared/data/real-dev"))
    ap.add_argument("--zoom", type=float, default=PHOTO_TILE_ZOOM)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    if not (args.real / "epanemu").is_dir():
        print(f"{args.real}: no real-dev photos; nothing to measure", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        given = mosaic(args.real, 1, t / "given")
        m3 = mosaic(args.real, 3, t / "m3")
        sets = [("as given (<= 640 px)", given),
                ("enlarged 3x (1920 px)", enlarged(given, 3.0, t / "up3")),
                ("mosaic 3x3 shrunk (640 px)", shrunk(m3, CELL, t / "m3s")),
                ("mosaic 3x3 (1920 px)", m3),
                ("mosaic 5x5 (3200 px)", mosaic(args.real, 5, t / "m5"))]
        readers = {z: DiceReader(ReaderConfig(threads=args.threads, tile_zoom=z))
                   for z in (0.0, args.zoom)}
        print(f"| set | images | dice | read right, no tiles | false / image | read right, "
              f"tiles {args.zoom:g}x | false / image |")
        print("|---|---|---|---|---|---|---|")
        for name, folder in sets:
            res = {z: evaluate_folder(r, folder).as_dict() for z, r in readers.items()}
            a, b = res[0.0], res[args.zoom]
            print(f"| {name} | {a['images']} | {a['labelled']} | "
                  f"{100 * a['read_right_rate']:.2f} % | {a['false_per_image']:.3f} | "
                  f"{100 * b['read_right_rate']:.2f} % | {b['false_per_image']:.3f} |",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
