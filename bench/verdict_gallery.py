"""Pictures of the dice behind verdict errors, for the notes of people who plan (issue 6).

Each case is a roll kept by `tune_verdicts.py --reads`: the die of interest (labelled die K
for IMAGE#K, else the first labelled die that is stacked or cocked) is cut out at 3.2
sides, its label box drawn, and captioned with its truth and what the runtime read:

    python bench/verdict_gallery.py --out docs/PNG READS.pkl:DATA_DIR:IMAGE[#K]:CAPTION ...
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np
from tune_verdicts import _load

from dicecall.vision.images import load_image
from dicecall.vision.preprocess import crops
from dicecall.vision.scoring import match

SIDE = 240


def tile(rec, dice, frame: np.ndarray, caption: str, die: int | None = None) -> np.ndarray:
    boxes = np.array([d.box for d in rec.dice], np.float32).reshape(-1, 4)
    found = {g: p for p, g in match(dice.centers, boxes)}
    g = die if die is not None else next(k for k, d in enumerate(rec.dice)
                                         if d.stacked or d.cocked)
    lab, b = rec.dice[g], boxes[g]
    half = 1.6 * max(b[2] - b[0], b[3] - b[1])
    x0, y0 = (b[0] + b[2]) / 2 - half, (b[1] + b[3]) / 2 - half
    # The runtime's own crop (the reader's and the failure gallery's, models/gallery.py).
    cut = crops(frame, np.array([[x0 + half, y0 + half]], np.float32),
                np.array([2 * half], np.float32), SIDE)
    img = np.ascontiguousarray((cut[0].transpose(1, 2, 0)[:, :, ::-1] * 255).astype(np.uint8))
    s = SIDE / (2 * half)
    cv2.rectangle(img, (int((b[0] - x0) * s), int((b[1] - y0) * s)),
                  (int((b[2] - x0) * s), int((b[3] - y0) * s)), (0, 0, 255), 1)
    truth = ("on a die" if lab.stacked
             else f"tilt {lab.tilt_deg:.1f}, margin {lab.up_margin_deg:.1f}" if lab.cocked
             else "flat")
    p = found.get(g)
    read = "missed" if p is None else (f"tilt {dice.tilt[p]:.2f} st {dice.stacked[p]:.2f} "
                                       f"m {dice.up_margin[p]:.1f}")
    out = np.full((SIDE + 60, SIDE, 3), 255, np.uint8)
    out[:SIDE] = img
    for k, text in enumerate((caption, f"{Path(rec.image).stem}  truth: {truth}",
                              f"read: {read}")):
        cv2.putText(out, text, (4, SIDE + 16 + 17 * k), cv2.FONT_HERSHEY_SIMPLEX, 0.36,
                    (0, 0, 0), 1, cv2.LINE_AA)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("cases", nargs="+", help="READS.pkl:DATA_DIR:IMAGE:CAPTION")
    args = ap.parse_args()
    reads: dict[str, list] = {}
    tiles = []
    for case in args.cases:
        pkl, data, image, caption = case.split(":", 3)
        image, _, die = image.partition("#")
        if pkl not in reads:
            saved = _load(Path(pkl))
            if len(saved) != 1:
                raise SystemExit(f"{pkl}: {len(saved)} reads kept; give a file with one")
            reads[pkl] = next(iter(saved.values()))
        hit = next((r for r in reads[pkl] if r[1].image == image), None)
        if hit is None:
            raise SystemExit(f"{pkl}: no roll {image} in the reads")
        scene, rec, _, _, dice = hit
        frame = load_image(Path(data) / scene / rec.image)
        tiles.append(np.pad(tile(rec, dice, frame, caption, int(die) if die else None),
                            ((0, 0), (0, 4), (0, 0)), constant_values=255))
    cv2.imwrite(str(args.out), np.concatenate(tiles, axis=1), [cv2.IMWRITE_PNG_COMPRESSION, 9])


if __name__ == "__main__":
    main()
