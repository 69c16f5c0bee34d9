"""Which reading keeps good rolls from being called valid (issue 6), measured by replacing it.

Reads every scene of DIR/{shaker,throwbox,craps} once with the committed models (or
`--models DIR`), matches the dice found to the labelled dice (centre in box,
`vision.scoring.match`), then calls the verdict again with one reading of the matched dice
replaced by the truth:

  pips     the pip count, where the face was read right
  conf     the face probability (1 for the face read), where the face was read right
  tilt     the tilt probability (1 cocked, 0 flat)
  stacked  the die-on-die probability (1 on a die, 0 not)

Dice the detector missed, false dice and wrong faces stay as read, so "all" is the ceiling
of a reader whose heads are perfect behind this detector. Use a tuning suite, not the
held-out one (docs/verdicts.md used seeds 9200-9202):

    python bench/verdict_levers.py --data TUNE
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import numpy as np
from bench_verdicts import SCENES, rates, truth, with_models, zones_of

from dicecall.datasets.schema import load_folder
from dicecall.vision.config import ReaderConfig
from dicecall.vision.images import load_image
from dicecall.vision.profiles import profile
from dicecall.vision.reader import DiceReader
from dicecall.vision.scoring import match
from dicecall.vision.verdict import verdict

LEVERS = {"as read": (), "pips": ("pips",), "conf": ("conf",), "tilt": ("tilt",),
          "stacked": ("stacked",), "tilt + stacked": ("tilt", "stacked"),
          "pips + conf": ("pips", "conf"), "all": ("pips", "conf", "tilt", "stacked")}


def with_truth(dice, labels: list, fix: tuple[str, ...]):
    """`dice` with the readings named in `fix` replaced by the labels of matched dice."""
    if not fix or len(dice) == 0:
        return dice
    boxes = np.array([d.box for d in labels], np.float32).reshape(-1, 4)
    pip, conf = dice.pip_face.copy(), dice.face_probs.copy()
    tilt, stacked = dice.tilt.copy(), dice.stacked.copy()
    for p, g in match(dice.centers, boxes):
        label, right = labels[g], int(dice.face[p]) == labels[g].face
        if "pips" in fix and right:
            pip[p] = label.face
        if "conf" in fix and right:
            conf[p] = np.eye(6, dtype=np.float32)[label.face - 1]
        if "tilt" in fix:
            tilt[p] = float(bool(label.cocked))
        if "stacked" in fix:
            stacked[p] = float(bool(label.stacked))
    return dataclasses.replace(dice, pip_face=pip, face_probs=conf, tilt=tilt, stacked=stacked)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="folder with the three scene sets")
    ap.add_argument("--models", type=Path, default=None,
                    help="folder with detector.onnx and reader.onnx (default: committed)")
    args = ap.parse_args()
    reader = DiceReader(with_models(ReaderConfig(), args.models))
    reads = [(scene, rec, truth(rec)[0], reader.read(load_image(path.parent / rec.image)))
             for scene in SCENES for path, rec in load_folder(args.data / scene)]
    print(f"{'replaced by truth':<18} {'unsafe not valid':>17} {'valid called valid':>19}")
    for name, fix in LEVERS.items():
        n = rates((category, verdict(with_truth(dice, rec.dice, fix),
                                     profile(rec.game, rec.expected_dice),
                                     zones_of(rec, scene)).status, False)
                  for scene, rec, category, dice in reads)
        print(f"{name:<18} {100 * n['caught'] / max(n['unsafe'], 1):>16.2f}% "
              f"{100 * n['passed'] / max(n['good'], 1):>18.2f}%")


if __name__ == "__main__":
    main()
