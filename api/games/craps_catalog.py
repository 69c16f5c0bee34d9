"""Every Craps and Mini-Craps wager of 623a.3(a), with its params, odds and section."""

from __future__ import annotations

from .craps_rules import (
    BONUS,
    BUY,
    FIRE,
    HARDWAY,
    HOP_SECTIONS,
    LAY,
    LAY_ODDS,
    PLACE_TO_LOSE,
    PLACE_TO_WIN,
    POINTS,
    TAKE_ODDS,
    one_roll_parts,
    one_roll_table,
)
from .spec import Spec, make, odds_text

S = "623a.3(a)"

_ONE_ROLL = [
    ("field", "Field Bet", "1 to 1; 2 to 1 on 2 or 12", "(11)", 1),
    ("any_seven", "Any Seven Bet", "4 to 1", "(12)", 1),
    ("any_craps", "Any Craps Bet", "7 to 1", "(13)", 1),
    ("craps_two", "Craps Two Bet", "30 to 1", "(14)", 1),
    ("craps_three", "Craps Three Bet", "15 to 1", "(15)", 1),
    ("craps_twelve", "Craps Twelve Bet", "30 to 1", "(16)", 1),
    ("eleven", "11 in One Roll Bet", "15 to 1", "(17)", 1),
    # 623a.3(a)(18), 623a.5(b) set no unit size (unlike (19)-(21)): any amount whose two
    # halves are whole cents, which `_share_step` enforces.
    ("c_and_e", "Craps-Eleven (C and E) Bet", "half at 7 to 1, half at 15 to 1 (623a.5(b))",
     "(18)", 1),
    ("horn", "Horn Bet", "quarters at 30/15/15/30 to 1 (623a.5(c)); units of four", "(19)", 4),
    ("whirl", "Whirl Bet", "four units Horn, one unit Any Seven (623a.5(e)); units of five",
     "(21)", 5),
    ("six_seven_eight", "6-7-8 Bet", "1 to 1; 2 to 1 on 3-3 or 4-4", "(39)", 1),
]


def _odds_notes(flat: str, by: dict[int, int], lay: bool, whole: int | None) -> str:
    """The table's odds limit as the catalog states it (623a.6(a)-(f))."""
    groups: dict[int, list[str]] = {}
    for n, m in by.items():
        groups.setdefault(m, []).append(str(n))
    each = [f"{m}x" + (f" the {flat}" if i == 0 else "") +
            (f" on {', '.join(ns)}" if len(groups) > 1 else "")
            for i, (m, ns) in enumerate(groups.items())]
    notes = ("laid to win up to " if lay else "up to ") + "; ".join(each)
    if whole:
        notes += (f"; or the least amount above that paying a whole multiple of {whole} "
                  "cents (623a.6(f))")
    return notes


