"""The Craps and Mini-Craps engine (58 Pa. Code 623a): placing, reducing and settling wagers.

Pure functions over immutable `CrapsState`; nothing here does I/O. Placing is in
`craps_place`, settling in `craps_settle`; this module reduces and removes wagers, places the
on/off marker and changes the shooter.
"""

from __future__ import annotations

from .craps_options import CrapsOptions
from .craps_place import check_limits, no_marker, odds_allowed, place, place_many
from .craps_settle import settle
from .craps_state import CrapsState, dont_bit
from .errors import WagerRefused
from .model import LOSE, PUSH, RETURNED, WIN, Change, Line, Wager, evolve

# The on/off marker exists for Place, Hardway, Buy and Lay Bets only (623a.3(a)(5)-(10),
# (41), (42)); a one-roll wager is decided by the roll immediately following its placement
# (623a.3(a)(11)-(39)), so it can never be "off".
_ONOFF = ("place", "hardway")


def new_table(options: CrapsOptions | None = None) -> CrapsState:
    return CrapsState(options=options or CrapsOptions())


def reduce(state: CrapsState, wager_id: str, amount: int = 0) -> Change:
    """Reduces a wager to `amount` cents (0 removes it), where 623a.4(c),(d) allow it.

    A Don't Pass or Don't Come Bet comes down "at any time" (623a.4(d)), lay odds behind it
    included: the odds are a supplemental wager "in support of" it (623a.6(b),(d)), so they
    come down with it, and a reduced bet keeps behind it only the odds its new amount
    allows (623a.6(e),(f)), the rest handed back too (odds come down at any time, 623a.4(c)).
    """
    w = state.wager(wager_id)
    if w is None:
        raise WagerRefused("unknown_id", f"no wager {wager_id!r} on the table")
    if isinstance(amount, bool) or not isinstance(amount, int) or not 0 <= amount < w.amount:
        raise WagerRefused("bad_amount", "a reduction is to a smaller amount (0 removes); "
                           "an increase is a new wager", "623a.4(c)")
    spec = state.options.specs[(w.name, w.params)]
    if spec.kind == "fire":
        raise WagerRefused("not_removable", "a Fire Bet may not be reduced, increased or "
                           "removed before a loser 7", "623a.4(c)(3)")
    if spec.kind == "bonus":
        raise WagerRefused("not_removable", "a Bonus Craps wager may not be reduced, and it "
                           "remains on the layout until it is collected or paid (not removed)",
                           "623a.4(c)(4), 623a.12(2)")
    if w.name == "pass" and not state.come_out:
        raise WagerRefused("not_removable", "a Pass Bet may not be removed or reduced after "
                           "the point is established", "623a.4(c)(1)")
    if w.name == "come" and w.point is not None:
        raise WagerRefused("not_removable", "a Come Bet may not be removed or reduced after "
                           "its come point is established", "623a.4(c)(2)")
    if amount:
        check_limits(state, evolve(w, amount=amount), spec) if spec.kind != "odds" else None
    rest = tuple(x if x.id != w.id else evolve(x, amount=amount) for x in state.wagers
                 if x.id != w.id or amount)
    after = state.with_wagers(rest)
    also: tuple[Line, ...] = ()
    if w.name in _DONT:
        after, also = _odds_within_limit(after, w)
        # A moved Don't Come cannot be added to (a new one goes to the Don't Come area).
        if w.name == "dont_pass" or w.point is None:
            after = evolve(after, dont_reduced=state.dont_reduced | dont_bit(w.seat, w.name))
    # The line covers the chips taken down, so its money adds up like every other line.
    down = w.amount - amount
    line = Line(w.id, w.name, w.seat, RETURNED, down, 0, down, 0, False,
                section="623a.4(c),(d)", note="reduced" if amount else "removed")
    return Change(after, down + sum(x.returned for x in also), line, also=also)


# The Don't bets and the section of the lay odds in their support (623a.6(b),(d)).
_DONT = {"dont_pass": "623a.6(b)", "dont_come": "623a.6(d)"}


