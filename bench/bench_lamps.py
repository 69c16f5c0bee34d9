"""Props & Hops verdicts with the lamps the camera switches (issue 6; `vision.lamps`).

Shaker scenes rendered as generated and again under three lamps (`dicecall datasets
generate --lamps E`), read by the committed runtime as a Props & Hops table reads them, the
lamps' tilt read from the four lamp frames, then called at each of `--lines` (degrees;
`VerdictConfig.lamp_cocked_deg`, 0: lamps not used, the runtime as committed). Prints truth
against verdict and the issue's three targets per line.

    python bench/bench_lamps.py --seed S [--count 1000] [--elevation 45] [--polarised]
        [--data DIR] [--lines 0,3,4,5] [--width 1920 --height 1440] [--reads F.pkl]

The frames are ideal in ways a table's are not (`datasets/lamps.py`): the figures bound what
lamps could give; a table's own footage says what they do give.
"""

from __future__ import annotations

import argparse
import collections
import pickle
import tempfile
from pathlib import Path

import numpy as np
from bench_verdicts import UNSAFE, GameReaders, print_targets, truth, with_lamps, zones_of

from dicecall.vision.images import load_image
from dicecall.vision.preprocess import record_view
from dicecall.vision.profiles import profile
from dicecall.vision.verdict import VALID, VerdictConfig, verdict


def read_all(folder: Path) -> list[dict]:
    """Each scene's record, the runtime's `Dice` with the lamps' tilt, and the frame size."""
    from dicecall.datasets.schema import load_folder

    readers, reads = GameReaders(None), []
    for path, rec in load_folder(folder):
        if rec.lamps is None:
            raise SystemExit(f"{path}: no lamp frames; generate with --lamps")
        frame = load_image(path.parent / rec.image)
        dice = readers.of(rec).read(frame, record_view(rec), rec.expected_dice)
        dice = with_lamps(dice, path.parent, rec)
        reads.append({"rec": rec, "dice": dice, "size": (frame.shape[1], frame.shape[0])})
    return reads


def call(reads: list[dict], line: float) -> dict:
    """Truth against verdict with the lamps' line at `line` degrees."""
    cfg = VerdictConfig(lamp_cocked_deg=line)
    table, why = collections.Counter(), collections.Counter()
    wrong = 0
    for r in reads:
        rec = r["rec"]
        category, faces = truth(rec)
        v = verdict(r["dice"], profile(rec.game, rec.expected_dice), zones_of(rec, "shaker"),
                    cfg, r["size"])
        table[category, v.status] += 1
        if category not in UNSAFE and v.status != VALID:
            why.update({x.code for x in v.reasons if x.status != VALID})
        wrong += v.status == VALID and category not in UNSAFE and sorted(v.faces) != faces
    return {"table": table, "why": why, "wrong": wrong, "rolls": len(reads)}


def lamp_figures(reads: list[dict]) -> None:
    """How the lamps read the scored dice: flat, cocked, leaning 5-12 degrees."""
    from dicecall.datasets.schema import MIN_VISIBLE
    from dicecall.vision.scoring import match

    groups: dict[str, list[float]] = {"flat": [], "cocked": [], "5-12 deg": []}
    unread = found = 0
    for r in reads:
        rec, dice = r["rec"], r["dice"]
        boxes = np.array([d.box for d in rec.dice], np.float32).reshape(-1, 4)
        for p, g in match(dice.centers, boxes):
            d = rec.dice[g]
            if not d.in_zone or d.stacked or d.visible < MIN_VISIBLE:
                continue
            found += 1
            deg = float(dice.lamp_tilt[p])
            if not np.isfinite(deg):
                unread += 1
                continue
            groups["cocked" if d.cocked else "flat"].append(deg)
            if d.cocked and 5 <= d.tilt_deg < 12:
                groups["5-12 deg"].append(deg)
    print(f"lamps' tilt on {found} dice found in the zone, not stacked ({unread} unread):")
    for name, v in groups.items():
        if v:
            q = np.quantile(v, [0.01, 0.5, 0.99])
            print(f"  {name:<9} {len(v):>5} dice: 1st / 50th / 99th percentile "
                  f"{q[0]:.2f} / {q[1]:.2f} / {q[2]:.2f} deg")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--elevation", type=float, default=45.0, help="the lamps' elevation, deg")
    ap.add_argument("--polarised", action="store_true")
    ap.add_argument("--width", type=int, default=640)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--data", type=Path, default=None, help="reuse generated scenes here")
    ap.add_argument("--lines", default="0,3,4,5",
                    help="lamp_cocked_deg values, comma-separated (0: lamps not used)")
    ap.add_argument("--reads", type=Path, default=None, help="pickle of the reads, kept")
    ap.add_argument("--workers", type=int, default=0, help="generating processes; 0 = all "
                    "cores (forked: 1 in a process that already runs onnxruntime threads)")
    args = ap.parse_args()
    if args.reads and args.reads.is_file():
        reads = pickle.loads(args.reads.read_bytes())
    else:
        from dicecall.datasets.generate import GenerateConfig, generate

        folder = args.data or Path(tempfile.mkdtemp(prefix="lamps-"))
        if not any(folder.glob("*.json")):  # before onnxruntime starts: the pool forks
            generate(GenerateConfig(scene="shaker", count=args.count, seed=args.seed,
                                    width=args.width, height=args.height, out=folder,
                                    lamps=args.elevation, polarised=args.polarised,
                                    workers=args.workers),
                     progress=False)
        reads = read_all(folder)
        if args.reads:
            args.reads.write_bytes(pickle.dumps(reads))
    lamp_figures(reads)
    for line in (float(x) for x in args.lines.split(",")):
        result = call(reads, line)
        table = result["table"]
        print(f"\nlamp_cocked_deg {line:g}{' (lamps not used)' if line == 0 else ''}: "
              f"{result['rolls']} Props & Hops rolls (rows: truth; valid / no roll / review)")
        for c in sorted({c for c, _ in table}, key=lambda c: (c in UNSAFE, c)):
            print(f"  {c:<12}{table[c, 'valid']:>6}{table[c, 'no_roll']:>8}"
                  f"{table[c, 'needs_review']:>8}")
        print("  good rolls held: " + ", ".join(f"{k} {n}" for k, n in
                                                 result["why"].most_common(5)))
        totals = collections.Counter()
        for (c, status), n in table.items():
            totals["unsafe" if c in UNSAFE else "safe", status] += n
        totals["wrong", ""], totals["rolls", ""] = result["wrong"], result["rolls"]
        print_targets(totals)


if __name__ == "__main__":
    main()
