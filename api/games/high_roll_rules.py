"""High Roll Dice wagers and pay tables as data (58 Pa. Code 675a.2, 675a.5, 675a.6).

Pay tables are keyed by the number of dice in the game: 10 (675a.3(a)) or the six-dice
variation (675a.6(a)).
"""

from __future__ import annotations

from collections.abc import Iterable

from .spec import Spec, make, odds_text

Odds = tuple[int, int]

# 675a.2(d): the ace ranks highest, then 6, 5, 4, 3; the 2 ranks lowest.
RANK = (1, 6, 5, 4, 3, 2)
_RANK_KEY = {face: len(RANK) - i for i, face in enumerate(RANK)}

PIP_STREET: dict[int, dict[int, Odds]] = {
    10: {2: (6, 1), 3: (6, 1), 4: (5, 1), 5: (4, 1), 6: (4, 1), 1: (3, 1)},  # 675a.5(a)
    6: {2: (8, 1), 3: (6, 1), 4: (5, 1), 5: (4, 1), 6: (3, 1), 1: (2, 1)},  # 675a.6(j)
}
LIKE_KIND: dict[int, dict[int, Odds]] = {
    10: {8: (5000, 1), 7: (400, 1), 6: (30, 1), 5: (4, 1), 4: (1, 1), 3: (3, 5),
         2: (12, 1)},  # 675a.5(b)
    # 675a.6(k); count 1 is the "no match" circle of 675a.6(b)(1),(d)(2).
    6: {6: (6000, 1), 5: (200, 1), 4: (15, 1), 3: (2, 1), 2: (1, 2), 1: (60, 1)},
}
# 675a.5(d): Like Kind Boulevard Wagers settled on the Extra Roll (ten dice only).
EXTRA_LIKE_KIND: dict[int, Odds] = {8: (50, 1), 7: (10, 1), 6: (4, 1), 5: (2, 1), 4: (1, 1),
                                    3: (6, 1)}
# 675a.5(c): fixed payouts in cents, whatever the wager (at most $1, 675a.2(e)(4)).
MILLIONAIRE: dict[int, int] = {9: 5_000_000, 10: 100_000_000}
MILLIONAIRE_MAX = 100

# Wagers bound by "all Pip Street and Like Kind Boulevard Wagers and the purchase of an
# Extra Roll must be of equal value" (675a.1(b)(2)(iv); 675a.6(b)(3) for six dice).
EQUAL_VALUE = ("pip_street", "like_kind", "no_match", "extra_roll")


def high_face(faces: Iterable[int]) -> tuple[int, int]:
    """The face that occurs the most, ties broken by rank, and how often it occurs.

    675a.2(e)(1)(ii): three 6s and three 1s make the 1s the winner (the ace ranks higher).

    Args:
        faces: the uppermost faces of the thrown dice, any order.

    Returns:
        (face 1-6, count).
    """
    faces = tuple(faces)
    best = max(range(1, 7), key=lambda f: (faces.count(f), _RANK_KEY[f]))
    return best, faces.count(best)


def high_roll_specs(dice: int) -> dict[tuple, Spec]:
    """Every wager a High Roll Dice table with `dice` dice accepts, keyed by (name, params)."""
    ten = dice == 10
    pip_section = "675a.2(e)(1), 675a.5(a)" if ten else "675a.2(e)(1), 675a.6(d),(j)"
    specs = [make("pip_street", f"Pip Street Wager on the {'ace' if f == 1 else f}",
                  odds_text(PIP_STREET[dice][f]), pip_section, "pip_street",
                  PIP_STREET[dice][f], {"face": f}) for f in range(1, 7)]
    like_section = "675a.2(e)(2), 675a.5(b)" if ten else "675a.6(d), 675a.6(k)"
    for count, odds in sorted(LIKE_KIND[dice].items()):
        extra = EXTRA_LIKE_KIND.get(count) if ten else None
        text = odds_text(odds) + (f"; {odds_text(extra)} on the Extra Roll (675a.5(d))"
                                   if extra else "")
        if count == 1:
            specs.append(make("no_match", "Like Kind Boulevard Wager on no match", text,
                              "675a.6(d)(2), 675a.6(k)", "like_kind", (1, odds, None)))
        else:
            specs.append(make("like_kind", f"Like Kind Boulevard Wager on {count} of a kind",
                              text, like_section, "like_kind", (count, odds, extra),
                              {"count": count}))
    if ten:
        specs.append(make("extra_roll", "Extra Roll purchase",
                          "no payout; collected when bought (675a.4(a)), it lets the seat's "
                          "Like Kind wagers ride the Extra Roll", "675a.2(e)(3), 675a.4(a)",
                          "extra_roll"))
        for count, prize in MILLIONAIRE.items():
            specs.append(make("millionaire_row", f"Millionaire Row Wager on {count} of a kind",
                              f"${prize // 100:,} fixed", "675a.2(e)(4), 675a.5(c)",
                              "millionaire", (count, prize), {"count": count},
                              limits=(1, MILLIONAIRE_MAX)))
    return {s.key: s for s in specs}


__all__ = ["EQUAL_VALUE", "EXTRA_LIKE_KIND", "LIKE_KIND", "MILLIONAIRE", "PIP_STREET", "RANK",
           "high_face", "high_roll_specs"]
