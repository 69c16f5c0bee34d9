"""The games the engine knows, behind one interface the service and the tools use.

A `GameRules` bundles the pure functions of one game. `outcomes` lists every distinct roll
with its weight (out of 6**n), so house edges are computed by enumeration, not simulation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import combinations_with_replacement
from math import factorial
from typing import Any

from . import craps
from .craps_options import CrapsOptions
from .model import Change, Placement, Settlement, Wager


@dataclass(frozen=True)
class GameRules:
    """The pure functions of one game.

    Attributes:
        name: the game's name in the catalog and the API.
        chapter: the regulation chapter, e.g. "623a".
        options_type: the dataclass of the table's house options.
        new_table: options -> a fresh table state.
        place: (state, wager) -> Placement; raises WagerRefused.
        reduce: (state, wager_id, amount) -> Change; amount 0 removes.
        settle: (state, faces) -> Settlement; raises RollRefused.
        expected_dice: state -> how many dice the next roll must show.
        default_options: options fixed by the game (e.g. Mini-Craps' `game`).
        check_new: options -> None, raising OptionsRefused for what a new table may not be
            given although a table stored before may have it (see `new_table_options`).
    """

    name: str
    chapter: str
    options_type: type
    new_table: Callable[[Any], Any]
    place: Callable[[Any, Wager], Placement]
    reduce: Callable[[Any, str, int], Change]
    settle: Callable[[Any, Iterable[int]], Settlement]
    expected_dice: Callable[[Any], int]
    default_options: dict[str, Any] | None = None
    check_new: Callable[[Any], None] | None = None

    def options(self, **overrides: Any) -> Any:
        return self.options_type(**{**(self.default_options or {}), **overrides})

    def new_table_options(self, options: Any) -> Any:
        """`options` if a new table (or new options) may have them; raises OptionsRefused."""
        if self.check_new is not None:
            self.check_new(options)
        return options


def outcomes(n: int) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every multiset of `n` faces (sorted) with its number of orderings; weights sum to 6**n."""
    for faces in combinations_with_replacement(range(1, 7), n):
        weight = factorial(n)
        for face in set(faces):
            weight //= factorial(faces.count(face))
        yield faces, weight


GAMES: dict[str, GameRules] = {}


def register(rules: GameRules) -> None:
    GAMES[rules.name] = rules


def get(name: str) -> GameRules:
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; known: {', '.join(sorted(GAMES))}") from None


for _name in ("craps", "mini-craps"):
    register(GameRules(
        name=_name, chapter="623a", options_type=CrapsOptions,
        new_table=craps.new_table, place=craps.place, reduce=craps.reduce,
        settle=craps.settle, expected_dice=lambda state: 2,
        default_options={"game": _name}, check_new=CrapsOptions.refuse_craps_only,
    ))


def _register_props_and_high_roll() -> None:
    """668a Props & Hops; 675a High Roll Dice with ten dice and the six-dice variation."""
    from . import high_roll, props_hops
    from .high_roll_state import HighRollOptions
    from .props_hops_options import PropsHopsOptions

    register(GameRules(
        name="props-and-hops", chapter="668a", options_type=PropsHopsOptions,
        new_table=props_hops.new_table, place=props_hops.place, reduce=props_hops.reduce,
        settle=props_hops.settle, expected_dice=props_hops.expected_dice,
        default_options={},
    ))
    for name, dice in (("high-roll-dice", 10), ("high-roll-dice-6", 6)):
        register(GameRules(
            name=name, chapter="675a", options_type=HighRollOptions,
            new_table=high_roll.new_table, place=high_roll.place, reduce=high_roll.reduce,
            settle=high_roll.settle, expected_dice=high_roll.expected_dice,
            default_options={"dice": dice},
        ))


_register_props_and_high_roll()
