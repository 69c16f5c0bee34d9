"""Placing Craps and Mini-Craps wagers (58 Pa. Code 623a): every admission rule.

Seat, what the table offers, timing (623a.3(a), 623a.11, 623a.12), limits and units
(623a.3(b), 623a.5(j), 623a.6(e), 623a.11(b)(1)) and the up-front vigorish (623a.5(g)(3)).
Pure functions over immutable `CrapsState`; `craps` re-exports `place` and `place_many`.
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd, lcm

from .craps_options import FIRE_AREAS
from .craps_rules import BUY, LAY
from .craps_state import CrapsState, dont_bit
from .errors import WagerRefused
from .model import Placement, Wager, check_amount, check_seat, evolve, refuse_unknown

_FLAT_OF = {"pass_odds": "pass", "dont_pass_odds": "dont_pass",
            "come_odds": "come", "dont_come_odds": "dont_come"}


def place(state: CrapsState, wager: Wager) -> Placement:
    """Places a wager, or raises `WagerRefused` naming the rule that forbids it.

    Returns:
        The next state and the vigorish collected up front on a Buy or Lay Bet.
    """
    if state.has_wager(wager.id):
        raise WagerRefused("duplicate_id", f"wager id {wager.id!r} is already on the table")
    key = _spot(state, wager)
    wager, fee = _admit(state, wager, _on_spot(state.wagers, key))
    return Placement(state.with_wagers((*state.wagers, wager)), wager, fee)


def place_many(state: CrapsState, wagers) -> tuple[CrapsState, list[Wager], list[int]]:
    """Places several wagers in order, all or none: the first refusal raises and the table
    is unchanged. Equivalent to calling `place` in a loop, with one state built at the end.

    Returns:
        (next state, the placed wagers, the up-front vigorish of each).
    """
    on_table = list(state.wagers)
    ids = {w.id for w in on_table}
    placed, fees = [], []
    # The seat's cents on each spot, this batch's wagers included, so a batch is held to
    # the same per-seat limits as wagers placed one by one.
    totals: dict[tuple, int] = {}
    for w in on_table:
        if w.point is None:
            key = (w.seat, w.name, w.params, w.shooter if w.name == "fire" else None)
            totals[key] = totals.get(key, 0) + w.amount
    for wager in wagers:
        if wager.id in ids:
            raise WagerRefused("duplicate_id", f"wager id {wager.id!r} is already on the table")
        # Odds are checked against the flat bets placed so far, this batch's included.
        view = state.with_wagers(tuple(on_table)) if wager.name in _FLAT_OF else state
        key = _spot(state, wager)
        have = totals.get(key, 0)
        wager, fee = _admit(view, wager, have)
        totals[key] = have + wager.amount
        on_table.append(wager)
        ids.add(wager.id)
        placed.append(wager)
        fees.append(fee)
    return state.with_wagers(tuple(on_table)), placed, fees


def _spot(state: CrapsState, w: Wager) -> tuple:
    """Where a new wager goes for the seat's limits: seat, name and params, and for a Fire
    Bet the shooter it is for (623a.11(a)(1))."""
    return (w.seat, w.name, w.params, state.shooter if w.name == "fire" else None)


def _on_spot(wagers, key: tuple) -> int:
    """Cents the seat already has on the spot `key` (see `_spot`). A Come or Don't Come Bet
    moved to its come point has left the Come area, so it is not counted (623a.3(a)(3),(4))."""
    seat, name, params, shooter = key
    return sum(x.amount for x in wagers
               if x.seat == seat and x.name == name and x.params == params and x.point is None
               and (shooter is None or x.shooter == shooter))


def _admit(state: CrapsState, wager: Wager, have: int = 0) -> tuple[Wager, int]:
    """Every placement rule but the duplicate id; returns the wager as stored and its fee.

    `have` is the cents the seat already has on the wager's spot (`_on_spot`).
    """
    o = state.options
    # 623a.4(e): only seated players wager at Mini-Craps (nine seats, 623a.2(c)); at Craps,
    # a wager belongs to one of the table's player positions.
    check_seat(wager.seat, o.seats, "623a.2(c), 623a.4(e)" if o.game == "mini-craps"
               else "623a.2")
    spec = o.spec(wager.name, wager.params)
    amount = wager.amount
    # Most of a layout is one-roll wagers: any time, no fee, limits and units only. Anything
    # this fast path does not accept goes through every check below for the refusal.
    if (spec is not None and spec.kind == "one_roll" and type(amount) is int
            and wager.working is None):
        step = spec.extra.get("step") or _one_roll_step(spec, o.prop_unit)
        if o.table_min <= amount and have + amount <= o.table_max and not amount % step:
            return wager, 0
    check_amount(amount)
    only = o.craps_only(wager.name)
    if only:
        raise WagerRefused("unknown_wager", f"{wager.name}: a Mini-Craps table does not offer "
                           "it, 623a offers it in the game of Craps only", only)
    if spec is None:
        off = o.not_offered(wager.name)
        if off:
            raise WagerRefused("unknown_wager", f"{wager.name}: {off[0]}", off[1])
        refuse_unknown(o.offered_specs, wager, f"this {o.game} table", "623a.3(a)")
    if spec.kind == "fire" and wager.seat >= FIRE_AREAS:
        raise WagerRefused("bad_seat", f"player position {wager.seat} has no Fire Bet area: "
                           f"a layout has at most {FIRE_AREAS}, for positions 0-"
                           f"{FIRE_AREAS - 1}", "623a.2(d)(4)(i)")
    _check_timing(state, wager, spec)
    # Only the seat's Don't Pass or Don't Come area is locked (623a.4(d)); its other bets
    # are not the bet that was reduced.
    if (state.dont_reduced and wager.name in ("dont_pass", "dont_come")
            and state.dont_reduced & dont_bit(wager.seat, wager.name)):
        raise WagerRefused("dont_reduced", f"seat {wager.seat}'s {wager.name} was reduced or "
                           "removed: it may not be replaced or increased", "623a.4(d)")
    if have and spec.kind in ("fire", "bonus"):
        _refuse_increase(wager, spec)
    check_limits(state, wager, spec, have)
    if spec.kind == "one_roll" and wager.working is not None:
        raise no_marker(wager.name, spec)
    if spec.kind == "fire":
        wager = evolve(wager, shooter=state.shooter, progress=0)
    elif spec.kind in ("bonus", "line") and (wager.progress or wager.point is not None):
        wager = evolve(wager, progress=0, point=None)
    return wager, _upfront_vig(state, wager)


def _refuse_increase(w: Wager, spec) -> None:
    """A second Fire or Bonus Craps wager on a seat's spot would increase the first."""
    if spec.kind == "fire":
        # One Fire Bet area per player position (623a.2(d)(4)(i)), $1 to $5 a wager
        # (623a.11(b)(1)), never increased (623a.4(c)(3)): a second one would be all three.
        raise WagerRefused("duplicate_wager", f"seat {w.seat} already has a Fire Bet for "
                           "this shooter; a Fire Bet is at most $5 and may not be increased",
                           "623a.11(b)(1), 623a.4(c)(3), 623a.2(d)(4)(i)")
    raise WagerRefused("duplicate_wager", f"seat {w.seat} already has an {w.name} wager up; "
                       "a Bonus Craps wager may not be increased", "623a.4(c)(4), 623a.12(2)")


