"""Settling the throws of a High Roll Dice round (675a.4, 675a.5, 675a.6(g)-(k)).

The first roll decides Pip Street, Millionaire Row and Like Kind wagers and collects the
Extra Roll purchases. A seat that bought an Extra Roll keeps its Like Kind wagers above the
first roll's count up (675a.4(f)(2)(ii)); the Extra Roll rethrows every die but the held
ones (675a.4(g)) and settles them at the odds of 675a.5(d) (675a.4(h)).
"""

from __future__ import annotations

from .high_roll_rules import high_face
from .high_roll_state import HighRollState
from .model import LOSE, WIN, Line, Settlement, Wager, check_faces, evolve
from .money import ZERO, pay


def _win(w: Wager, odds: tuple[int, int], unit: int, section: str) -> Line:
    paid, rest = pay(w.amount, odds[0], odds[1], unit)
    return Line(w.id, w.name, w.seat, WIN, w.amount, paid, w.amount, 0, False, rest, section)


def _lose(w: Wager, section: str, note: str = "") -> Line:
    return Line(w.id, w.name, w.seat, LOSE, w.amount, 0, 0, w.amount, False, ZERO, section,
                note)


def _first_line(state: HighRollState, w: Wager, face: int, count: int, riding: bool):
    """One wager on the first roll: its line, or None when it stays up for the Extra Roll."""
    spec = state.options.specs[(w.name, w.params)]
    unit = state.options.payout_unit
    ten = state.options.dice == 10
    if spec.kind == "pip_street":
        won = w.param("face") == face
        section = f"{spec.section}, {'675a.4(f)(1)' if ten else '675a.6(i)'}"
        return _win(w, spec.data, unit, section) if won else _lose(w, section)
    if spec.kind == "millionaire":
        target, prize = spec.data
        section = f"{spec.section}, 675a.4(f)(3)"
        if count != target:
            return _lose(w, section)
        # 675a.5(c) states a fixed payout, not odds: the stake comes back with it.
        return Line(w.id, w.name, w.seat, WIN, w.amount, prize, w.amount, 0, False, ZERO,
                    section, "fixed payout")
    if spec.kind == "extra_roll":
        return _lose(w, "675a.4(a)", "Extra Roll purchase collected")
    target, odds, _ = spec.data
    section = f"{spec.section}, {'675a.4(f)(2)' if ten else '675a.6(i)'}"
    if target == count:
        return _win(w, odds, unit, section)
    if riding and target > count:
        return None  # 675a.4(f)(2)(ii): it can still win on the Extra Roll
    return _lose(w, section)


def settle_first(state: HighRollState, faces: tuple[int, ...]) -> Settlement:
    """Settles the first roll of a round (675a.4(d)-(f); 675a.6(h),(i))."""
    face, count = high_face(faces)
    riding = {w.seat for w in state.wagers if w.name == "extra_roll"}
    lines: list[Line] = []
    keep: list[Wager] = []
    for w in state.wagers:
        line = _first_line(state, w, face, count, w.seat in riding)
        if line is None:
            keep.append(w)
        else:
            lines.append(line)
    events = [f"high:{face}x{count}"]
    rethrow = state.options.dice - count
    # 675a.4(g): the Extra Roll is thrown whenever a seat bought one, even if no Like Kind
    # wager is left up; with all ten dice matching there is nothing to rethrow.
    if riding and rethrow:
        nxt = evolve(state, wagers=tuple(keep), betting_open=False, held_face=face,
                      held_count=count, rolls=state.rolls + 1)
        events.append(f"extra_roll:{rethrow}")
    else:
        nxt = _new_round(state)
        events.append("round_over")
    return Settlement(faces, tuple(lines), nxt, tuple(events))


def settle_extra(state: HighRollState, faces: tuple[int, ...]) -> Settlement:
    """Settles the Extra Roll: rethrown dice showing the held face add to the count (675a.4(h)).

    A total of 9 or 10 matches no Like Kind circle (they run two through eight), so every
    wager left up loses then; a wager paid on the first roll was removed then and is not
    paid again (675a.4(h)).
    """
    face = state.held_face
    total = state.held_count + faces.count(face)
    unit = state.options.payout_unit
    lines = []
    for w in state.wagers:
        target, _, extra = state.options.specs[(w.name, w.params)].data
        section = "675a.4(h), 675a.5(d)"
        lines.append(_win(w, extra, unit, section) if target == total else _lose(w, section))
    return Settlement(faces, tuple(lines), _new_round(state),
                      (f"extra:{face}x{total}", "round_over"))


def _new_round(state: HighRollState) -> HighRollState:
    return evolve(state, wagers=(), betting_open=True, held_face=None, held_count=0,
                   rounds=state.rounds + 1, rolls=state.rolls + 1)


def settle(state: HighRollState, faces) -> Settlement:
    """Settles one valid throw: the first roll, or the Extra Roll when one is due.

    Args:
        state: the table before the throw.
        faces: uppermost faces of every die thrown (675a.4(c)); 10 or 6 on the first roll,
            the number collected for the rethrow on the Extra Roll. Any order.

    Raises:
        RollRefused: the wrong number of dice, or a face outside 1-6.
    """
    if state.extra_phase:
        return settle_extra(state, check_faces(faces, expected_dice(state), "675a.4(g)"))
    section = "675a.3(a), 675a.4(b)" if state.options.dice == 10 else "675a.6(e),(g)"
    return settle_first(state, check_faces(faces, state.options.dice, section))


def expected_dice(state: HighRollState) -> int:
    """Dice in the next throw: all of them, or those not held for the Extra Roll (675a.4(g))."""
    return state.options.dice - state.held_count