def _odds_within_limit(state: CrapsState, w: Wager) -> tuple[CrapsState, tuple[Line, ...]]:
    """Takes down, latest first, the seat's lay odds that its Don't bet `w`, as it is now on
    `state`, no longer supports (623a.6(e),(f)): all of them once the bet is gone."""
    n = state.point if w.name == "dont_pass" else w.point
    if n is None:  # no point yet: nothing can be laid behind it (623a.6(b),(d))
        return state, ()
    odds = w.name + "_odds"
    behind = [x for x in state.wagers if x.seat == w.seat and x.name == odds
              and (w.name == "dont_pass" or x.param("number") == n)]
    total = sum(x.amount for x in behind)
    flat = state.seat_total(w.seat, w.name, None if w.name == "dont_pass" else n)
    limit, whole = odds_allowed(state.options, odds, n, flat)
    if total <= limit or total == whole:
        return state, ()
    excess = total - (whole if whole < total else limit)
    left: dict[str, int] = {}
    lines = []
    section = f"623a.4(c), {_DONT[w.name]},(e)"
    for x in reversed(behind):
        down = min(excess, x.amount)
        left[x.id] = x.amount - down
        note = f"{'removed' if down == x.amount else 'reduced'} with the {w.name} bet"
        lines.append(Line(x.id, x.name, x.seat, RETURNED, down, 0, down, 0, False,
                          section=section, note=note))
        excess -= down
        if not excess:
            break
    wagers = tuple(evolve(x, amount=left[x.id]) if x.id in left else x for x in state.wagers
                   if left.get(x.id, 1))
    return state.with_wagers(wagers), tuple(lines)


def decided_by_next_roll(state: CrapsState, wager_id: str, rolls: int = 1) -> bool:
    """Whether some roll of the dice would win, lose or void the wager (False for an unknown
    id). After the throw only a wager it cannot decide comes down (623a.4(c)): an inactive
    one, e.g. a Place Bet without an "on" marker on the come out roll (623a.3(a)(5)).

    With `rolls` > 1, whether any of that many rolls thrown one after the other, each of
    them perhaps voided, could: the rolls held or queued for review, which a review may
    decide as any faces or a no roll (623a.9(c)).

    Settles the wager alone on every roll, so the answer is the settlement's own.
    """
    w = state.wager(wager_id)
    if w is None:
        return False
    alone = state.with_wagers((w,))
    # A voided roll leaves the table as it was, so each step explores only the states not
    # seen yet; they are few (the point, the shooter, the wager as it moves or counts).
    seen = {_settles_as(alone, w)}
    frontier = [alone]
    for _ in range(rolls):
        following = []
        for before in frontier:
            for a in range(1, 7):
                for b in range(1, 7):
                    result = settle(before, (a, b))
                    if any(line.result in (WIN, LOSE, PUSH) for line in result.lines):
                        return True
                    key = _settles_as(result.state, w)
                    if key not in seen:
                        seen.add(key)
                        following.append(result.state)
        if not following:
            break
        frontier = following
    return False


def _settles_as(state: CrapsState, w: Wager) -> tuple:
    """What `settle` reads to decide `w` alone: the point, the wager as it moves or counts,
    and whether the shooter is the one its Fire Bet counts for (623a.11(a)(2)), so that
    shooters changing on sevens-out do not make every state new."""
    return (state.point, state.shooter == w.shooter, state.wagers)


def set_working(state: CrapsState, wager_id: str, working: bool | None) -> CrapsState:
    """Places or lifts the on/off marker (623a.3(a)(5)-(10),(41),(42)); None restores the rule."""
    w = state.wager(wager_id)
    if w is None:
        raise WagerRefused("unknown_id", f"no wager {wager_id!r} on the table")
    spec = state.options.specs[(w.name, w.params)]
    if spec.kind == "one_roll":
        raise no_marker(w.name, spec)
    if spec.kind not in _ONOFF and w.name != "come_odds":
        raise WagerRefused("no_marker", f"{w.name} takes no on/off marker", "623a.3(a)")
    return state.with_wagers(tuple(evolve(x, working=working) if x.id == wager_id else x
                                   for x in state.wagers))


def change_shooter(state: CrapsState) -> CrapsState:
    """The shooter passes the dice without a loser 7 (623a.10(a)); pending Fire Bets keep
    their points and are settled on the successor's loser 7 (623a.11(a)(2)). Passed with a
    point on, the successor rolls it out before his own initial come out roll."""
    return evolve(state, shooter=state.shooter + 1, points_made=0, shooter_rolls=0,
                  took_point=state.point is not None)


__all__ = ["change_shooter", "decided_by_next_roll", "new_table", "place", "place_many",
           "reduce", "set_working", "settle"]
