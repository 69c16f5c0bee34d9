"""The wager catalog: every wager a table accepts, with odds, section and exact house edge.

The house edge of each wager is computed by `edge.house_edge` through the engine's own
settlement code, so the catalog and the settlements can never disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

from . import edge
from .craps_rules import BONUS
from .errors import WagerRefused
from .high_roll_catalog import high_roll_setups
from .high_roll_catalog import normalize as high_roll_normalize
from .model import Wager, evolve
from .registry import GameRules, get
from .spec import Spec

Setup = tuple[Any, list[Wager], int]  # (start state, wagers under study, up-front fee)
_AMOUNTS = (6000, 2000, 1000, 500, 100)


def _place_any(rules: GameRules, state, name: str, params: dict, wid: str, seat: int = 0):
    """Places `name` at the first of a few amounts the table accepts."""
    last = None
    for amount in _AMOUNTS:
        try:
            return rules.place(state, Wager.of(wid, name, amount, seat, **params))
        except WagerRefused as exc:
            last = exc
    raise last


def _roll_total(rules: GameRules, state, total: int):
    a = min(6, total - 1)
    return rules.settle(state, (a, total - a)).state


def craps_setups(rules: GameRules, options, spec: Spec) -> Iterator[Setup]:
    """Start states for a Craps wager: odds and come bets need a point or a come point."""
    params = spec.params_dict
    fresh = rules.new_table(options)
    if spec.kind == "odds" or spec.name in ("come", "dont_come"):
        flat = spec.name.replace("_odds", "")
        points = [params["number"]] if "number" in params else [4, 5, 6, 8, 9, 10]
        for n in points:
            state = fresh
            if flat in ("pass", "dont_pass"):
                state = _roll_total(rules, _place_any(rules, state, flat, {}, "f").state, n)
            else:
                state = _roll_total(rules, state, 4 if n != 4 else 5)
                if spec.kind == "odds":
                    state = _roll_total(rules, _place_any(rules, state, flat, {}, "f").state, n)
            if spec.kind == "odds":
                placed = rules.place(state, Wager.of("w", spec.name, 1000, 0, **params))
            else:
                placed = _place_any(rules, state, spec.name, params, "w")
            yield placed.state, [placed.wager], placed.fee
        return
    placed = _place_any(rules, fresh, spec.name, params, "w")
    yield placed.state, [placed.wager], placed.fee


def craps_normalize(state):
    # Table-level marks are for display; wagers carry their own progress. Bonus Craps does
    # not depend on the point (623a.12(5): any 7 ends it), so a bonus-only state drops it.
    point = None if all(w.name in BONUS for w in state.wagers) else state.point
    return evolve(state, points_made=0, bonus_marks=0, point=point)


SETUPS: dict[str, tuple[Callable[..., Iterator[Setup]], Callable]] = {
    "craps": (craps_setups, craps_normalize),
    "mini-craps": (craps_setups, craps_normalize),
    "high-roll-dice": (high_roll_setups, high_roll_normalize),
    "high-roll-dice-6": (high_roll_setups, high_roll_normalize),
}


def house_edge(game: str, options, spec: Spec) -> Fraction:
    """The worst exact house edge of `spec` over the start states it can be placed in."""
    rules = get(game)
    setups, normalize = SETUPS.get(game, (None, lambda s: s))
    if setups is None:
        fresh = rules.new_table(options)
        placed = _place_any(rules, fresh, spec.name, spec.params_dict, "w")
        cases = [(placed.state, [placed.wager], placed.fee)]
    else:
        cases = list(setups(rules, options, spec))
    return max(edge.house_edge(rules, s, ws, fee, normalize) for s, ws, fee in cases)


def catalog(game: str, options=None) -> list[dict[str, Any]]:
    """The catalog of `game` as JSON-ready dicts, in the order of the regulation."""
    rules = get(game)
    options = options if options is not None else rules.options()
    out = []
    # Craps lists only what a new wager may be (a stored Mini-Craps table may still have
    # a Fire Bet up that it no longer accepts).
    for spec in getattr(options, "offered_specs", options.specs).values():
        he = house_edge(game, options, spec)
        out.append({
            "name": spec.name, "params": spec.params_dict, "title": spec.title,
            "odds": spec.odds, "section": spec.section,
            "house_edge": float(he), "house_edge_exact": str(he),
            **({"notes": spec.notes} if spec.notes else {}),
        })
    return out
