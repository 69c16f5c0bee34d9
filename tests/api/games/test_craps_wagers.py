"""Every Craps wager of 623a.3(a), settled as the regulation text says.

Each case: (section, wager, params, amount, rolls before placing, rolls after placing,
expected result or None for undecided, expected winnings in cents).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from dicecall.api.games.craps_options import CrapsOptions

from .craps_helpers import POINT, decide

P4, P5, P6, P8, P9, P10 = (POINT[n] for n in (4, 5, 6, 8, 9, 10))
ON4 = [P4]  # a come out roll of 4: the point is on

CASES = [
    # 623a.3(a)(1) Pass Bet
    ("623a.3(a)(1)(i)(A) 7 on come out", "pass", {}, 1000, [], [(3, 4)], "win", 1000),
    ("623a.3(a)(1)(i)(A) 11 on come out", "pass", {}, 1000, [], [(5, 6)], "win", 1000),
    ("623a.3(a)(1)(ii)(A) 2", "pass", {}, 1000, [], [(1, 1)], "lose", 0),
    ("623a.3(a)(1)(ii)(A) 3", "pass", {}, 1000, [], [(1, 2)], "lose", 0),
    ("623a.3(a)(1)(ii)(A) 12", "pass", {}, 1000, [], [(6, 6)], "lose", 0),
    ("623a.3(a)(1)(i)(B) point made", "pass", {}, 1000, [], [P6, (5, 1)], "win", 1000),
    ("623a.3(a)(1)(ii)(B) seven out", "pass", {}, 1000, [], [P6, (3, 4)], "lose", 0),
    ("623a.3(a)(1) undecided", "pass", {}, 1000, [], [P6, (4, 4), (5, 6)], None, 0),
    # 623a.3(a)(2) Don't Pass Bet
    ("623a.3(a)(2)(i)(A) 2", "dont_pass", {}, 1000, [], [(1, 1)], "win", 1000),
    ("623a.3(a)(2)(i)(A) 3", "dont_pass", {}, 1000, [], [(2, 1)], "win", 1000),
    ("623a.3(a)(2)(iii) 12 void", "dont_pass", {}, 1000, [], [(6, 6)], "push", 0),
    ("623a.3(a)(2)(ii)(A) 7", "dont_pass", {}, 1000, [], [(6, 1)], "lose", 0),
    ("623a.3(a)(2)(ii)(A) 11", "dont_pass", {}, 1000, [], [(6, 5)], "lose", 0),
    ("623a.3(a)(2)(i)(B) seven out", "dont_pass", {}, 1000, [], [P4, (3, 4)], "win", 1000),
    ("623a.3(a)(2)(ii)(B) point made", "dont_pass", {}, 1000, [], [P4, (2, 2)], "lose", 0),
    # 623a.3(a)(3) Come Bet (placed after the come out roll)
    ("623a.3(a)(3)(i)(A) 7", "come", {}, 1000, ON4, [(3, 4)], "win", 1000),
    ("623a.3(a)(3)(i)(A) 11", "come", {}, 1000, ON4, [(5, 6)], "win", 1000),
    ("623a.3(a)(3)(ii)(A) 12", "come", {}, 1000, ON4, [(6, 6)], "lose", 0),
    ("623a.3(a)(3)(i)(B) come point made", "come", {}, 1000, ON4, [P5, (3, 2)], "win", 1000),
    ("623a.3(a)(3)(ii)(B) 7 first", "come", {}, 1000, ON4, [P5, (3, 4)], "lose", 0),
    # 623a.3(a)(4) Don't Come Bet
    ("623a.3(a)(4)(i)(A) 3", "dont_come", {}, 1000, ON4, [(1, 2)], "win", 1000),
    ("623a.3(a)(4)(iii) 12 void", "dont_come", {}, 1000, ON4, [(6, 6)], "push", 0),
    ("623a.3(a)(4)(ii)(A) 11", "dont_come", {}, 1000, ON4, [(6, 5)], "lose", 0),
    ("623a.3(a)(4)(i)(B) 7 first", "dont_come", {}, 1000, ON4, [P9, (1, 6)], "win", 1000),
    ("623a.3(a)(4)(ii)(B) number first", "dont_come", {}, 1000, ON4, [P9, (4, 5)], "lose", 0),
    # 623a.3(a)(5), 623a.5(a) Place Bet to Win: inactive on the come out unless "on"
    ("623a.5(a) place 4 9:5", "place_to_win", {"number": 4}, 1000, ON4, [P4], "win", 1800),
    ("623a.5(a) place 5 7:5", "place_to_win", {"number": 5}, 1000, ON4, [P5], "win", 1400),
    ("623a.5(a) place 6 7:6", "place_to_win", {"number": 6}, 1200, ON4, [P6], "win", 1400),
    ("623a.5(a) place 8 7:6", "place_to_win", {"number": 8}, 600, ON4, [P8], "win", 700),
    ("623a.5(a) place 9 7:5", "place_to_win", {"number": 9}, 500, ON4, [P9], "win", 700),
    ("623a.5(a) place 10 9:5", "place_to_win", {"number": 10}, 500, ON4, [P10], "win", 900),
    ("623a.3(a)(5)(ii) 7 first", "place_to_win", {"number": 6}, 600, ON4, [(3, 4)], "lose", 0),
    ("623a.3(a)(5) off on come out", "place_to_win", {"number": 6}, 600, [], [(3, 4), P6],
     None, 0),
    # 623a.3(a)(6), 623a.5(a) Place Bet to Lose
    ("623a.5(a) lose 4 5:11", "place_to_lose", {"number": 4}, 1100, ON4, [(3, 4)], "win", 500),
    ("623a.5(a) lose 5 5:8", "place_to_lose", {"number": 5}, 800, ON4, [(3, 4)], "win", 500),
    ("623a.5(a) lose 6 4:5", "place_to_lose", {"number": 6}, 500, ON4, [(3, 4)], "win", 400),
    ("623a.3(a)(6)(ii) number first", "place_to_lose", {"number": 6}, 500, ON4, [(3, 3)],
     "lose", 0),
    ("623a.3(a)(6) off on come out", "place_to_lose", {"number": 6}, 500, [], [(3, 4)], None, 0),
    # 623a.3(a)(7)-(10) Hardways, inactive on the come out
    ("623a.3(a)(7)(i) hard 4 7:1", "hardway", {"number": 4}, 500, ON4, [(2, 2)], "win", 3500),
    ("623a.3(a)(8)(i) hard 6 9:1", "hardway", {"number": 6}, 500, ON4, [(3, 3)], "win", 4500),
    ("623a.3(a)(9)(i) hard 8 9:1", "hardway", {"number": 8}, 500, ON4, [(4, 4)], "win", 4500),
    ("623a.3(a)(10)(i) hard 10 7:1", "hardway", {"number": 10}, 500, ON4, [(5, 5)], "win", 3500),
    ("623a.3(a)(8)(ii) easy 6", "hardway", {"number": 6}, 500, ON4, [(1, 5)], "lose", 0),
    ("623a.3(a)(9)(ii) 7", "hardway", {"number": 8}, 500, ON4, [(1, 6)], "lose", 0),
    ("623a.3(a)(10) other totals", "hardway", {"number": 10}, 500, ON4, [(1, 2), (6, 6)],
     None, 0),
    # 623a.3(a)(11) Field; 623a.5(a): 2 and 12 pay 2 to 1
    ("623a.5(a) field 2", "field", {}, 500, [], [(1, 1)], "win", 1000),
    ("623a.5(a) field 12", "field", {}, 500, [], [(6, 6)], "win", 1000),
    ("623a.5(a) field 9", "field", {}, 500, [], [(4, 5)], "win", 500),
    ("623a.3(a)(11)(ii) field 8", "field", {}, 500, [], [(4, 4)], "lose", 0),
    # 623a.3(a)(12)-(17) single-roll wagers
    ("623a.5(a) any seven 4:1", "any_seven", {}, 500, [], [(2, 5)], "win", 2000),
    ("623a.3(a)(12)(ii)", "any_seven", {}, 500, [], [(2, 4)], "lose", 0),
    ("623a.5(a) any craps 7:1", "any_craps", {}, 500, [], [(6, 6)], "win", 3500),
    ("623a.5(a) craps 2 30:1", "craps_two", {}, 500, [], [(1, 1)], "win", 15000),
    ("623a.5(a) craps 3 15:1", "craps_three", {}, 500, [], [(2, 1)], "win", 7500),
    ("623a.5(a) craps 12 30:1", "craps_twelve", {}, 500, [], [(6, 6)], "win", 15000),
    ("623a.5(a) eleven 15:1", "eleven", {}, 500, [], [(6, 5)], "win", 7500),
    ("623a.3(a)(17)(ii)", "eleven", {}, 500, [], [(6, 4)], "lose", 0),
    # 623a.5(b)-(e) split wagers: the winning share is paid, the rest collected
    ("623a.5(b) C and E on 11", "c_and_e", {}, 1000, [], [(5, 6)], "win", 7500),
    ("623a.5(b) C and E on 3", "c_and_e", {}, 1000, [], [(1, 2)], "win", 3500),
    # 623a.3(a)(18) sets no unit size: $5 and $7 are C and E Bets ($2.50 / $3.50 halves)
    ("623a.3(a)(18) C and E $5 on 11", "c_and_e", {}, 500, [], [(6, 5)], "win", 3750),
    ("623a.3(a)(18) C and E $7 on 12", "c_and_e", {}, 700, [], [(6, 6)], "win", 2450),
    ("623a.5(c) horn on 12", "horn", {}, 800, [], [(6, 6)], "win", 6000),
    ("623a.5(c) horn on 3", "horn", {}, 800, [], [(1, 2)], "win", 3000),
    ("623a.3(a)(19)(ii) horn on 7", "horn", {}, 800, [], [(1, 6)], "lose", 0),
    ("623a.5(d) horn high 12 on 12", "horn_high", {"number": 12}, 1000, [], [(6, 6)], "win",
     12000),
    ("623a.5(d) horn high 12 on 2", "horn_high", {"number": 12}, 1000, [], [(1, 1)], "win",
     6000),
    ("623a.5(e) whirl on 7", "whirl", {}, 1000, [], [(1, 6)], "win", 800),
    ("623a.5(e) whirl on 11", "whirl", {}, 1000, [], [(6, 5)], "win", 3000),
    ("623a.3(a)(21)(ii) whirl on 8", "whirl", {}, 1000, [], [(2, 6)], "lose", 0),
    # 623a.3(a)(22)-(38) hop wagers, either order of the dice
    ("623a.3(a)(22) 2-2 30:1", "hop", {"dice": [2, 2]}, 500, [], [(2, 2)], "win", 15000),
    ("623a.3(a)(26) 1-3 15:1", "hop", {"dice": [1, 3]}, 500, [], [(3, 1)], "win", 7500),
    ("623a.3(a)(26)(ii) 2-2 is not 1-3", "hop", {"dice": [1, 3]}, 500, [], [(2, 2)], "lose", 0),
    ("623a.3(a)(38) 4-6", "hop", {"dice": [6, 4]}, 500, [], [(4, 6)], "win", 7500),
    # 623a.3(a)(39) 6-7-8 Bet, 623a.5(a)
    ("623a.5(a) 6-7-8 on 3-3", "six_seven_eight", {}, 500, [], [(3, 3)], "win", 1000),
    ("623a.5(a) 6-7-8 on 4-4", "six_seven_eight", {}, 500, [], [(4, 4)], "win", 1000),
    ("623a.5(a) 6-7-8 on 1-5", "six_seven_eight", {}, 500, [], [(5, 1)], "win", 500),
    ("623a.5(a) 6-7-8 on 7", "six_seven_eight", {}, 500, [], [(5, 2)], "win", 500),
    ("623a.3(a)(39)(ii) 6-7-8 on 9", "six_seven_eight", {}, 500, [], [(5, 4)], "lose", 0),
    # 623a.3(a)(41),(42), 623a.5(g): Buy and Lay at true odds, vigorish taken up front
    ("623a.5(g)(1) buy 4 2:1", "buy", {"number": 4}, 2000, ON4, [P4], "win", 4000),
    ("623a.5(g)(1) buy 6 6:5", "buy", {"number": 6}, 1000, ON4, [P6], "win", 1200),
    ("623a.5(g)(2) lay 4 1:2", "lay", {"number": 4}, 2000, ON4, [(3, 4)], "win", 1000),
    ("623a.5(g)(2) lay 9 2:3", "lay", {"number": 9}, 1500, ON4, [(3, 4)], "win", 1000),
    ("623a.3(a)(42) lay works on come out", "lay", {"number": 10}, 2000, [], [(3, 4)], "win",
     1000),
    ("623a.3(a)(41) buy off on come out", "buy", {"number": 4}, 2000, [], [(3, 4)], None, 0),
    # 623a.3(a)(43), 623a.5(h), 623a.12: Bonus Craps
    ("623a.5(h)(1) all small", "all_small", {}, 500, [], [(1, 1), (1, 2), (2, 2), (2, 3),
                                                         (3, 3)], "win", 17000),
    ("623a.5(h)(3) all tall", "all_tall", {}, 500, [], [(6, 2), (4, 5), (5, 5), (5, 6),
                                                       (6, 6)], "win", 17000),
    ("623a.12(5) 7 on the come out", "all_small", {}, 500, [], [(1, 1), (3, 4)], "lose", 0),
    ("623a.12(6) any order, repeats", "all_small", {}, 500, [], [(3, 3), (3, 3), (2, 3),
                                                                (1, 1), (1, 3), (1, 2)],
     "win", 17000),
]


@pytest.mark.parametrize(("name", "params", "amount", "before", "after", "result", "won"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_wager(name, params, amount, before, after, result, won):
    line = decide(name, params, amount, before, after)
    if result is None:
        assert line is None
        return
    assert line is not None and line.result == result
    assert line.paid == won


def test_place_6_rounds_down_and_reports_the_remainder():
    """$5 on the 6 pays 7 to 6 = 583 1/3 cents: 583 paid, 1/3 cent reported (DESIGN.md)."""
    line = decide("place_to_win", {"number": 6}, 500, ON4, [P6])
    assert (line.paid, line.remainder) == (583, Fraction(1, 3))
    unit = CrapsOptions(payout_unit=25)
    line = decide("place_to_win", {"number": 6}, 500, ON4, [P6], options=unit)
    assert (line.paid, line.remainder) == (575, Fraction(25, 3))


def test_winning_place_bet_stays_up():
    line = decide("place_to_win", {"number": 8}, 600, ON4, [P8])
    assert line.stays and line.returned == 0 and line.collected == 0
