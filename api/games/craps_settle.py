"""Settling one roll of two dice on a Craps table (623a.3, 623a.5, 623a.6, 623a.9-623a.12)."""

from __future__ import annotations

from .craps_rules import POINTS
from .craps_state import CrapsState
from .model import (
    LOSE,
    MOVE,
    PUSH,
    RETURNED,
    WIN,
    Line,
    Settlement,
    Wager,
    check_faces,
    evolve,
)
from .money import ZERO, pay

_CRAPS = (2, 3, 12)


def _win(w: Wager, odds: tuple[int, int], unit: int, section: str, stays: bool = False,
         vig: int = 0) -> Line:
    paid, rest = pay(w.amount, odds[0], odds[1], unit)
    note = f"vigorish {vig}" if vig else ""
    return Line(w.id, w.name, w.seat, WIN, w.amount, paid - vig, 0 if stays else w.amount, 0,
                stays, rest, section, note)


def _lose(w: Wager, section: str) -> Line:
    return Line(w.id, w.name, w.seat, LOSE, w.amount, 0, 0, w.amount, False, ZERO, section)


def _back(w: Wager, result: str, section: str, note: str = "") -> Line:
    return Line(w.id, w.name, w.seat, result, w.amount, 0, w.amount, 0, False, ZERO, section, note)


