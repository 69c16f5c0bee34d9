"""Settles one seeded shift with our Craps engine and with crapssim; prints both rates.

    python bench/bench_engine.py [--rolls 1000000] [--seed 1] [--sim-rolls 100000]

Both engines get the same pre-drawn rolls (`random.Random(seed)`) and the same full layout,
kept up before every roll (`tests/api/games/crapssim_bridge.py`: line bets with odds, come
bets, place, buy, lay, hardways, every one-roll bet and hop, Fire, Bonus Craps; about 45 bets
on the table, 33 placed per roll). A roll's time is re-placing the layout plus settling it.
crapssim is timed twice: through `Player.add_bet` and `list.remove`, as a crapssim strategy
places and removes bets, and through a direct append / identity removal (the same
settlement code, without its quadratic layout scans). crapssim runs on the first
`--sim-rolls` rolls only (about 2 ms a roll); the table says so.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time
from pathlib import Path

BRIDGE = Path(__file__).resolve().parents[1] / "tests" / "api" / "games" / "crapssim_bridge.py"


def load_bridge():
    """Imports the test bridge by path (our tests are not an importable package)."""
    spec = importlib.util.spec_from_file_location("dicecall_bench_bridge", BRIDGE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def timed(side, rolls: list[tuple[int, int]]) -> float:
    """Seconds to keep the layout up and settle every roll."""
    step = side.step
    start = time.perf_counter()
    for dice in rolls:
        step(dice)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=1_000_000, help="rolls for our engine")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sim-rolls", type=int, default=100_000,
                        help="rolls for crapssim (a prefix of the same shift); 0 skips it")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    rolls = [(rng.randint(1, 6), rng.randint(1, 6)) for _ in range(args.rolls)]
    try:
        bridge = load_bridge()
    except ImportError as exc:  # crapssim is in the `dev` extra only
        print(f"crapssim not importable ({exc}); install with: pip install -e '.[dev]'")
        return 1
    config = bridge.Config()
    rows = [("dicecall", len(rolls), timed(bridge.OurSide(config), rolls))]
    prefix = rolls[:min(args.sim_rolls, len(rolls))]
    if prefix:
        rows.append(("crapssim 0.4.1 (add_bet)", len(prefix),
                     timed(bridge.SimSide(config, native=True), prefix)))
        rows.append(("crapssim 0.4.1 (append)", len(prefix),
                     timed(bridge.SimSide(config, native=False), prefix)))
    ours_rate = rows[0][1] / rows[0][2]
    print(f"seed {args.seed}; layout of {len(bridge.LAYOUT)} bets plus odds and come bets; "
          f"crapssim on the first {len(prefix):,} of {len(rolls):,} rolls")
    print(f"{'engine':<26} {'rolls':>10} {'seconds':>9} {'rolls/s':>10} {'ours/this':>10}")
    for name, count, seconds in rows:
        rate = count / seconds
        print(f"{name:<26} {count:>10,} {seconds:>9.2f} {rate:>10,.0f} {ours_rate / rate:>9.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
