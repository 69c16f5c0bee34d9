"""Drives the Craps engine through a sequence of rolls for the rule tables."""

from __future__ import annotations

from dicecall.api.games import craps
from dicecall.api.games.craps_options import CrapsOptions
from dicecall.api.games.model import MOVE, Wager

POINT = {4: (1, 3), 5: (1, 4), 6: (2, 4), 8: (2, 6), 9: (3, 6), 10: (4, 6)}


def decide(name, params=None, amount=1000, before=(), after=(), flat=None, options=None,
           working=None):
    """Places `name` after the `before` rolls, then rolls `after` until it is decided.

    Returns:
        The wager's first deciding Line, or None when the rolls leave it undecided.
    """
    state = craps.new_table(options or CrapsOptions())
    if flat:
        state = craps.place(state, Wager.of("flat", flat, 1000)).state
    for dice in before:
        state = craps.settle(state, dice).state
    state = craps.place(state, Wager.of("w", name, amount, **(params or {}))).state
    if working is not None:
        state = craps.set_working(state, "w", working)
    for dice in after:
        result = craps.settle(state, dice)
        for line in result.lines:
            if line.wager_id == "w" and line.result != MOVE:
                check_line(line)
                return line
        state = result.state
    return None


def check_line(line) -> None:
    """Every line keeps the money: what went back, was kept, or stays, is the stake."""
    assert line.returned + line.collected + (line.stake if line.stays else 0) == line.stake
    assert line.paid >= 0 and line.returned >= 0 and line.collected >= 0


def table(*wagers, rolls=(), options=None):
    """A Craps table with `wagers` placed, then `rolls` thrown."""
    state = craps.new_table(options)
    for w in wagers:
        state = craps.place(state, w).state
    for dice in rolls:
        state = craps.settle(state, dice).state
    return state
