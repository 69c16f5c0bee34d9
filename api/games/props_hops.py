"""The Props & Hops engine (58 Pa. Code 668a): placing, removing and settling wagers.

Pure functions over immutable `PropsHopsState`; nothing here does I/O. Every wager but the
Six Eight Shake is decided by the next roll.
"""

from __future__ import annotations

from .errors import WagerRefused
from .model import (
    RETURNED,
    Change,
    Line,
    Placement,
    Wager,
    check_amount,
    check_seat,
    evolve,
    refuse_unknown,
)
from .props_hops_options import PropsHopsOptions
from .props_hops_settle import settle
from .props_hops_state import SEATS, PropsHopsState

_WAGERS = "668a.2(d)-(f)"


def new_table(options: PropsHopsOptions | None = None) -> PropsHopsState:
    return PropsHopsState(options=options or PropsHopsOptions())


def close_betting(state: PropsHopsState) -> PropsHopsState:
    """The dealer announces "no more bets" (668a.3(e)); the next roll reopens betting."""
    return evolve(state, betting_open=False)


def place(state: PropsHopsState, wager: Wager) -> Placement:
    """Places a wager, or raises `WagerRefused` naming the rule that forbids it.

    Returns:
        The next state and the placed wager (a Six Eight Shake starts with no combinations
        seen: it counts only rolls after it is placed); no fee is ever taken.
    """
    check_amount(wager.amount)
    check_seat(wager.seat, SEATS, "668a.1(a), 668a.2(c)")
    spec = state.options.specs.get((wager.name, wager.params))
    if spec is None:
        refuse_unknown(state.options.specs, wager, "Props & Hops", _WAGERS)
    if state.has_wager(wager.id):
        raise WagerRefused("duplicate_id", f"wager id {wager.id!r} is already on the table")
    if not state.betting_open:
        raise WagerRefused("bet_closed", "wagers are made before the dice are shaken",
                           "668a.2(a), 668a.3(e)")
    _check_limits(state, wager.amount)
    wager = evolve(wager, progress=0, point=None, working=None, shooter=None)
    return Placement(state.with_wagers((*state.wagers, wager)), wager)


def _check_limits(state: PropsHopsState, amount: int) -> None:
    # The house's own limits: 668a sets and posts none (668a.1(b)(6) posts payout odds),
    # so the refusal cites no section rather than a wrong one.
    o = state.options
    if not o.table_min <= amount <= o.table_max:
        raise WagerRefused("outside_limits", f"amount {amount} is outside the table limits "
                           f"{o.table_min}-{o.table_max} (the house's, 668a sets none)")


def reduce(state: PropsHopsState, wager_id: str, amount: int = 0) -> Change:
    """Reduces a wager to `amount` cents (0 removes it).

    One-roll wagers may be taken down until "no more bets" (668a.2(a)); a Six Eight Shake
    Wager may be removed or reduced at any time before a 7 (668a.1(b)(5), 668a.2(f)(8)),
    which is always, since a 7 settles it at once.
    """
    w = state.wager(wager_id)
    if w is None:
        raise WagerRefused("unknown_id", f"no wager {wager_id!r} on the table")
    if isinstance(amount, bool) or not isinstance(amount, int) or not 0 <= amount < w.amount:
        raise WagerRefused("bad_amount", "a reduction is to a smaller amount (0 removes); "
                           "an increase is a new wager")
    shake = w.name == "six_eight_shake"
    if not shake and not state.betting_open:
        raise WagerRefused("not_removable", f"{w.name} stays up for the roll after "
                           "\"no more bets\"", "668a.2(a), 668a.3(e)")
    if amount:
        _check_limits(state, amount)
    rest = tuple(x if x.id != w.id else evolve(x, amount=amount) for x in state.wagers
                 if x.id != w.id or amount)
    section = "668a.2(f)(8)" if shake else "668a.2(a)"
    # The line covers only the chips taken down, so returned == stake holds; what stays up
    # is the wager's new amount in the state.
    down = w.amount - amount
    line = Line(w.id, w.name, w.seat, RETURNED, down, 0, down, 0, False, section=section,
                note=f"reduced to {amount}" if amount else "removed")
    return Change(state.with_wagers(rest), down, line)


def expected_dice(state: PropsHopsState) -> int:
    """Two dice in the shaker on every roll (668a.3(a))."""
    return 2


__all__ = ["close_betting", "expected_dice", "new_table", "place", "reduce", "settle"]
