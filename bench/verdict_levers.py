"""Which reading keeps good rolls from being called valid (issue 6), measured by replacing it.

Works on reads kept by `tune_verdicts.py --reads` (each scene read once, with its own
camera's view, as the verdict suites read it). Matches the dice found to the labelled dice
(centre in box, `vision.scoring.match`), then calls the verdict again at the committed lines
with one reading of the matched dice replaced by the truth:

  pips     the pip count, where the face was read right
  conf     the face probability (1 for the face read), where the face was read right
  tilt     the tilt probability (1 cocked, 0 flat)
  stacked  the die-on-die probability (1 on a die, 0 not)
  margin   the up margin (degrees from resting on an edge; 90 for a flat die)

Dice the detector missed, false dice and wrong faces stay as read, so "all" is the ceiling
of a reader whose heads are perfect behind this detector. Then, as read, the reason codes
on the good rolls that were not called valid, per game: what a planner should work on; and
how often the flat dice of Craps and High Roll are held for their face, by their size.
Use tuning suites, not held-out ones:

    python bench/verdict_levers.py READS.pkl [READS.pkl ...] [--reader SHA256_PREFIX]
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
from pathlib import Path

import numpy as np
from bench_verdicts import UNSAFE, zones_of
from frontier_verdicts import pick
from tune_verdicts import _load, game_of

from dicecall.vision.profiles import profile
from dicecall.vision.scoring import match
from dicecall.vision.verdict import VALID, VerdictConfig, verdict

LEVERS = {"as read": (), "pips": ("pips",), "conf": ("conf",), "tilt": ("tilt",),
          "stacked": ("stacked",), "margin": ("margin",), "tilt + stacked": ("tilt", "stacked"),
          "tilt + margin": ("tilt", "margin"), "pips + conf": ("pips", "conf"),
          "all": ("pips", "conf", "tilt", "stacked", "margin")}
GAMES = ("craps", "props-and-hops", "high-roll")


def with_truth(dice, labels: list, fix: tuple[str, ...]):
    """`dice` with the readings named in `fix` replaced by the labels of matched dice."""
    if not fix or len(dice) == 0:
        return dice
    boxes = np.array([d.box for d in labels], np.float32).reshape(-1, 4)
    pip, conf = dice.pip_face.copy(), dice.face_probs.copy()
    tilt, stacked = dice.tilt.copy(), dice.stacked.copy()
    margin = None if dice.up_margin is None else dice.up_margin.copy()
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
        if "margin" in fix and margin is not None and label.up_margin_deg is not None:
            margin[p] = label.up_margin_deg
    return dataclasses.replace(dice, pip_face=pip, face_probs=conf, tilt=tilt, stacked=stacked,
                               up_margin=margin)


def call(read: tuple, fix: tuple[str, ...]):
    """The verdict on one kept read with `fix` replaced by the truth."""
    scene, rec, _, _, dice = read
    return verdict(with_truth(dice, rec.dice, fix), profile(rec.game, rec.expected_dice),
                   zones_of(rec, scene), frame=(rec.width, rec.height))


def lever_rows(reads: list) -> dict[str, dict[str, collections.Counter]]:
    """Per lever, per game ("all" too): unsafe, caught, good, passed counts."""
    rows = {}
    for name, fix in LEVERS.items():
        per = collections.defaultdict(collections.Counter)
        for read in reads:
            category, valid = read[2], call(read, fix).status == VALID
            for game in (game_of(read[1]), "all"):
                if category in UNSAFE:
                    per[game].update(unsafe=1, caught=int(not valid))
                else:
                    per[game].update(good=1, passed=int(valid))
        rows[name] = per
    return rows


def held_by(reads: list) -> dict[str, collections.Counter]:
    """Per game: how many good rolls not called valid carry each reason code, as read."""
    per = collections.defaultdict(collections.Counter)
    for read in reads:
        if read[2] in UNSAFE:
            continue
        v = call(read, ())
        if v.status != VALID:
            per[game_of(read[1])].update({r.code for r in v.reasons if r.status != VALID})
            per[game_of(read[1])]["(rolls)"] += 1
    return per


SIZE_BANDS = (0, 16, 24, 32, 40, 56, 80)  # die width in frame pixels, band lower edges


def held_by_size(reads: list, min_confidence: float) -> dict[int, collections.Counter]:
    """Per band of die width (frame pixels, the labelled box), over the flat, fully visible,
    not stacked dice found in Craps and High Roll: dice, those a verdict would hold for
    their face (probability under `min_confidence`, or the pips counting another number),
    and those read wrong. Where the face and pips levers act, by the dice's size."""
    per: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
    for _, rec, _, _, dice in reads:
        if game_of(rec) == "props-and-hops":
            continue
        boxes = np.array([d.box for d in rec.dice], np.float32).reshape(-1, 4)
        for p, g in match(dice.centers, boxes):
            label = rec.dice[g]
            if label.cocked or label.stacked or label.visible < 0.95:
                continue
            band = max(b for b in SIZE_BANDS if b <= boxes[g, 2] - boxes[g, 0])
            per[band].update(dice=1, held=int(dice.confidence[p] < min_confidence
                                              or dice.pip_face[p] != dice.face[p]),
                             wrong=int(int(dice.face[p]) != label.face))
    return per


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reads", type=Path, nargs="+", help="files written by tune_verdicts --reads")
    ap.add_argument("--reader", default=None, help="sha256 prefix of the reader ONNX")
    ap.add_argument("--sure-tilt", type=float, default=None,
                    help="the runtime read with this one-view shortcut (tune_verdicts "
                         "--sure-tilt)")
    args = ap.parse_args()
    reads = [r for p in args.reads
             for r in pick(_load(p), args.reader, str(p), sure_tilt=args.sure_tilt)]
    print(f"{'replaced by truth':<18}" + "".join(f" {g:>22}" for g in (*GAMES, "all")))
    print(f"{'':<18}" + " {:>10} {:>11}".format("unsafe", "good valid") * 4)
    for name, per in lever_rows(reads).items():
        cells = "".join(f" {100 * per[g]['caught'] / max(per[g]['unsafe'], 1):>9.2f}%"
                        f" {100 * per[g]['passed'] / max(per[g]['good'], 1):>10.2f}%"
                        for g in (*GAMES, "all"))
        print(f"{name:<18}{cells}")
    print("\ngood rolls not called valid, as read, by the reason codes they carry")
    for game, codes in held_by(reads).items():
        n = codes.pop("(rolls)")
        print(f"{game} ({n} rolls): " + ", ".join(f"{c} {k}" for c, k in codes.most_common()))
    line = VerdictConfig().min_confidence
    print(f"\nflat, fully visible dice found in Craps and High Roll, by width in the frame: "
          f"held for the face (p < {line} or pips disagree), read wrong")
    bands = held_by_size(reads, line)
    for band in sorted(bands):
        c = bands[band]
        print(f"{band:>3}+ px {c['dice']:>6} dice  held {100 * c['held'] / c['dice']:6.2f}%  "
              f"wrong {100 * c['wrong'] / c['dice']:5.2f}%")


if __name__ == "__main__":
    main()
