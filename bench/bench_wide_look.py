"""The wide look (`DiceReader.wider`, models/reader.md rule 42) on and off, printed as a table.

    python bench/bench_wide_look.py FOLDER... [--shrink 2] [--game none|shaker|thrown]
        [--models DIR]

Reads each folder of generated scenes (`dicecall datasets generate`) with the committed
files of `--game` (none: as `predict` and `evaluate` read, the held-out real set's way),
FP32 and four views, with the wide look on (`--shrink`; the runtime's is on without a game
since rule 55, off in every game)
and off, each both with the scene's count (as `evaluate_synthetic` and the bench's unseen
rows read) and without it (as a YOLO folder or `predict` reads: a place the reader dropped
asks for the wide look). Prints dice
read right and false dice per image per folder and pooled, and the wide looks taken.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bench_reader import ROOT, _config

from dicecall.vision.config import ReaderConfig
from dicecall.vision.evaluate_synth import evaluate_synthetic
from dicecall.vision.reader import DiceReader


class _Uncounted:
    """A reader that reads every frame without its count, and counts its wide looks."""

    def __init__(self, reader: DiceReader, counted: bool) -> None:
        self.reader, self.counted, self.looks = reader, counted, 0
        wider = reader.wider

        def wide(*a, **kw):
            self.looks += 1
            return wider(*a, **kw)

        reader.wider = wide

    def read(self, frame, view=None, expected=None):
        return self.reader.read(frame, view, expected if self.counted else None)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", type=Path, nargs="+")
    ap.add_argument("--shrink", type=float, default=2.0, help="the wide look's shrink")
    ap.add_argument("--game", choices=("none", "shaker", "thrown"), default="none")
    ap.add_argument("--models", type=Path, default=ROOT / "models")
    args = ap.parse_args()
    game = None if args.game == "none" else args.game
    print(f"wide look x{args.shrink}, die line {ReaderConfig().wide_die}; "
          f"game: {args.game}")
    print(f"{'set':<22} {'count':<7} {'wide':<4} {'dice':>6} {'read right':>10} "
          f"{'false/img':>9} {'wide looks':>10}")
    for counted in (True, False):
        for wide in (True, False):
            pooled = [0, 0, 0, 0]
            for folder in args.folders:
                kw = {"wide_look": args.shrink if wide else 0.0}
                r = _Uncounted(DiceReader(_config(args.models, "fp32", game, threads=2,
                                                  views=4, **kw)), counted)
                s = evaluate_synthetic(r, folder).score
                pooled = [pooled[0] + s.labelled, pooled[1] + s.face_right,
                          pooled[2] + s.false_detections, pooled[3] + s.images]
                print(f"{folder.name:<22} {'yes' if counted else 'no':<7} "
                      f"{'on' if wide else 'off':<4} {s.labelled:>6} "
                      f"{100 * s.face_right / max(s.labelled, 1):>9.2f}% "
                      f"{s.false_detections / max(s.images, 1):>9.3f} "
                      f"{r.looks if wide else '-':>10}")
            print(f"{'pooled':<22} {'yes' if counted else 'no':<7} {'on' if wide else 'off':<4} "
                  f"{pooled[0]:>6} {100 * pooled[1] / max(pooled[0], 1):>9.2f}% "
                  f"{pooled[2] / max(pooled[3], 1):>9.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
