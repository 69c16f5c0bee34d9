"""When a table's dice must be changed: pure, no I/O, the clock passed in.

The limit is 24 hours for every game the service runs, under a different section each:
- Craps and Mini-Craps, 623a.7(d): "A set of five dice ... shall be changed at least once
  every 24 hours."
- Props & Hops, 668a.3(b)(1), and High Roll Dice, 675a.3(b)(1): "Dice that have been placed
  in a dice shaker for use in gaming may not remain on a table for more than 24 hours."

Boundary: the deadline is `put_in_service_at + max_age`, and a set still in service at the
deadline itself is already overdue. Under 623a.7(d) the change is due by then ("at least
once every 24 hours"), and under the "more than 24 hours" wording the deadline is the last
instant the dice may be on the table, so a change not done by then can only be done late;
surveillance needs the alarm at that instant, not one tick after it. One second before the
deadline is "due soon" (or "ok" with no warning window).

The clock is the service's own (the one that stamped `put_in_service_at`), so a skewed edge
device cannot make dice look younger.
"""

from __future__ import annotations

from typing import Literal

Status = Literal["ok", "due_soon", "overdue", "no_set"]

# By the game's chapter of 58 Pa. Code (registry.GameRules.chapter), not by game name,
# so High Roll's 6-dice variant and Mini-Craps need no entry of their own.
SECTIONS = {"623a": "623a.7(d)", "668a": "668a.3(b)(1)", "675a": "675a.3(b)(1)"}
_CHAPTER = {"craps": "623a", "mini-craps": "623a", "props-and-hops": "668a",
            "high-roll-dice": "675a", "high-roll-dice-6": "675a"}


def section_for(game: str) -> str:
    """The section that limits how long the game's dice stay on the table."""
    try:
        return SECTIONS[_CHAPTER[game]]
    except KeyError:
        raise KeyError(f"no dice-change rule known for game {game!r}") from None


def dice_due(game: str, put_in_service_at: float | None, now: float,
             max_age_hours: float = 24.0, warn_hours: float = 1.0) -> dict:
    """The change status of the table's set in service.

    Args:
        game: the table's game (decides the section cited).
        put_in_service_at: when the set in service went in (Unix s), None when the table
            has no set recorded.
        now: the service's clock, Unix s.
        max_age_hours: how long a set may stay in service (settings.dice_max_age_hours).
        warn_hours: how long before the deadline the status turns "due_soon".

    Returns:
        {"status": "ok" | "due_soon" | "overdue" | "no_set", "section", "deadline" (Unix s,
        None without a set), "age_s" (seconds in service, None without a set)}.
    """
    section = section_for(game)
    if put_in_service_at is None:
        return {"status": "no_set", "section": section, "deadline": None, "age_s": None}
    deadline = put_in_service_at + max_age_hours * 3600.0
    if now >= deadline:
        status: Status = "overdue"
    elif now >= deadline - warn_hours * 3600.0:
        status = "due_soon"
    else:
        status = "ok"
    # A clock stepped back must not report a negative age.
    return {"status": status, "section": section, "deadline": deadline,
            "age_s": max(0.0, now - put_in_service_at)}
