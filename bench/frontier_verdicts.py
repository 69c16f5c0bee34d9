"""The most good rolls called valid at each count of unsafe rolls let through, over a grid of
the verdict's lines, on reads kept by `tune_verdicts.py --reads` (issue 6).

    python bench/frontier_verdicts.py READS.pkl [READS.pkl ...] [--reader SHA256_PREFIX]
        [--tilt-scale 2.1] [--face-scale 1.8] [--margin-scale 2.1] [--pip-radius 0.6]
        [--tilt 0.05,0.1] [--stacked 0.35,0.5] [--no-roll-tilt 0.015,0.1] [--edge-deg 30,40]
        [--most 15]

Each file holds the reads of one suite (several runtimes may share it; `--reader` picks the
one whose reader ONNX has that sha256 prefix, `--tilt-scale`, `--face-scale` and
`--margin-scale` the one read with those second crops). The suites are pooled: a line is
scored by the unsafe rolls it lets through and the good rolls it passes over all of them.
Comparing two readers by their frontiers, not at one line each, asks whether a reader is
better at any safety rather than whether its lines happen to suit a suite
(docs/verdicts.md, sessions 14-16). Choose lines on tuning suites; an untouched suite only
reports them.
"""

from __future__ import annotations

import argparse
import collections
import itertools
from pathlib import Path

from bench_verdicts import UNSAFE
from tune_verdicts import _floats, _load, game_of, tally

from dicecall.vision.verdict import VerdictConfig


def _wide(key: tuple) -> float:
    """The tilt's wider crop a key was read with (keys before session 16 have none: 0)."""
    return float(key[11]) if len(key) > 11 else 0.0


def _face(key: tuple) -> float:
    """The face's second crop a key was read with (keys before it have none: 0)."""
    return float(key[12]) if len(key) > 12 else 0.0


def _margin(key: tuple) -> float:
    """The up margin's second crop a key was read with (keys before it have none: 0)."""
    return float(key[13]) if len(key) > 13 else 0.0


def _pips(key: tuple) -> float | None:
    """The pip radius a key was read with (the eighth setting; None in a shorter key)."""
    return float(key[7]) if len(key) > 7 else None


def _sure_tilt(key: tuple) -> float | None:
    """The one-view shortcut's tilt doubt a key was read with (None: every die in every
    view, or a key from before the cascade, session 21)."""
    doubt = key[14] if len(key) > 14 else None
    return float(doubt[2]) if isinstance(doubt, tuple) and isinstance(doubt[0], int) else None


def pick(saved: dict, reader_prefix: str | None, name: str,
         tilt_scale: float | None = None, face_scale: float | None = None,
         margin_scale: float | None = None, pip_radius: float | None = None,
         sure_tilt: float | None = None) -> list:
    """The one runtime's reads in a `--reads` file (keys: tune_verdicts' settings)."""
    keys = [k for k in saved if (reader_prefix is None or k[2].startswith(reader_prefix))
            and (tilt_scale is None or _wide(k) == tilt_scale)
            and (face_scale is None or _face(k) == face_scale)
            and (margin_scale is None or _margin(k) == margin_scale)
            and (pip_radius is None or _pips(k) == pip_radius)
            and (sure_tilt is None or _sure_tilt(k) == sure_tilt)]
    if len(keys) != 1:
        held = ", ".join(f"reader {k[2][:12]} det {k[3]} views {k[5]} wide {_wide(k)} "
                         f"face {_face(k)} margin {_margin(k)} pips {_pips(k)} "
                         f"sure tilt {_sure_tilt(k)}" for k in saved)
        raise SystemExit(f"{name}: {len(keys)} runtimes match --reader "
                         f"{reader_prefix!r} --tilt-scale {tilt_scale} "
                         f"--face-scale {face_scale} --margin-scale {margin_scale} "
                         f"--pip-radius {pip_radius} --sure-tilt {sure_tilt} "
                         f"(held: {held or 'none'})")
    return saved[keys[0]]


def frontier(suites: list[list], configs: list[VerdictConfig], most: int) -> list[tuple]:
    """For each K in 0..most: (K, let through, good passed %, wrong faces, config) of the
    config with the most good rolls valid at no more than K unsafe rolls let through, over
    the suites pooled; None where no config lets so few through."""
    scored = []
    for cfg in configs:
        total = collections.Counter()
        for reads in suites:
            total.update(tally(reads, cfg))
        through = total["unsafe"] - total["caught"]
        scored.append((through, 100 * total["passed"] / max(total["good"], 1),
                       total["wrong"], cfg))
    rows = []
    for k in range(most + 1):
        fits = [s for s in scored if s[0] <= k]
        best = max(fits, key=lambda s: (s[1], -s[0])) if fits else None
        rows.append((k, *best) if best else (k, None, None, None, None))
    return rows


