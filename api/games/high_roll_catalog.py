"""Start states for the exact house edge of each High Roll Dice wager (675a.2(e), 675a.6(d)).

Only a Pip Street Wager can be placed on an empty seat (675a.2(e)(1)), so the generic
catalog cannot study the other wagers alone. `high_roll_setups` has the signature of
`catalog.SETUPS` entries: it places the seat's Pip Street Wager first (not studied) and, for
the Extra Roll, studies the purchase together with every Like Kind circle it rides on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .model import Wager
from .spec import Spec

STAKE = 1000  # cents; every equal-value wager of the seat uses it (675a.1(b)(2)(iv))


def high_roll_setups(rules: Any, options: Any, spec: Spec) -> Iterator[tuple[Any, list, int]]:
    """Yields (start state, wagers under study, fee) for one High Roll Dice wager.

    Args:
        rules: the game's `GameRules` ("high-roll-dice" or "high-roll-dice-6").
        options: the table's `HighRollOptions`.
        spec: the catalog entry to study.

    Yields:
        One setup. A Like Kind or Millionaire Row wager rides on a Pip Street Wager that is
        not studied; an Extra Roll is studied with Like Kind wagers on every circle, since
        the purchase returns nothing by itself (675a.4(a)) and pays through them (675a.4(h)).
    """
    state = rules.new_table(options)
    if spec.name != "pip_street":
        state = rules.place(state, Wager.of("pip", "pip_street", STAKE, face=1)).state
    studied: list[Wager] = []
    if spec.name == "extra_roll":
        counts = sorted(dict(params)["count"] for name, params in options.specs
                        if name == "like_kind")
        for count in counts:
            placed = rules.place(state, Wager.of(f"k{count}", "like_kind", STAKE, count=count))
            state = placed.state
            studied.append(placed.wager)
    amount = options.millionaire_min if spec.name == "millionaire_row" else STAKE
    placed = rules.place(state, Wager.of("w", spec.name, amount, **spec.params_dict))
    yield placed.state, [*studied, placed.wager], placed.fee


def normalize(state: Any) -> Any:
    """States are already minimal: every wager is decided within the round."""
    return state
