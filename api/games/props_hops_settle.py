"""Settling one roll of the shaker on a Props & Hops table (668a.2, 668a.3(h)-(k), 668a.4)."""

from __future__ import annotations

from .model import LOSE, WIN, Line, Settlement, Wager, check_faces, evolve
from .money import ZERO, pay
from .props_hops_rules import SHAKE_ALL, SHAKE_BIT
from .props_hops_state import SEATS, PropsHopsState


def _win(w: Wager, odds: tuple[int, int], unit: int, section: str) -> Line:
    paid, rest = pay(w.amount, odds[0], odds[1], unit)
    return Line(w.id, w.name, w.seat, WIN, w.amount, paid, w.amount, 0, False, rest, section)


def _lose(w: Wager, section: str) -> Line:
    return Line(w.id, w.name, w.seat, LOSE, w.amount, 0, 0, w.amount, False, ZERO, section)


def _shake(w: Wager, spec, pair: tuple[int, int], seven: bool, unit: int):
    """668a.2(f)(8): lost on a 7; won once all six combinations have come since placing.

    Returns:
        (line or None, the wager to keep or None).
    """
    if seven:
        return _lose(w, spec.section), None
    bit = SHAKE_BIT.get(pair, 0)
    if not bit or w.progress & bit:
        return None, w  # nothing new for this wager: it stays, undecided
    nw = evolve(w, progress=w.progress | bit)
    if nw.progress == SHAKE_ALL:
        return _win(w, spec.data, unit, f"{spec.section}, 668a.3(i), 668a.4"), None
    return None, nw


def settle(state: PropsHopsState, faces) -> Settlement:
    """Settles every wager on the layout for one valid roll of the two dice.

    Args:
        state: the table before the roll.
        faces: the uppermost faces of the two dice in the shaker (668a.3(h)), any order.

    Returns:
        The lines of every wager the roll decided (one-roll wagers always; a Six Eight Shake
        Wager on a 7 or on its sixth combination) and the next state.

    Raises:
        RollRefused: not exactly two dice, or a face outside 1-6.
    """
    d1, d2 = check_faces(faces, 2, "668a.3(a),(h)")
    i = (d1 - 1) * 6 + (d2 - 1)
    pair = (min(d1, d2), max(d1, d2))
    seven = d1 + d2 == 7
    unit = state.options.payout_unit
    specs = state.options.specs
    lines: list[Line] = []
    keep: list[Wager] = []
    for w in state.wagers:
        spec = specs[(w.name, w.params)]
        if spec.kind == "one_roll":
            odds = spec.data[i]
            lines.append(_lose(w, spec.section) if odds is None
                         else _win(w, odds, unit, f"{spec.section}, 668a.4"))
            continue
        line, nw = _shake(w, spec, pair, seven, unit)
        if line is not None:
            lines.append(line)
        if nw is not None:
            keep.append(nw)
    return Settlement((d1, d2), tuple(lines), _advance(state, tuple(keep), pair, seven),
                      ("seven", "new_shooter") if seven else ())


def _advance(state: PropsHopsState, wagers: tuple[Wager, ...], pair, seven: bool):
    """The next state: the shaker passes on a 7 (668a.3(k)); lammers move (668a.3(i))."""
    if seven:
        return evolve(state, wagers=wagers, betting_open=True, shooter=state.shooter + 1,
                       shooter_seat=(state.shooter_seat + 1) % SEATS, lammers=0,
                       rolls=state.rolls + 1)
    lammers = state.lammers | SHAKE_BIT.get(pair, 0)
    # Once all six lammers are in the circles the winners are paid and the dealer sets the
    # buttons out again for the wagers still up (668a.3(e),(i)).
    if lammers == SHAKE_ALL:
        lammers = 0
    return evolve(state, wagers=wagers, betting_open=True, lammers=lammers,
                   rolls=state.rolls + 1)
