"""Props & Hops wagers as data (58 Pa. Code 668a.2, 668a.4).

A roll of two dice is indexed 0-35 as (d1 - 1) * 6 + (d2 - 1), as in `craps_rules`. Every
one-roll wager becomes a 36-entry table of pay odds (None where it loses), so settling and
the catalog's house edge read the same data.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from itertools import combinations

from .craps_rules import PAIR, TOTAL
from .spec import Spec, make, odds_text

Pair = tuple[int, int]
Odds = tuple[int, int]
OneRoll = tuple[Odds | None, ...]

DOUBLE_ODDS: Odds = (30, 1)  # 668a.4, Double Wager
ANY_NUMBER_ODDS: Odds = (15, 1)  # 668a.4, Any Number Wager
EVEN: Odds = (1, 1)
SHAKE_ODDS: Odds = (150, 1)  # 668a.4, Six Eight Shake
# 668a.2(e)(1)-(15) list the Any Number pairs in exactly this (lexicographic) order.
ANY_NUMBER_PAIRS: tuple[Pair, ...] = tuple(combinations(range(1, 7), 2))

BOXES = ("top", "left", "right", "center")
HOP_ODDS: dict[str, Odds] = {"top": (3, 2), "left": (2, 1), "right": (2, 1), "center": (3, 2)}
HOP_SECTIONS = {"top": "668a.2(f)(2)", "left": "668a.2(f)(3)", "right": "668a.2(f)(4)",
                "center": "668a.2(f)(5)"}
# The regulation leaves the combinations behind each hop box to the approved layout
# (668a.1(b)(2)); this is the layout the product documents as its default.
DEFAULT_HOP_LAYOUT: tuple[tuple[str, tuple[Pair, ...]], ...] = (
    ("top", ((1, 1), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4))),
    ("left", ((1, 5), (1, 6), (2, 2), (2, 5), (2, 6), (3, 5))),
    ("right", ((2, 6), (3, 6), (4, 5), (4, 6), (5, 5), (5, 6))),
    ("center", ((1, 5), (2, 4), (2, 5), (3, 3), (3, 4), (3, 5), (4, 4), (6, 6))),
)

# 668a.2(f)(8): each combination of 6 and of 8 is one bit of a wager's progress mask.
SHAKE_PAIRS: tuple[Pair, ...] = ((1, 5), (2, 4), (3, 3), (2, 6), (3, 5), (4, 4))
SHAKE_BIT = {pair: 1 << i for i, pair in enumerate(SHAKE_PAIRS)}
SHAKE_ALL = (1 << len(SHAKE_PAIRS)) - 1


def ways(pair: Pair) -> int:
    """Orderings of two dice showing `pair` out of 36 (1 for a double, else 2)."""
    return 1 if pair[0] == pair[1] else 2


def player_edge(pairs: tuple[Pair, ...], odds: Odds) -> Fraction:
    """Expected gain per unit staked on a one-roll wager winning on `pairs` at `odds`."""
    p = Fraction(sum(ways(pair) for pair in pairs), 36)
    return p * Fraction(*odds) - (1 - p)


def table(rule: Callable[[int, Pair], Odds | None]) -> OneRoll:
    """The 36-entry pay table of `rule(total, pair) -> odds or None`."""
    return tuple(rule(TOTAL[i], PAIR[i]) for i in range(36))


def _field(total: int, pair: Pair) -> Odds | None:
    """668a.2(f)(1), 668a.4: 2 and 12 pay 2 to 1; 3, 4, 9, 10, 11 pay 1 to 1."""
    if total in (2, 12):
        return (2, 1)
    return EVEN if total in (3, 4, 9, 10, 11) else None


def _specs_one_roll(layout: tuple[tuple[str, tuple[Pair, ...]], ...]) -> list[Spec]:
    specs = []
    for face in range(1, 7):
        specs.append(make("double", f"{face * 2} the Hardway Bet", odds_text(DOUBLE_ODDS),
                          f"668a.2(d)({face})", "one_roll",
                          table(lambda t, p, f=face: DOUBLE_ODDS if p == (f, f) else None),
                          {"face": face}))
    for k, pair in enumerate(ANY_NUMBER_PAIRS, start=1):
        specs.append(make("any_number", f"{pair[0]}-{pair[1]} Bet", odds_text(ANY_NUMBER_ODDS),
                          f"668a.2(e)({k})", "one_roll",
                          table(lambda t, p, q=pair: ANY_NUMBER_ODDS if p == q else None),
                          {"dice": pair}))
    specs.append(make("field", "Field Wager", "1 to 1; 2 to 1 on 2 or 12", "668a.2(f)(1)",
                      "one_roll", table(_field)))
    for box, pairs in layout:
        odds = HOP_ODDS[box]
        specs.append(make(f"hop_the_{box}", f"Hop the {box.title()} Wager", odds_text(odds),
                          HOP_SECTIONS[box], "one_roll",
                          table(lambda t, p, s=frozenset(pairs), o=odds: o if p in s else None),
                          notes="combinations: " + ", ".join(f"{a}-{b}" for a, b in pairs)))
    specs.append(make("one_six_and_under", "1-6 and Under Wager", "1 to 1", "668a.2(f)(6)",
                      "one_roll", table(lambda t, p: EVEN if p == (1, 6) or t < 7 else None)))
    specs.append(make("three_four_and_over", "3-4 and Over Wager", "1 to 1", "668a.2(f)(7)",
                      "one_roll", table(lambda t, p: EVEN if p == (3, 4) or t > 7 else None)))
    return specs


def props_specs(layout: tuple[tuple[str, tuple[Pair, ...]], ...]) -> dict[tuple, Spec]:
    """Every Props & Hops wager of 668a.2, keyed by (name, params), for a hop box layout."""
    specs = _specs_one_roll(layout)
    specs.append(make("six_eight_shake", "Six Eight Shake Wager",
                      odds_text(SHAKE_ODDS) + " when 1-5, 2-4, 3-3, 2-6, 3-5, 4-4 all come "
                      "before a 7", "668a.2(f)(8)", "shake", SHAKE_ODDS))
    for spec in specs:
        if spec.kind == "one_roll":
            # Same shape as the Craps catalog's table: (paid, returned) fractions of the stake.
            spec.extra["table"] = tuple(None if o is None else (Fraction(*o), Fraction(1))
                                        for o in spec.data)
    return {s.key: s for s in specs}
