"""The High Roll Dice engine (58 Pa. Code 675a): placing, removing and settling wagers.

Pure functions over immutable `HighRollState`; nothing here does I/O. The same functions
serve the ten-dice game and the six-dice variation (675a.6); the options say which.
"""

from __future__ import annotations

from .errors import WagerRefused
from .high_roll_rules import EQUAL_VALUE, MILLIONAIRE_MAX
from .high_roll_settle import expected_dice, settle
from .high_roll_state import SEATS, HighRollOptions, HighRollState
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


def new_table(options: HighRollOptions | None = None) -> HighRollState:
    return HighRollState(options=options or HighRollOptions())


def close_betting(state: HighRollState) -> HighRollState:
    """"No more bets" and the Extra Roll lock-out (675a.4(a), 675a.1(c)(2))."""
    return evolve(state, betting_open=False)


def _equal_section(state: HighRollState) -> str:
    return "675a.1(b)(2)(iv)" if state.options.dice == 10 else "675a.6(b)(3)"


def place(state: HighRollState, wager: Wager) -> Placement:
    """Places a wager, or raises `WagerRefused` naming the rule that forbids it."""
    check_amount(wager.amount)
    check_seat(wager.seat, SEATS, "675a.1(a), 675a.2(c)")
    spec = state.options.specs.get((wager.name, wager.params))
    if spec is None:
        refuse_unknown(state.options.specs, wager,
                       f"{state.options.dice}-dice High Roll Dice", "675a.2(e), 675a.6(d)")
    if state.has_wager(wager.id):
        raise WagerRefused("duplicate_id", f"wager id {wager.id!r} is already on the table")
    if not state.betting_open or state.extra_phase:
        raise WagerRefused("bet_closed", "wagers and Extra Roll purchases are made before the "
                           "dice are shaken", "675a.2(a), 675a.4(a)")
    if any(w.params == wager.params for w in state.seat_wagers(wager.seat, wager.name)):
        raise WagerRefused("duplicate_wager", f"seat {wager.seat} already has {wager.name} "
                           f"{wager.params_dict}; the amounts must stay equal",
                           _equal_section(state))
    _check_order(state, wager)
    _check_amount(state, wager)
    wager = evolve(wager, progress=0, point=None, working=None, shooter=None)
    return Placement(state.with_wagers((*state.wagers, wager)), wager)


def _check_order(state: HighRollState, w: Wager) -> None:
    """675a.2(e)(1)-(3): Pip Street first; an Extra Roll needs a Like Kind wager."""
    if w.name == "pip_street":
        return
    if not state.seat_wagers(w.seat, "pip_street"):
        raise WagerRefused("no_pip_street", "a seat places a Pip Street Wager to participate, "
                           "before any other wager", "675a.2(e)(1)")
    if w.name == "extra_roll" and not state.seat_wagers(w.seat, "like_kind"):
        raise WagerRefused("no_like_kind", "an Extra Roll is purchased by a seat that placed "
                           "a Like Kind Boulevard Wager", "675a.2(e)(3)")


def _check_amount(state: HighRollState, w: Wager) -> None:
    o = state.options
    if w.name == "millionaire_row":
        if not o.millionaire_min <= w.amount <= MILLIONAIRE_MAX:
            raise WagerRefused("outside_limits", f"a Millionaire Row Wager is "
                               f"{o.millionaire_min}-{MILLIONAIRE_MAX} cents; it may not be "
                               "more than $1", "675a.2(e)(4)")
        return
    # The house's own limits: 675a sets none besides the Millionaire Row's $1 above
    # (675a.1(b)(3) posts the payout odds), so the refusal cites no section, not a wrong one.
    if not o.table_min <= w.amount <= o.table_max:
        raise WagerRefused("outside_limits", f"amount {w.amount} is outside the table limits "
                           f"{o.table_min}-{o.table_max} (the house's, 675a sets none)")
    equal = state.seat_wagers(w.seat, *EQUAL_VALUE)
    if equal and equal[0].amount != w.amount:
        what = {"pip_street": "675a.2(e)(1)", "like_kind": "675a.2(e)(2)",
                "no_match": "675a.6(d)", "extra_roll": "675a.2(e)(3)"}[w.name]
        raise WagerRefused("unequal_amounts", f"{w.name} must equal the seat's Pip Street "
                           f"Wager of {equal[0].amount} cents",
                           f"{_equal_section(state)}, {what}")


def reduce(state: HighRollState, wager_id: str, amount: int = 0) -> Change:
    """Takes a wager down before "no more bets" (675a.2(a)); `amount` 0 removes it.

    Equal-value wagers can only be removed, not reduced (675a.1(b)(2)(iv)); a Millionaire Row
    may be reduced within its limits. Removing a seat's last Pip Street (or last Like Kind)
    is refused while the wagers that depend on it are up (675a.2(e)(1),(3)).
    """
    w = state.wager(wager_id)
    if w is None:
        raise WagerRefused("unknown_id", f"no wager {wager_id!r} on the table")
    if isinstance(amount, bool) or not isinstance(amount, int) or not 0 <= amount < w.amount:
        raise WagerRefused("bad_amount", "a reduction is to a smaller amount (0 removes); "
                           "an increase is a new wager")
    if state.extra_phase or not state.betting_open:
        raise WagerRefused("not_removable", "wagers stay up once the dealer has announced "
                           "\"no more bets\" until the round settles them",
                           "675a.2(a), 675a.4(a), 675a.4(f)(2)(ii)")
    if amount and w.name in EQUAL_VALUE:
        raise WagerRefused("unequal_amounts", f"{w.name} must stay equal to the seat's other "
                           "wagers: remove it instead", _equal_section(state))
    if amount:
        _check_amount(state, evolve(w, amount=amount))
    _check_dependants(state, w, amount)
    rest = tuple(x if x.id != w.id else evolve(x, amount=amount) for x in state.wagers
                 if x.id != w.id or amount)
    down = w.amount - amount  # the line covers only the chips taken down
    line = Line(w.id, w.name, w.seat, RETURNED, down, 0, down, 0, False, section="675a.2(a)",
                note=f"reduced to {amount}" if amount else "removed")
    return Change(state.with_wagers(rest), down, line)


def _check_dependants(state: HighRollState, w: Wager, amount: int) -> None:
    if amount:
        return
    others = [x for x in state.wagers if x.seat == w.seat and x.id != w.id]
    names = {x.name for x in others}
    if w.name == "pip_street" and "pip_street" not in names and names:
        raise WagerRefused("has_dependants", "remove the seat's other wagers before its last "
                           "Pip Street Wager", "675a.2(e)(1)")
    if w.name == "like_kind" and "like_kind" not in names and "extra_roll" in names:
        raise WagerRefused("has_dependants", "remove the Extra Roll before the seat's last "
                           "Like Kind Wager", "675a.2(e)(3)")


__all__ = ["close_betting", "expected_dice", "new_table", "place", "reduce", "settle"]
