"""Prints a sample shift as tables a person can read."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from .money import dollars
from .registry import GAMES
from .shift import run_shift


def _params(params) -> str:
    return ",".join(f"{k}={'-'.join(map(str, v)) if isinstance(v, tuple) else v}"
                    for k, v in params)


def print_shift(games: list[str], rolls: int, seed: int, out: Callable[[str], None]) -> dict:
    """Runs and prints a shift per game; returns the totals per game."""
    totals = {}
    for game in games:
        if game not in GAMES:
            out(f"skipping {game}: not available in this build")
            continue
        out(f"\n=== {game}: {rolls} rolls, seed {seed} ===")
        handle = paid = collected = fees = 0
        remainder = Fraction(0)
        params = {}  # wager id -> params, for lines of wagers placed on earlier rolls
        for r in run_shift(game, rolls, seed):
            s = r.settlement
            params.update((w.id, w.params) for w in r.placed)
            events = f"  [{', '.join(s.events)}]" if s.events else ""
            out(f"roll {r.number:>3}: dice {'-'.join(map(str, s.faces)):<20}{events}")
            for line in s.lines:
                out(f"    seat {line.seat} {line.name:<16} {_params(params[line.wager_id]):<12}"
                    f"{line.result:<8} stake {dollars(line.stake):>9}  net "
                    f"{dollars(line.net):>10}  {line.section}")
            handle += sum(w.amount for w in r.placed)
            fees += r.fees
            paid += s.paid
            collected += s.collected
            remainder += s.remainder
        totals[game] = {"handle": handle, "paid": paid, "collected": collected, "fees": fees}
        out(f"--- {game}: wagered {dollars(handle)}, paid {dollars(paid)}, collected "
            f"{dollars(collected)}, vigorish {dollars(fees)}, rounding remainder {remainder} "
            f"cents, house result {dollars(collected + fees - paid)}")
    return totals