def per_game_best(suites: list[list], configs: list[VerdictConfig], floor: float) -> tuple:
    """(through, good passed %, wrong faces, config, {game: caught %}) of the config with the
    most good rolls valid over the suites pooled among those under which every game on its
    own calls at least `floor` % of its unsafe rolls not valid; None when none does."""

    best = None
    for cfg in configs:
        per: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
        for reads in suites:
            for read in reads:
                per[game_of(read[1])].update(tally([read], cfg))
        caught = {g: 100 * n["caught"] / max(n["unsafe"], 1) for g, n in per.items()}
        if min(caught.values(), default=100.0) < floor:
            continue
        total = sum(per.values(), collections.Counter())
        row = (total["unsafe"] - total["caught"], 100 * total["passed"] / max(total["good"], 1),
               total["wrong"], cfg, caught)
        if best is None or (row[1], -row[0]) > (best[1], -best[0]):
            best = row
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reads", type=Path, nargs="+", help="files written by tune_verdicts --reads")
    ap.add_argument("--reader", default=None, help="sha256 prefix of the reader ONNX")
    ap.add_argument("--tilt-scale", type=float, default=None,
                    help="the runtime read with this wider tilt crop (0: none)")
    ap.add_argument("--face-scale", type=float, default=None,
                    help="the runtime read with this second face crop (0: none)")
    ap.add_argument("--margin-scale", type=float, default=None,
                    help="the runtime read with this second up-margin crop (0: none)")
    ap.add_argument("--pip-radius", type=float, default=None,
                    help="the runtime read with this pip radius (ReaderConfig.pip_radius)")
    ap.add_argument("--sure-tilt", type=float, default=None,
                    help="the runtime read with this one-view shortcut (tune_verdicts "
                         "--sure-tilt)")
    ap.add_argument("--tilt", type=_floats, default=[0.05, 0.1, 0.2, 0.3])
    ap.add_argument("--stacked", type=_floats, default=[0.25, 0.35, 0.5])
    ap.add_argument("--no-roll-tilt", type=_floats,
                    default=[0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2])
    ap.add_argument("--edge-deg", type=_floats, default=[30.0, 40.0])
    ap.add_argument("--most", type=int, default=15, help="largest count let through shown")
    ap.add_argument("--per-game-floor", type=float, default=None,
                    help="instead of the frontier: the line with the most good rolls valid "
                         "among those under which every game calls at least this %% of its "
                         "unsafe rolls not valid")
    args = ap.parse_args()
    for path in args.reads:
        if not path.is_file():
            raise SystemExit(f"{path}: no such reads file (write it with tune_verdicts --reads)")
    suites = [pick(_load(p), args.reader, str(p), args.tilt_scale, args.face_scale,
                   args.margin_scale, args.pip_radius, args.sure_tilt) for p in args.reads]
    configs = [VerdictConfig(tilt_threshold=t, stacked_threshold=s, no_roll_tilt_threshold=ph,
                             edge_review_deg=e)
               for t, s, ph, e in itertools.product(args.tilt, args.stacked,
                                                    args.no_roll_tilt, args.edge_deg)]
    if args.per_game_floor is not None:
        best = per_game_best(suites, configs, args.per_game_floor)
        if best is None:
            raise SystemExit(f"no line holds every game to {args.per_game_floor} %")
        through, passed, wrong, cfg, caught = best
        print(f"through {through}, good valid {passed:.2f} %, wrong {wrong}; tilt "
              f"{cfg.tilt_threshold} stacked {cfg.stacked_threshold} ph tilt "
              f"{cfg.no_roll_tilt_threshold} edge {cfg.edge_review_deg}; unsafe not valid: "
              + ", ".join(f"{g} {c:.2f} %" for g, c in sorted(caught.items())))
        return
    unsafe = sum(category in UNSAFE for reads in suites for _, _, category, _, _ in reads)
    print(f"{len(suites)} suite(s) pooled, {unsafe} unsafe rolls; {len(configs)} lines")
    print(f"{'at most':>7} {'through':>7} {'good valid':>10} {'wrong':>5}  "
          f"{'tilt':>5} {'stacked':>7} {'ph tilt':>7} {'edge':>5}")
    for k, through, passed, wrong, cfg in frontier(suites, configs, args.most):
        if cfg is None:
            print(f"{k:>7} {'-':>7}")
            continue
        print(f"{k:>7} {through:>7} {passed:>9.2f}% {wrong:>5}  {cfg.tilt_threshold:>5} "
              f"{cfg.stacked_threshold:>7} {cfg.no_roll_tilt_threshold:>7} "
              f"{cfg.edge_review_deg:>5}")


if __name__ == "__main__":
    main()
