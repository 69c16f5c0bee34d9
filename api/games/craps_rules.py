"""Craps and Mini-Craps wagers as data (58 Pa. Code 623a.3, 623a.5, 623a.6).

A roll of two dice is indexed 0-35 as (d1 - 1) * 6 + (d2 - 1). One-roll wagers are lists of
parts (share of the stake, winning totals or combinations, odds), which is how 623a.5(b)-(e)
define C and E, Horn, Horn High and Whirl. The engine turns parts into a 36-entry table.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

POINTS = (4, 5, 6, 8, 9, 10)
IDX = tuple((a, b) for a in range(1, 7) for b in range(1, 7))
TOTAL = tuple(a + b for a, b in IDX)
HARD = tuple(a == b for a, b in IDX)
PAIR = tuple(tuple(sorted(p)) for p in IDX)

# 623a.5(a): place to win / lose; 623a.5(g): buy and lay (true odds).
PLACE_TO_WIN = {4: (9, 5), 5: (7, 5), 6: (7, 6), 8: (7, 6), 9: (7, 5), 10: (9, 5)}
PLACE_TO_LOSE = {4: (5, 11), 5: (5, 8), 6: (4, 5), 8: (4, 5), 9: (5, 8), 10: (5, 11)}
BUY = {4: (2, 1), 5: (3, 2), 6: (6, 5), 8: (6, 5), 9: (3, 2), 10: (2, 1)}
LAY = {4: (1, 2), 5: (2, 3), 6: (5, 6), 8: (5, 6), 9: (2, 3), 10: (1, 2)}
# 623a.6(a)-(d): the supplemental (odds) wagers pay true odds.
TAKE_ODDS, LAY_ODDS = BUY, LAY
HARDWAY = {4: (7, 1), 6: (9, 1), 8: (9, 1), 10: (7, 1)}  # 623a.5(a)
# 623a.5(f): Fire Bet pay tables, by unique points made (4, 5, 6+).
FIRE = {"A": {4: (24, 1), 5: (249, 1), 6: (999, 1)}, "B": {4: (39, 1), 5: (199, 1), 6: (499, 1)}}
# 623a.3(a)(43), 623a.5(h): Bonus Craps; the numbers are bits of a 13-bit mask.
BONUS = {
    "all_small": ((2, 3, 4, 5, 6), (34, 1), "623a.3(a)(43)(i)"),
    "all_tall": ((8, 9, 10, 11, 12), (34, 1), "623a.3(a)(43)(iii)"),
    "all_or_nothing": ((2, 3, 4, 5, 6, 8, 9, 10, 11, 12), (175, 1), "623a.3(a)(43)(ii)"),
}
BONUS_MASK = {name: sum(1 << n for n in nums) for name, (nums, _, _) in BONUS.items()}

# 623a.3(a)(22)-(38): hop wagers on the layout; 1-1, 1-2, 5-6 and 6-6 are the Craps Two,
# Craps Three, 11 in One Roll and Craps Twelve wagers of (14)-(17) instead.
HOP_SECTIONS = {
    (2, 2): "(22)", (3, 3): "(23)", (4, 4): "(24)", (5, 5): "(25)", (1, 3): "(26)",
    (1, 4): "(27)", (2, 3): "(28)", (1, 5): "(29)", (2, 4): "(30)", (1, 6): "(31)",
    (2, 5): "(32)", (3, 4): "(33)", (2, 6): "(34)", (3, 5): "(35)", (3, 6): "(36)",
    (4, 5): "(37)", (4, 6): "(38)",
}


@dataclass(frozen=True)
class Part:
    """A share of a one-roll wager that wins on `totals` or on exact `pairs` at `odds`."""

    share: Fraction
    odds: tuple[int, int]
    totals: frozenset[int] = frozenset()
    pairs: frozenset[tuple[int, int]] = frozenset()

    def wins(self, i: int) -> bool:
        return TOTAL[i] in self.totals or PAIR[i] in self.pairs


def _p(share: Fraction | int, odds: tuple[int, int], totals=(), pairs=()) -> Part:
    return Part(Fraction(share), odds, frozenset(totals), frozenset(pairs))


ONE = Fraction(1)
QUARTER, FIFTH, HALF = Fraction(1, 4), Fraction(1, 5), Fraction(1, 2)
HORN_ODDS = {2: (30, 1), 3: (15, 1), 11: (15, 1), 12: (30, 1)}  # 623a.5(a) via 623a.5(c)


def horn_parts(share: Fraction) -> list[Part]:
    return [_p(share, HORN_ODDS[n], totals=(n,)) for n in (2, 3, 11, 12)]


def one_roll_parts(name: str, params: dict) -> list[Part] | None:
    """The parts of a one-roll craps wager, or None when `name` is not one."""
    n = params.get("number")
    match name:
        case "field":  # 623a.3(a)(11), 623a.5(a): 2 and 12 pay 2 to 1
            return [_p(ONE, (1, 1), totals=(3, 4, 9, 10, 11)), _p(ONE, (2, 1), totals=(2, 12))]
        case "any_seven":
            return [_p(ONE, (4, 1), totals=(7,))]
        case "any_craps":
            return [_p(ONE, (7, 1), totals=(2, 3, 12))]
        case "craps_two":
            return [_p(ONE, (30, 1), totals=(2,))]
        case "craps_three":
            return [_p(ONE, (15, 1), totals=(3,))]
        case "craps_twelve":
            return [_p(ONE, (30, 1), totals=(12,))]
        case "eleven":
            return [_p(ONE, (15, 1), totals=(11,))]
        case "c_and_e":  # 623a.5(b): half Any Craps, half 11 in One Roll
            return [_p(HALF, (7, 1), totals=(2, 3, 12)), _p(HALF, (15, 1), totals=(11,))]
        case "horn":  # 623a.5(c)
            return horn_parts(QUARTER)
        case "horn_high":  # 623a.5(d): a fifth share on the chosen number
            return [*horn_parts(FIFTH), _p(FIFTH, HORN_ODDS[n], totals=(n,))]
        case "whirl":  # 623a.5(e): four units Horn, one unit Any Seven
            return [*horn_parts(FIFTH), _p(FIFTH, (4, 1), totals=(7,))]
        case "hop":
            pair = params["dice"]
            odds = (30, 1) if pair[0] == pair[1] else (15, 1)
            return [_p(ONE, odds, pairs=(pair,))]
        case "six_seven_eight":  # 623a.5(a): 3-3 and 4-4 pay 2 to 1, the rest 1 to 1
            easy = [(1, 5), (2, 4), (2, 6), (3, 5)]
            hard = [(3, 3), (4, 4)]
            return [_p(ONE, (1, 1), totals=(7,), pairs=easy), _p(ONE, (2, 1), pairs=hard)]
    return None


def one_roll_table(parts: list[Part]) -> tuple[tuple[Fraction, Fraction] | None, ...]:
    """Per dice index: (paid, returned) as fractions of the stake, or None when all lose."""
    table = []
    for i in range(36):
        paid = returned = Fraction(0)
        for part in parts:
            if part.wins(i):
                paid += part.share * part.odds[0] / part.odds[1]
                returned += part.share
        table.append((paid, returned) if returned else None)
    return tuple(table)
