"""A scripted sample shift: seeded players place wagers, seeded dice are settled.

This is the engine-only main job until the edge and the service exist: every roll goes
through `place`/`settle` exactly as the service will call them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from .errors import WagerRefused
from .model import Settlement, Wager
from .registry import GameRules, get

# (name, params, amount in cents) each seat tries before every roll; refused ones are
# skipped, which is how timing rules (pass only on the come out...) show in the shift.
PLAYBOOK: dict[str, list[tuple[str, dict, int]]] = {
    "craps": [
        ("pass", {}, 1000), ("pass_odds", {}, 2000), ("come", {}, 1000),
        ("place_to_win", {"number": 6}, 1200), ("place_to_win", {"number": 8}, 1200),
        ("hardway", {"number": 8}, 500), ("field", {}, 500), ("horn", {}, 800),
        ("dont_pass", {}, 1000), ("lay", {"number": 4}, 2000), ("fire", {}, 500),
        ("all_small", {}, 500), ("hop", {"dice": [2, 4]}, 500),
    ],
    "props-and-hops": [
        ("field", {}, 500), ("double", {"face": 3}, 500), ("any_number", {"dice": [1, 6]}, 500),
        ("hop_the_top", {}, 1000), ("six_eight_shake", {}, 500),
        ("one_six_and_under", {}, 1000),
    ],
    "high-roll-dice": [
        ("pip_street", {"face": 1}, 1000), ("pip_street", {"face": 5}, 1000),
        ("like_kind", {"count": 3}, 1000), ("like_kind", {"count": 4}, 1000),
        ("like_kind", {"count": 5}, 1000), ("extra_roll", {}, 1000),
        ("millionaire_row", {"count": 9}, 100),
    ],
}


@dataclass(frozen=True)
class ShiftRoll:
    game: str
    number: int
    placed: tuple[Wager, ...]
    fees: int
    settlement: Settlement


def run_shift(game: str, rolls: int, seed: int, seats: int = 2) -> Iterator[ShiftRoll]:
    """Yields each roll of a seeded shift at one table of `game`."""
    rules: GameRules = get(game)
    rng = random.Random(f"{game}:{seed}")
    state = rules.new_table(rules.options())
    playbook = PLAYBOOK.get(game) or PLAYBOOK[game.rsplit("-", 1)[0]]
    counter = 0
    for number in range(1, rolls + 1):
        placed, fees = [], 0
        for seat in range(1, seats + 1):
            for name, params, amount in playbook:
                if rng.random() < 0.35 or _has(state, seat, name, params):
                    continue
                counter += 1
                try:
                    p = rules.place(state, Wager.of(f"w{counter}", name, amount, seat, **params))
                except WagerRefused:
                    continue
                state, fees = p.state, fees + p.fee
                placed.append(p.wager)
        faces = tuple(rng.randint(1, 6) for _ in range(rules.expected_dice(state)))
        settlement = rules.settle(state, faces)
        state = settlement.state
        yield ShiftRoll(game, number, tuple(placed), fees, settlement)


def _has(state, seat: int, name: str, params: dict) -> bool:
    probe = Wager.of("?", name, 1, seat, **params)
    return any(w.seat == seat and w.name == name and w.params == probe.params
               for w in state.wagers)