def _vig(state: CrapsState, w: Wager, won: int) -> int:
    """Vigorish taken from a winning Buy or Lay Bet under 623a.5(g)(3)(i)(B), (ii)(B)."""
    o = state.options
    if w.name == "buy" and o.buy_vig == "on_win" and w.param("number") in o.buy_vig_numbers:
        base = w.amount
    elif w.name == "lay" and o.lay_vig == "on_win" and w.param("number") in o.lay_vig_numbers:
        base = won
    else:
        return 0
    return int(base * o.vig_rate // o.vig_unit) * o.vig_unit


def settle(state: CrapsState, faces) -> Settlement:
    """Settles every wager on the layout for one valid roll of two dice.

    Args:
        state: the table before the roll.
        faces: the two uppermost faces (623a.9(a)), in any order.

    Returns:
        The lines of every wager the roll decided, moved or returned, and the next state.
    """
    d1, d2 = check_faces(faces, 2, "623a.9(a)")
    i = (d1 - 1) * 6 + (d2 - 1)
    t = d1 + d2
    hard = d1 == d2
    point = state.point
    come_out = point is None
    loser7 = t == 7 and not come_out
    made = not come_out and t == point
    o = state.options
    unit = o.payout_unit
    plain, specs = o.plain_specs, o.specs
    lines: list[Line] = []
    keep: list[Wager] = []
    for w in state.wagers:
        spec = specs[(w.name, w.params)] if w.params else plain[w.name]
        kind = spec.kind
        line = None
        nw = w
        # Only Place, Hardway, Buy and Lay Bets take an "off" marker (623a.3(a)(5)-(10),
        # (41),(42)); a one-roll wager is decided by this roll whatever a stored state says
        # (623a.3(a)(11)-(39)).
        if w.working is False and kind in ("place", "hardway"):
            keep.append(w)
            continue
        if kind == "one_roll":
            entry = spec.extra["table"][i]
            if entry is None:  # inlined _lose: most lines of a roll are losing props
                line = Line(w.id, w.name, w.seat, LOSE, w.amount, 0, 0, w.amount, False, ZERO,
                            spec.section)
            else:
                pf, rf = entry
                paid, rest = pay(w.amount, pf.numerator, pf.denominator, unit)
                returned = w.amount * rf.numerator // rf.denominator
                line = Line(w.id, w.name, w.seat, WIN, w.amount, paid, returned,
                            w.amount - returned, False, rest, spec.section)
            nw = None
        elif kind == "place":
            n = w.params[0][1]
            to_win = w.name in ("place_to_win", "buy")
            working = w.working if w.working is not None else (w.name == "lay" or not come_out)
            if working and (t == n or t == 7):
                if (t == n) == to_win:
                    paid, _ = pay(w.amount, spec.data[0], spec.data[1], unit)
                    line = _win(w, spec.data, unit, spec.section, True, _vig(state, w, paid))
                else:
                    line, nw = _lose(w, spec.section), None
        elif kind == "hardway":
            working = w.working if w.working is not None else not come_out
            n = w.params[0][1]
            if working:
                if t == n and hard:
                    line = _win(w, spec.data, unit, spec.section, True)
                elif t == n or t == 7:
                    line, nw = _lose(w, spec.section), None
        elif kind == "line":
            line, nw = _line(w, spec.section, t, point, unit)
        elif kind == "odds":
            line, nw = _odds(state, w, spec, t, come_out)
        elif kind == "fire":
            if loser7:
                line, nw = _fire(w, spec, unit), None
            elif made and w.shooter == state.shooter:
                nw = evolve(w, progress=w.progress | (1 << t))
        elif kind == "bonus":
            if t == 7:  # 623a.12(5): any 7, including on the come out roll
                line, nw = _lose(w, spec.section), None
            else:
                progress = w.progress | (1 << t)
                if progress != w.progress:  # a number already marked leaves the wager as is
                    nw = evolve(w, progress=progress)
                nums, odds = spec.data
                if all(progress >> n & 1 for n in nums):
                    line, nw = _win(w, odds, unit, spec.section), None
        if line is not None:
            lines.append(line)
        if nw is not None:
            keep.append(nw)
    return Settlement((d1, d2), tuple(lines), _advance(state, tuple(keep), t, made, loser7),
                      _events(come_out, t, made, loser7))


def _line(w: Wager, section: str, t: int, point: int | None, unit: int):
    """Pass, Don't Pass, Come and Don't Come (623a.3(a)(1)-(4))."""
    dont = w.name in ("dont_pass", "dont_come")
    target = point if w.name in ("pass", "dont_pass") else w.point
    if target is None:  # the come out roll of this wager
        if t in (7, 11):
            return (_lose(w, section), None) if dont else (_win(w, (1, 1), unit, section), None)
        if t in _CRAPS:
            if dont and t == 12:
                return _back(w, PUSH, section, "12 is void for don't bets"), None
            return (_win(w, (1, 1), unit, section), None) if dont else (_lose(w, section), None)
        if w.name in ("come", "dont_come"):
            moved = evolve(w, point=t)
            return Line(w.id, w.name, w.seat, MOVE, w.amount, stays=True, section=section,
                        note=f"to {t}"), moved
        return None, w
    if t == target:
        return (_lose(w, section), None) if dont else (_win(w, (1, 1), unit, section), None)
    if t == 7:
        return (_win(w, (1, 1), unit, section), None) if dont else (_lose(w, section), None)
    return None, w


def _odds(state: CrapsState, w: Wager, spec, t: int, come_out: bool):
    """Supplemental odds (623a.6): paid at true odds with their flat bet."""
    dont = w.name.startswith("dont")
    n = state.point if w.name in ("pass_odds", "dont_pass_odds") else w.params[0][1]
    if t != n and t != 7:
        return None, w
    off = (w.name == "come_odds" and come_out
           and not (w.working if w.working is not None else state.options.come_odds_on_comeout))
    if off:
        return _back(w, RETURNED, spec.section, "odds off on the come out roll"), None
    odds = spec.data[n] if w.name in ("pass_odds", "dont_pass_odds") else spec.data
    if (t == 7) == dont:
        return _win(w, odds, state.options.payout_unit, spec.section), None
    return _lose(w, spec.section), None


def _fire(w: Wager, spec, unit: int) -> Line:
    """623a.11(a)(5): collected or paid on the loser 7, once, for the most points made."""
    count = bin(w.progress).count("1")
    if count < 4:
        return _lose(w, spec.section)
    return _win(w, spec.data[min(count, 6)], unit, spec.section)


def _advance(state: CrapsState, wagers, t: int, made: bool, loser7: bool) -> CrapsState:
    marks = 0 if t == 7 else state.bonus_marks | (1 << t)
    if loser7:  # 623a.10(a)(1): the shooter passes the dice on a loser 7
        return evolve(state, wagers=wagers, point=None, shooter=state.shooter + 1,
                       points_made=0, bonus_marks=marks, shooter_rolls=0, took_point=False,
                       dont_reduced=0, rolls=state.rolls + 1)
    point, made_mask = state.point, state.points_made
    # A shooter who took over a point has thrown his own come out roll once one was thrown.
    took_point = state.took_point and point is not None
    if made:
        point, made_mask = None, made_mask | (1 << t)
    elif point is None and t in POINTS:
        point = t
    # Every roll decides or moves the Don't bets reduced before it (623a.4(d)): a Don't Pass
    # that stays up cannot be added to after the come out roll anyway (623a.3(a)(2)).
    return evolve(state, wagers=wagers, point=point, points_made=made_mask, bonus_marks=marks,
                   shooter_rolls=state.shooter_rolls + 1, took_point=took_point,
                   dont_reduced=0, rolls=state.rolls + 1)


def _events(come_out: bool, t: int, made: bool, loser7: bool) -> tuple[str, ...]:
    if loser7:
        return ("seven_out", "new_shooter")
    if made:
        return (f"point_made:{t}",)
    if come_out and t in POINTS:
        return (f"point_on:{t}",)
    return ()