def craps_specs(*, buy: bool, lay: bool, place_to_lose: bool, fire: str | None, bonus: bool,
                odds: tuple[dict[int, int], dict[int, int]], whole: int | None = None
                ) -> dict[tuple, Spec]:
    """The concrete wagers a table with these house options accepts, keyed by (name, params).

    `odds` is the (take, lay) odds multiple per point number (`CrapsOptions.odds_limit`),
    `whole` the unit odds may exceed their limit to pay a whole multiple of (623a.6(f)).
    """
    take, laid = odds
    specs: list[Spec] = [
        make("pass", "Pass Bet", "1 to 1", f"{S}(1)", "line"),
        make("dont_pass", "Don't Pass Bet", "1 to 1; 12 on the come out is void", f"{S}(2)",
             "line"),
        make("come", "Come Bet", "1 to 1", f"{S}(3)", "line"),
        make("dont_come", "Don't Come Bet", "1 to 1; 12 on the next roll is void", f"{S}(4)",
             "line"),
        make("pass_odds", "Pass Bet odds", "true odds 2:1, 3:2, 6:5", "623a.6(a)",
             "odds", TAKE_ODDS, notes=_odds_notes("Pass Bet", take, False, whole)),
        make("dont_pass_odds", "Don't Pass Bet odds", "true odds 1:2, 2:3, 5:6",
             "623a.6(b)", "odds", LAY_ODDS, notes=_odds_notes("Don't Pass Bet", laid, True, whole)),
    ]
    for n in POINTS:
        p = {"number": n}
        specs += [
            make("come_odds", f"Come Bet odds on {n}", odds_text(TAKE_ODDS[n]),
                 "623a.6(c)", "odds", TAKE_ODDS[n], p,
                 notes=_odds_notes("Come Bet", {n: take[n]}, False, whole)),
            make("dont_come_odds", f"Don't Come Bet odds on {n}", odds_text(LAY_ODDS[n]),
                 "623a.6(d)", "odds", LAY_ODDS[n], p,
                 notes=_odds_notes("Don't Come Bet", {n: laid[n]}, True, whole)),
            make("place_to_win", f"Place Bet to Win on {n}", odds_text(PLACE_TO_WIN[n]),
                 f"{S}(5), 623a.5(a)", "place", PLACE_TO_WIN[n], p),
        ]
        if place_to_lose:  # 623a.3(a)(42): a Lay Bet may be offered in lieu of it
            specs.append(make("place_to_lose", f"Place Bet to Lose on {n}",
                              odds_text(PLACE_TO_LOSE[n]), f"{S}(6), 623a.5(a)", "place",
                              PLACE_TO_LOSE[n], p))
        if buy:  # each optional on its own (623a.3(a)(41), (42))
            specs.append(make("buy", f"Buy Bet on {n}", odds_text(BUY[n]) + " less vigorish",
                              f"{S}(41), 623a.5(g)", "place", BUY[n], p))
        if lay:
            specs.append(make("lay", f"Lay Bet against {n}", odds_text(LAY[n]) +
                              " less vigorish", f"{S}(42), 623a.5(g)", "place", LAY[n], p))
    for n, section in zip((4, 6, 8, 10), ("(7)", "(8)", "(9)", "(10)"), strict=True):
        specs.append(make("hardway", f"{n} the Hardway Bet", odds_text(HARDWAY[n]),
                          f"{S}{section}", "hardway", HARDWAY[n], {"number": n}))
    for name, title, odds, section, units in _ONE_ROLL:
        specs.append(make(name, title, odds, f"{S}{section}", "one_roll",
                          one_roll_parts(name, {}), units=units))
    for n in (2, 3, 11, 12):
        specs.append(make("horn_high", f"Horn High {n} Bet", "fifths at 30/15/15/30 to 1, "
                          f"two fifths on {n} (623a.5(d)); units of five", f"{S}(20)",
                          "one_roll", one_roll_parts("horn_high", {"number": n}),
                          {"number": n}, units=5))
    for pair, section in HOP_SECTIONS.items():
        hard = pair[0] == pair[1]
        specs.append(make("hop", f"{pair[0]}-{pair[1]} on the Hop Bet",
                          "30 to 1" if hard else "15 to 1", f"{S}{section}", "one_roll",
                          one_roll_parts("hop", {"dice": pair}), {"dice": pair}))
    if fire:
        table = FIRE[fire]
        specs.append(make("fire", f"Fire Bet (pay table {fire})",
                          ", ".join(f"{k}{'+' if k == 6 else ''} points {odds_text(v)}"
                                    for k, v in table.items()),
                          f"{S}(40), 623a.5(f), 623a.11", "fire", table,
                          units=100, limits=(100, 500)))
    if bonus:
        for name, (nums, odds, section) in BONUS.items():
            title = {"all_small": "All Small", "all_tall": "All Tall",
                     "all_or_nothing": "All Or Nothing At All"}[name]
            specs.append(make(name, f"{title} Wager", odds_text(odds),
                              f"{section}, 623a.5(h), 623a.12", "bonus", (nums, odds)))
    for spec in specs:
        if spec.kind == "one_roll":
            spec.extra["table"] = one_roll_table(list(spec.data))
    return {s.key: s for s in specs}