def _check_timing(state: CrapsState, w: Wager, spec) -> None:
    name = w.name
    if name in ("pass", "dont_pass") and not state.come_out:
        raise WagerRefused("bet_closed", f"{name} is made only before the come out roll",
                           "623a.3(a)(1),(2), 623a.4(c)(1)")
    if name in ("come", "dont_come") and state.come_out:
        raise WagerRefused("bet_closed", f"{name} is made only after the come out roll",
                           "623a.3(a)(3),(4)")
    # Before the new shooter's initial come out roll, and "immediately" before it: not
    # while he rolls out a point he took over, its number already known.
    if spec.kind == "fire" and not state.initial_come_out:
        raise WagerRefused("bet_closed", "the Fire Bet is accepted only immediately before "
                           "a new shooter's initial come out roll",
                           "623a.3(a)(40), 623a.11(a)(1)")
    if spec.kind == "bonus" and not state.initial_come_out:
        raise WagerRefused("bet_closed", "Bonus Craps wagers are accepted only immediately "
                           "before a new shooter's initial come out roll",
                           "623a.3(a)(43), 623a.12(1)")
    if spec.kind == "odds":
        _flat_for_odds(state, w)


def _flat_for_odds(state: CrapsState, w: Wager) -> int:
    """The seat's flat bet behind an odds wager, in cents; refuses when there is none."""
    flat = _FLAT_OF[w.name]
    if w.name in ("pass_odds", "dont_pass_odds"):
        if state.come_out:
            raise WagerRefused("bet_closed", "odds are taken after a come out point is "
                               "established", "623a.6(a),(b)")
        total = state.seat_total(w.seat, flat)
    else:
        total = state.seat_total(w.seat, flat, w.param("number"))
    if total == 0:
        raise WagerRefused("no_flat_bet", f"{w.name} needs the seat's {flat} bet on its "
                           "point", "623a.6")
    return total


def check_limits(state: CrapsState, w: Wager, spec, have: int = 0) -> None:
    """Limits and units; `have` is what the seat already has on the same spot."""
    o = state.options
    if spec.kind == "fire":  # 623a.11(b)(1): $1 to $5 in $1 increments, whatever the table
        lo, hi = spec.limits
        if not lo <= w.amount <= hi or w.amount % spec.units:
            raise WagerRefused("outside_limits", "the Fire Bet is $1 to $5 in $1 increments",
                               "623a.11(b)(1)")
        return
    if spec.kind == "odds":
        _check_odds_limit(state, w)
        return
    if not o.table_min <= w.amount <= o.table_max:
        raise WagerRefused("outside_limits", f"amount {w.amount} is outside the table "
                           f"limits {o.table_min}-{o.table_max}", "623a.3(b), 623a.5(j)")
    # Chips added to a seat's bet on the same spot make one bigger bet: the maximum
    # (623a.3(b)(2), 623a.5(j)) holds for the seat's total, or splitting evades it (and,
    # on a line bet, multiplies the odds allowed behind it, 623a.6(e)).
    if have + w.amount > o.table_max:
        raise WagerRefused("outside_limits", f"seat {w.seat} has {have} on {w.name}; with "
                           f"{w.amount} more it would exceed the table maximum "
                           f"{o.table_max}", "623a.3(b)(2), 623a.5(j)")
    if spec.units > 1 and w.amount % (spec.units * o.prop_unit):
        raise WagerRefused("wrong_units", f"{w.name} is placed in units of {spec.units} "
                           f"(of {o.prop_unit} cents)", spec.section)
    if spec.kind == "one_roll" and w.amount % _share_step(spec):
        raise WagerRefused("wrong_units", f"{w.name} must split into whole cents",
                           spec.section)


def _one_roll_step(spec, prop_unit: int) -> int:
    """Cents a one-roll amount must be a multiple of: its units (623a.3(a)(19)-(21)) and
    whole-cent shares; cached on the spec, whose options fix `prop_unit`."""
    units = spec.units * prop_unit if spec.units > 1 else 1
    step = spec.extra["step"] = lcm(units, _share_step(spec))
    return step


def _share_step(spec) -> int:
    """The cents a one-roll wager's amount must be a multiple of for every share
    (623a.5(b)-(e)) to be whole: the lcm of the shares' denominators, cached on the spec."""
    step = spec.extra.get("share_step")
    if step is None:
        step = spec.extra["share_step"] = lcm(*(p.share.denominator for p in spec.data))
    return step


def _odds_point(state: CrapsState, w: Wager) -> int:
    """The number an odds wager is on: the come out point, or its come point."""
    return state.point if w.name in ("pass_odds", "dont_pass_odds") else w.param("number")


def odds_allowed(options, name: str, number: int, flat: int) -> tuple[int, int]:
    """The most cents of odds `name` on `number` behind `flat` cents of flat bet may total:
    (the limit, the one larger amount 623a.6(f) also accepts, or the limit again).

    623a.6(a),(c),(e): a Pass or Come Bet takes up to the table's multiple of the flat bet;
    623a.6(b),(d),(e): a Don't bet lays odds whose winnings are at most that multiple of it.
    623a.6(f): with `odds_whole_payout`, the excess "necessary to facilitate the payouts":
    the least amount above the limit whose payout is a whole multiple of the unit.
    """
    dont = name.startswith("dont")
    mult = options.odds_limit(number, lay=dont)
    num, den = (LAY if dont else BUY)[number]
    limit = mult * flat * den // num if dont else mult * flat
    unit = options.odds_whole_payout
    if not unit:
        return limit, limit
    # The amounts paying a whole multiple of `unit` at num to den are multiples of `step`.
    step = den * unit // gcd(num, den * unit)
    return limit, -(-limit // step) * step


def _check_odds_limit(state: CrapsState, w: Wager) -> None:
    """623a.6(e),(f): the seat's odds on the spot, this wager's included, within the table's
    limit for the point number, or the one amount above it that pays whole."""
    flat = _flat_for_odds(state, w)
    n = _odds_point(state, w)
    have = sum(x.amount for x in state.wagers
               if x.seat == w.seat and x.name == w.name and x.params == w.params)
    total = have + w.amount
    limit, whole = odds_allowed(state.options, w.name, n, flat)
    if total <= limit or total == whole:
        return
    mult = state.options.odds_limit(n, lay=w.name.startswith("dont"))
    what = (f"winnings over {mult}x" if w.name.startswith("dont") else f"over {mult}x")
    extra = f", or exactly {whole} to pay a whole amount (623a.6(f))" if whole > limit else ""
    raise WagerRefused("outside_limits", f"odds of {total} on {n} are {what} the flat bet of "
                       f"{flat}: at most {limit}{extra}",
                       "623a.6(e),(f)" if whole > limit else "623a.6(e)")


def _upfront_vig(state: CrapsState, w: Wager) -> int:
    """623a.5(g)(3)(i)(A) on the amount bought; (ii)(A) on the amount a Lay could win."""
    o = state.options
    if w.name == "buy" and o.buy_vig == "upfront":
        base = w.amount
    elif w.name == "lay" and o.lay_vig == "upfront":
        num, den = LAY[w.param("number")]
        base = Fraction(w.amount * num, den)  # exact: a float base can lose a cent
    else:
        return 0
    return int(base * o.vig_rate // o.vig_unit) * o.vig_unit


def no_marker(name: str, spec) -> WagerRefused:
    return WagerRefused("no_marker", f"{name} is a one-roll wager: it is decided by the roll "
                        "immediately following its placement and cannot be turned on or off",
                        f"{spec.section}, 623a.3(a)(11)-(39)")


__all__ = ["check_limits", "no_marker", "odds_allowed", "place", "place_many"]
