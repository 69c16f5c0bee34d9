"""Craps flows across rolls and every refusal: odds, Fire Bet, vigorish, markers, removal."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dicecall.api.games import craps
from dicecall.api.games.craps_options import CrapsOptions
from dicecall.api.games.errors import OptionsRefused, RollRefused, WagerRefused
from dicecall.api.games.model import Wager

from .craps_helpers import POINT, decide, table


@pytest.mark.parametrize(("point", "won"), [(4, 4000), (5, 3000), (6, 2400), (8, 2400),
                                            (9, 3000), (10, 4000)])
def test_pass_odds_pay_true_odds_623a_6_a(point, won):
    line = decide("pass_odds", {}, 2000, [POINT[point]], [POINT[point]], flat="pass")
    assert (line.result, line.paid) == ("win", won)


@pytest.mark.parametrize(("point", "laid", "won"), [(4, 2000, 1000), (5, 1500, 1000),
                                                    (6, 1200, 1000)])
def test_dont_pass_odds_623a_6_b(point, laid, won):
    line = decide("dont_pass_odds", {}, laid, [POINT[point]], [(3, 4)], flat="dont_pass")
    assert (line.result, line.paid) == ("win", won)


def test_odds_limit_is_the_tables_multiple_623a_6_e():
    state = table(Wager.of("p", "pass", 1000), rolls=[POINT[6]],
                  options=CrapsOptions(odds_multiple=2))
    craps.place(state, Wager.of("o", "pass_odds", 2000))
    with pytest.raises(WagerRefused, match=r"623a\.6"):
        craps.place(state, Wager.of("o", "pass_odds", 2001))
    with pytest.raises(WagerRefused, match="no_flat_bet"):
        craps.place(state, Wager.of("o", "pass_odds", 1000, seat=2))


def test_come_odds_are_off_on_the_come_out_and_returned():
    """The come point's 7 on the come out loses the Come Bet; its odds come back."""
    state = table(rolls=[POINT[4]])
    state = craps.place(state, Wager.of("c", "come", 1000)).state
    state = craps.settle(state, POINT[5]).state  # the come bet travels to 5
    state = craps.place(state, Wager.of("o", "come_odds", 1000, number=5)).state
    state = craps.settle(state, (2, 2)).state  # point 4 made: next roll is a come out
    lines = {line.wager_id: line for line in craps.settle(state, (3, 4)).lines}
    assert lines["c"].result == "lose"
    assert (lines["o"].result, lines["o"].returned) == ("returned", 1000)


def test_buy_and_lay_vigorish_upfront_and_on_win_623a_5_g_3():
    state = table(rolls=[POINT[4]])
    assert craps.place(state, Wager.of("b", "buy", 2000, number=4)).fee == 100
    assert craps.place(state, Wager.of("l", "lay", 4000, number=4)).fee == 100  # 5% of $20
    on_win = CrapsOptions(buy_vig="on_win", buy_vig_numbers=(4, 10))
    line = decide("buy", {"number": 4}, 2000, [POINT[4]], [POINT[4]], options=on_win)
    assert line.paid == 4000 - 100
    line = decide("buy", {"number": 6}, 1000, [POINT[4]], [POINT[6]], options=on_win)
    assert line.paid == 1200  # no vigorish on the numbers not named


@pytest.mark.parametrize(("points", "paytable", "result", "won"), [
    ((4, 5, 6), "A", "lose", 0),
    ((4, 5, 6, 8), "A", "win", 500 * 24),
    ((4, 5, 6, 8, 9), "A", "win", 500 * 249),
    ((4, 5, 6, 8, 9, 10), "A", "win", 500 * 999),
    ((4, 5, 6, 8), "B", "win", 500 * 39),
    ((4, 4, 4, 5, 6), "A", "lose", 0),  # 623a.11(b)(2): the same point does not count twice
])
def test_fire_bet_settles_on_the_loser_7(points, paytable, result, won):
    """623a.3(a)(40), 623a.5(f), 623a.11(a)(5),(b)(2),(b)(3)."""
    rolls = [d for n in points for d in (POINT[n], POINT[n])] + [POINT[5], (3, 4)]
    line = decide("fire", {}, 500, [], rolls, options=CrapsOptions(fire=paytable))
    assert (line.result, line.paid) == (result, won)


def test_fire_bet_is_not_settled_by_a_come_out_7():
    assert decide("fire", {}, 500, [], [(3, 4), (5, 6), (3, 4)]) is None


def test_pending_fire_bet_settles_on_the_successors_loser_7_623a_11_a_2():
    state = table(Wager.of("f", "fire", 500),
                  rolls=[d for n in (4, 5, 6, 8) for d in (POINT[n], POINT[n])])
    state = craps.change_shooter(state)
    state = craps.settle(state, POINT[9]).state  # the successor makes no point
    lines = craps.settle(state, (3, 4)).lines
    assert [(x.wager_id, x.result, x.paid) for x in lines] == [("f", "win", 500 * 24)]


def test_on_marker_makes_a_place_bet_work_on_the_come_out():
    line = decide("place_to_win", {"number": 6}, 600, [], [(3, 4)], working=True)
    assert line.result == "lose"
    line = decide("lay", {"number": 4}, 2000, [], [(3, 4)], working=False)
    assert line is None


REFUSALS = [
    ("unknown", Wager.of("x", "big_red", 500), [], "unknown_wager"),
    ("623a.3(a)(5) no place 7", Wager.of("x", "place_to_win", 600, number=7), [], "bad_params"),
    ("623a.3(a)(14) 1-1 is the Craps Two", Wager.of("x", "hop", 500, dice=[1, 1]), [],
     "bad_params"),
    ("623a.3(b)(1) minimum", Wager.of("x", "field", 400), [], "outside_limits"),
    ("623a.3(b)(2) maximum", Wager.of("x", "field", 500_001), [], "outside_limits"),
    ("623a.3(a)(19) units of four", Wager.of("x", "horn", 1000), [], "wrong_units"),
    ("623a.3(a)(21) units of five", Wager.of("x", "whirl", 800), [], "wrong_units"),
    ("623a.5(b) C and E halves in whole cents", Wager.of("x", "c_and_e", 501), [],
     "wrong_units"),
    ("623a.11(b)(1) fire over $5", Wager.of("x", "fire", 600), [], "outside_limits"),
    ("623a.11(b)(1) fire $1 steps", Wager.of("x", "fire", 250), [], "outside_limits"),
    ("623a.11(a)(1) fire after first roll", Wager.of("x", "fire", 500), [(5, 6)], "bet_closed"),
    ("623a.12(1) bonus after first roll", Wager.of("x", "all_tall", 500), [(5, 6)],
     "bet_closed"),
    ("623a.4(c)(1) pass after the point", Wager.of("x", "pass", 500), [POINT[6]], "bet_closed"),
    ("623a.3(a)(3) come on the come out", Wager.of("x", "come", 500), [], "bet_closed"),
    ("623a.6(a) odds before a point", Wager.of("x", "pass_odds", 500), [], "bet_closed"),
    ("amount must be cents", Wager.of("x", "field", 0), [], "bad_amount"),
]


@pytest.mark.parametrize(("wager", "rolls", "code"), [r[1:] for r in REFUSALS],
                         ids=[r[0] for r in REFUSALS])
def test_refusals_name_the_rule(wager, rolls, code):
    state = table(rolls=rolls)
    with pytest.raises(WagerRefused) as err:
        craps.place(state, wager)
    assert err.value.code == code


REMOVALS = [
    ("623a.4(c)(1) pass after the point", Wager.of("w", "pass", 1000), [POINT[6]], False),
    ("623a.4(c) pass on the come out", Wager.of("w", "pass", 1000), [], True),
    ("623a.4(c)(3) fire", Wager.of("w", "fire", 500), [], False),
    ("623a.4(c)(4) bonus", Wager.of("w", "all_small", 500), [], False),
    ("623a.4(d) don't pass any time", Wager.of("w", "dont_pass", 1000), [POINT[6]], True),
    ("623a.4(c) place bet", Wager.of("w", "place_to_win", 600, number=6), [POINT[4]], True),
]


@pytest.mark.parametrize(("wager", "rolls", "allowed"), [r[1:] for r in REMOVALS],
                         ids=[r[0] for r in REMOVALS])
def test_removal_rules(wager, rolls, allowed):
    state = table(wager, rolls=rolls)
    if allowed:
        change = craps.reduce(state, "w", 0)
        assert change.returned == wager.amount and change.state.wager("w") is None
    else:
        with pytest.raises(WagerRefused) as err:
            craps.reduce(state, "w", 0)
        assert err.value.code == "not_removable"


@pytest.mark.parametrize("amount", [0, 500])
def test_a_bonus_craps_wager_is_neither_reduced_nor_removed_623a_4_c_4_623a_12_2(amount):
    """623a.4(c)(4) forbids reducing it; 623a.12(2) keeps it "until [it is] either collected
    or paid", so it is not removed either. The refusal of a removal said only "may not be
    reduced"."""
    state = table(Wager.of("b", "all_tall", 1000))
    with pytest.raises(WagerRefused) as err:
        craps.reduce(state, "b", amount)
    assert (err.value.code, err.value.section) == ("not_removable", "623a.4(c)(4), 623a.12(2)")
    assert "collected or paid" in err.value.message


def test_come_bet_cannot_be_removed_after_it_travels_623a_4_c_2():
    state = table(rolls=[POINT[4]])
    state = craps.place(state, Wager.of("c", "come", 1000)).state
    craps.reduce(state, "c", 0)  # still in the come area: allowed
    state = craps.settle(state, POINT[8]).state
    with pytest.raises(WagerRefused, match=r"623a\.4"):
        craps.reduce(state, "c", 0)


def test_a_dont_come_on_its_come_point_comes_down_unlike_a_come_bet_623a_4_c_2_d():
    """623a.4(d): a Don't Come Bet "may be removed or reduced at any time", on its come point
    too, where a Come Bet may not (623a.4(c)(2)); with lay odds behind it too: they were laid
    in its support (623a.6(d)) and come down with it (623a.4(c))."""
    state = craps.place(table(rolls=[POINT[4]]), Wager.of("d", "dont_come", 1000)).state
    state = craps.place(state, Wager.of("c2", "come", 1000, seat=1)).state
    state = craps.settle(state, POINT[8]).state  # both travel to the 8
    assert {w.id: w.point for w in state.wagers} == {"d": 8, "c2": 8}
    with pytest.raises(WagerRefused, match=r"623a\.4\(c\)\(2\)"):
        craps.reduce(state, "c2", 0)
    assert craps.reduce(state, "d", 600).state.wager("d").amount == 600
    laid = craps.place(state, Wager.of("o", "dont_come_odds", 1200, number=8)).state
    change = craps.reduce(laid, "d", 0)
    assert change.returned == 2200 and [w.id for w in change.state.wagers] == ["c2"]
    assert [(x.wager_id, x.returned) for x in change.also] == [("o", 1200)]
    change = craps.reduce(craps.reduce(laid, "o", 0).state, "d", 0)
    assert change.returned == 1000 and [w.id for w in change.state.wagers] == ["c2"]


def test_reduce_keeps_the_rest_of_the_wager_on_the_table():
    state = table(Wager.of("w", "place_to_win", 1200, number=6))
    change = craps.reduce(state, "w", 600)
    assert change.returned == 600 and change.state.wager("w").amount == 600


@pytest.mark.parametrize("faces", [(1,), (1, 2, 3), (0, 3), (7, 1), (2, "3"), (True, 2)])
def test_bad_rolls_are_refused_623a_9_a(faces):
    with pytest.raises(RollRefused):
        craps.settle(table(), faces)


@pytest.mark.parametrize("options", [{"odds_multiple": 11}, {"vig_rate": 0.06},
                                     {"fire": "C"}, {"table_min": 0}, {"buy_vig": "later"}])
def test_options_outside_the_regulation_are_refused(options):
    with pytest.raises(OptionsRefused):
        CrapsOptions(**options)


def test_lay_vigorish_is_exact_at_any_rate_623a_5_g_3_ii_A():
    """3% of what a $5 lay on the 5 can win (2/3 of $5 = 333 1/3 cents) is 10 cents."""
    state = table(rolls=[POINT[4]], options=CrapsOptions(vig_rate=Fraction(3, 100)))
    assert craps.place(state, Wager.of("l", "lay", 500, number=5)).fee == 10


def test_place_many_is_all_or_nothing_and_counts_its_own_wagers():
    state = table(Wager.of("p", "pass", 1000), rolls=[POINT[6]])
    state, placed, fees = craps.place_many(state, [
        Wager.of("b", "buy", 2000, number=4), Wager.of("o", "pass_odds", 2000)])
    assert [w.id for w in placed] == ["b", "o"] and fees == [100, 0]
    with pytest.raises(WagerRefused, match="duplicate_id"):
        craps.place_many(state, [Wager.of("f", "field", 500), Wager.of("b", "field", 500)])
    with pytest.raises(WagerRefused, match=r"623a\.6\(e\)"):  # 2000 + 1001 > 3x the flat
        craps.place_many(state, [Wager.of("f", "field", 500), Wager.of("o2", "pass_odds", 1001)])
    assert state.wager("f") is None


@pytest.mark.parametrize("working", [False, True, None])
def test_one_roll_wagers_take_no_on_off_marker_623a_3_a_11_39(working):
    """623a.3(a)(11)-(39): a one-roll wager wins or loses "on the roll immediately following
    placement"; the on/off marker is given to Place, Hardway, Buy and Lay Bets only
    ((5)-(10), (41), (42))."""
    state = table(Wager.of("a", "any_seven", 500), Wager.of("h", "hop", 500, dice=[1, 3]))
    for wager_id in ("a", "h"):
        with pytest.raises(WagerRefused, match=r"623a\.3\(a\)\(11\)-\(39\)") as err:
            craps.set_working(state, wager_id, working)
        assert err.value.code == "no_marker"
    placed_off = Wager("x", "field", 500, working=working)
    if working is None:
        craps.place(state, placed_off)
    else:
        with pytest.raises(WagerRefused, match="no_marker"):
            craps.place(state, placed_off)


def test_a_one_roll_wager_marked_off_in_a_stored_state_is_still_decided_623a_3_a_12():
    """A state written before markers were refused still settles the wager on the next roll."""
    state = table(Wager.of("a", "any_seven", 500))
    state = state.with_wagers(tuple(w._replace(working=False) for w in state.wagers))
    result = craps.settle(state, (2, 3))
    assert [(x.wager_id, x.result) for x in result.lines] == [("a", "lose")]
    assert result.state.wagers == ()


def test_place_and_hardway_still_take_the_off_marker_623a_3_a_5_7():
    state = table(Wager.of("p", "place_to_win", 600, number=6),
                  Wager.of("h", "hardway", 500, number=6), rolls=[POINT[4]])
    state = craps.set_working(craps.set_working(state, "p", False), "h", False)
    assert craps.settle(state, (3, 3)).lines == ()


MINI = CrapsOptions(game="mini-craps")


@pytest.mark.parametrize(("options", "seat", "ok"), [
    pytest.param(MINI, 0, True, id="623a.2(c)-mini-first-seat"),
    pytest.param(MINI, 8, True, id="623a.2(c)-mini-ninth-seat"),
    pytest.param(MINI, 9, False, id="623a.2(c)-mini-no-tenth-seat"),
    pytest.param(MINI, 10_000, False, id="623a.4(e)-mini-only-seated-players"),
    pytest.param(MINI, -3, False, id="623a.4(e)-mini-negative"),
    pytest.param(MINI, True, False, id="mini-bool-is-not-a-seat"),
    pytest.param(None, 20, True, id="623a.2-craps-default-positions-0-20"),
    pytest.param(None, 21, False, id="623a.2-craps-past-the-positions"),
    pytest.param(None, -1, False, id="623a.2-craps-negative"),
    pytest.param(CrapsOptions(seats=12), 11, True, id="623a.2-craps-configured-last"),
    pytest.param(CrapsOptions(seats=12), 12, False, id="623a.2-craps-configured-past"),
])
def test_the_seat_is_one_of_the_tables_positions(options, seat, ok):
    """623a.2(c): Mini-Craps seats at most nine players; 623a.4(e): only they may wager.
    A Craps table's positions are its configured `seats` (the chapter sets no number)."""
    state = table(options=options)
    wagers = [Wager.of("p", "pass", 500, seat=seat), Wager.of("f", "field", 500, seat=seat)]
    for wager in wagers:  # the line bet path and the one-roll fast path
        if ok:
            assert craps.place(state, wager).wager.seat == seat
        else:
            with pytest.raises(WagerRefused, match=r"623a\.2") as err:
                craps.place(state, wager)
            assert err.value.code == "bad_seat"
    if not ok:
        with pytest.raises(WagerRefused, match="bad_seat"):
            craps.place_many(state, wagers)


@pytest.mark.parametrize("options", [{"game": "mini-craps", "seats": 10}, {"seats": 0},
                                     {"seats": -1}, {"seats": "9"}])
def test_seat_counts_outside_the_regulation_are_refused_623a_2_c(options):
    with pytest.raises(OptionsRefused):
        CrapsOptions(**options)


def test_seats_default_per_game_and_survive_storage():
    from dicecall.api.games import serialize

    assert (MINI.seats, CrapsOptions().seats, CrapsOptions(game="mini-craps", seats=6).seats) \
        == (9, 21, 6)
    for options in (MINI, CrapsOptions(seats=14)):
        game = options.game
        again = serialize.options_from_json(game, serialize.options_to_json(options))
        assert again == options
    assert serialize.options_from_json("mini-craps", {}).seats == 9  # a table stored before


def test_one_fire_bet_per_seat_and_shooter_623a_11_b_1():
    """623a.11(b)(1): at most $5; 623a.4(c)(3): never increased; 623a.2(d)(4)(i): one Fire
    Bet area per player position. Three $5 Fire Bets on a seat were paid 3 x 24 to 1."""
    state = table(Wager.of("f0", "fire", 500))
    for second in (Wager.of("f1", "fire", 500), Wager.of("f1", "fire", 100)):
        with pytest.raises(WagerRefused, match=r"623a\.11\(b\)\(1\)") as err:
            craps.place(state, second)
        assert err.value.code == "duplicate_wager"
    with pytest.raises(WagerRefused, match="duplicate_wager"):
        craps.place_many(table(), [Wager.of("a", "fire", 300), Wager.of("b", "fire", 200)])
    state = craps.place(state, Wager.of("f1", "fire", 500, seat=1)).state  # another seat
    rolls = [d for n in (4, 5, 6, 8) for d in (POINT[n], POINT[n])] + [POINT[5], (3, 4)]
    for dice in rolls:  # four points made, then a loser 7
        result = craps.settle(state, dice)
        state = result.state
    assert sorted((x.seat, x.paid) for x in result.lines) == [(0, 500 * 24), (1, 500 * 24)]


def test_a_new_shooter_takes_a_new_fire_bet_from_the_seat_623a_11_a_1():
    """The seat's pending Fire Bet belongs to the shooter who passed the dice (623a.11(a)(2));
    the successor's Fire Bet is a new wager before his initial come out roll."""
    state = craps.change_shooter(table(Wager.of("f0", "fire", 500)))
    assert craps.place(state, Wager.of("f1", "fire", 500)).wager.shooter == 2


@pytest.mark.parametrize("name", ["all_small", "all_tall", "all_or_nothing"])
def test_one_bonus_craps_wager_of_a_kind_per_seat_623a_4_c_4(name):
    """623a.4(c)(4): a Bonus Craps wager may not be increased at any time; a second one on
    the seat's spot would be an increase. 623a.12(1): one or more of the three kinds."""
    state = table(Wager.of("b0", name, 500))
    with pytest.raises(WagerRefused, match=r"623a\.4\(c\)\(4\)") as err:
        craps.place(state, Wager.of("b1", name, 500))
    assert err.value.code == "duplicate_wager"
    with pytest.raises(WagerRefused, match="duplicate_wager"):
        craps.place_many(table(), [Wager.of("a", name, 500), Wager.of("b", name, 500)])
    others = [n for n in ("all_small", "all_tall", "all_or_nothing") if n != name]
    state, placed, _ = craps.place_many(state, [Wager.of("b1", name, 500, seat=1),
                                                *(Wager.of(n, n, 500) for n in others)])
    assert len(placed) == 3


TOP = CrapsOptions(table_min=500, table_max=500_000)
SPLITS = [
    ("623a.3(b)(2) pass line", Wager.of("a", "pass", 500_000), Wager.of("b", "pass", 500), []),
    ("623a.3(b)(2) place 8", Wager.of("a", "place_to_win", 300_000, number=8),
     Wager.of("b", "place_to_win", 300_000, number=8), [POINT[4]]),
    ("623a.3(b)(2) hard 8", Wager.of("a", "hardway", 250_000, number=8),
     Wager.of("b", "hardway", 250_500, number=8), [POINT[4]]),
    ("623a.3(b)(2) lay 4", Wager.of("a", "lay", 400_000, number=4),
     Wager.of("b", "lay", 100_500, number=4), [POINT[4]]),
    ("623a.5(j) field, the one-roll fast path", Wager.of("a", "field", 499_600),
     Wager.of("b", "field", 500), []),
    ("623a.5(j) hop 1-3", Wager.of("a", "hop", 500_000, dice=[1, 3]),
     Wager.of("b", "hop", 500, dice=[3, 1]), []),
    ("623a.5(j) come area", Wager.of("a", "come", 500_000), Wager.of("b", "come", 500),
     [POINT[4]]),
]


@pytest.mark.parametrize(("first", "second", "rolls"), [c[1:] for c in SPLITS],
                         ids=[c[0] for c in SPLITS])
def test_the_maximum_holds_for_the_seats_total_on_a_spot(first, second, rolls):
    """623a.3(b)(2), 623a.5(j): one bet split into several wagers on the same spot is still
    over the posted maximum; another seat, or the same seat up to the maximum, is not."""
    empty = table(rolls=rolls, options=TOP)
    state = craps.place(empty, first).state
    with pytest.raises(WagerRefused, match=r"623a\.3\(b\)\(2\), 623a\.5\(j\)") as err:
        craps.place(state, second)
    assert err.value.code == "outside_limits"
    with pytest.raises(WagerRefused, match="outside_limits"):
        craps.place_many(empty, [first, second])
    craps.place(state, second._replace(seat=1))
    down = craps.reduce(state, "a", TOP.table_max - second.amount).state
    assert craps.place(down, second).state.wager("b").amount == second.amount


def test_a_split_pass_line_no_longer_multiplies_the_odds_623a_6_e():
    """Two $5,000 Pass Bets were taken, then $30,000 of odds (3x the $10,000 'flat')."""
    state = table(Wager.of("p1", "pass", 500_000), options=TOP)
    with pytest.raises(WagerRefused, match="outside_limits"):
        craps.place(state, Wager.of("p2", "pass", 500_000))
    state = craps.settle(state, POINT[6]).state
    with pytest.raises(WagerRefused, match=r"623a\.6\(e\)"):
        craps.place(state, Wager.of("o", "pass_odds", 1_500_001))
    craps.place(state, Wager.of("o", "pass_odds", 1_500_000))  # 623a.6(e): odds may pass it


def test_a_come_bet_on_its_point_is_not_on_the_come_area_623a_3_a_3():
    """A Come Bet moved to the 8 is a bet on the 8; a new Come Bet starts at the maximum."""
    state = craps.place(table(rolls=[POINT[4]], options=TOP), Wager.of("c1", "come", 500_000))
    state = craps.settle(state.state, POINT[8]).state
    assert state.wager("c1").point == 8
    state = craps.place(state, Wager.of("c2", "come", 500_000)).state
    state, placed, _ = craps.place_many(state, [Wager.of("d1", "dont_come", 500_000)])
    assert len(placed) == 1


def test_sixteen_fire_bet_areas_at_most_623a_2_d_4_i():
    """A layout has no more than 16 Fire Bet areas, one per player position (623a.2(d)(4)(i));
    on a 21-position table the Fire Bets of positions 16-20 (areas 17-21) were accepted."""
    state = table(Wager.of("f15", "fire", 500, seat=15))
    for seat in (16, 20):
        with pytest.raises(WagerRefused, match=r"623a\.2\(d\)\(4\)\(i\)") as err:
            craps.place(state, Wager.of("f", "fire", 500, seat=seat))
        assert err.value.code == "bad_seat"
        with pytest.raises(WagerRefused, match="bad_seat"):
            craps.place_many(state, [Wager.of("f", "fire", 500, seat=seat)])
    assert craps.place(state, Wager.of("p", "pass", 500, seat=20)).wager.seat == 20


@pytest.mark.parametrize("name", ["fire", "all_small", "all_tall", "all_or_nothing"])
def test_fire_and_bonus_wait_for_the_new_shooters_come_out_roll_623a_3_a_40_43(name):
    """A shooter who passes the dice in the middle of a point (623a.10(a)) leaves the point to
    the next one. Fire and Bonus Craps wagers are made "prior to the come out roll of a new
    shooter" (623a.3(a)(40)), "immediately prior to the come out roll" (623a.3(a)(43)), "prior
    to a new shooter's initial come out roll" (623a.11(a)(1), 623a.12(1)): not before the
    new shooter's point rolls (they were accepted there, the point already known), but
    before the come out roll that follows, even though the shooter has rolled by then."""
    state = craps.change_shooter(table(rolls=[POINT[6]]))
    with pytest.raises(WagerRefused, match=r"bet_closed.*623a\.3\(a\)") as err:
        craps.place(state, Wager.of("x", name, 500))
    assert "come out" in err.value.message
    state = craps.settle(state, (5, 6)).state  # an 11, the point still on
    with pytest.raises(WagerRefused, match="bet_closed"):
        craps.place(state, Wager.of("x", name, 500))
    state = craps.settle(state, POINT[6]).state  # the point made: his come out roll is next
    placed = craps.place(state, Wager.of("x", name, 500))
    assert placed.wager.shooter == (2 if name == "fire" else None)
    state = craps.settle(placed.state, (5, 6)).state  # his initial come out roll, an 11
    with pytest.raises(WagerRefused, match="bet_closed"):
        craps.place(state, Wager.of("y", name, 500, seat=1))


def test_a_seven_out_of_a_taken_over_point_opens_fire_bets_for_the_next_shooter():
    state = craps.change_shooter(table(rolls=[POINT[4]]))
    state = craps.settle(state, (3, 4)).state  # shooter 2 sevens out on shooter 1's point
    assert craps.place(state, Wager.of("f", "fire", 500)).wager.shooter == 3


@pytest.mark.parametrize(("name", "before"), [("dont_pass", []), ("dont_come", [POINT[4]])])
def test_a_reduced_or_removed_dont_bet_is_not_increased_or_replaced_623a_4_d(name, before):
    """623a.4(d): a Don't Pass or Don't Come Bet "may not be replaced or increased after the
    bet has been removed or reduced". Chips put back on the seat's spot were accepted."""
    state = craps.place(table(rolls=before), Wager.of("d", name, 1000)).state
    reduced = craps.reduce(state, "d", 500).state
    removed = craps.reduce(state, "d", 0).state
    for after in (reduced, removed):
        with pytest.raises(WagerRefused, match=r"623a\.4\(d\)") as err:
            craps.place(after, Wager.of("d2", name, 500))
        assert err.value.code == "dont_reduced"
        with pytest.raises(WagerRefused, match="dont_reduced"):
            craps.place_many(after, [Wager.of("d2", name, 500)])
        assert craps.place(after, Wager.of("o", name, 500, seat=1)).wager.seat == 1
    # The roll that follows decides (or moves) the bet: the next one is a new bet.
    nxt = craps.settle(removed, (1, 2)).state
    assert craps.place(nxt, Wager.of("d3", name, 500)).wager.amount == 500


@pytest.mark.parametrize(("name", "before", "others"), [
    ("dont_pass", [], [("pass", {}), ("place_to_win", {"number": 6}),
                       ("hardway", {"number": 8}), ("buy", {"number": 4}),
                       ("all_small", {})]),
    ("dont_come", [POINT[4]], [("place_to_lose", {"number": 5}), ("come", {}),
                               ("lay", {"number": 10}), ("dont_pass_odds", {})]),
])
def test_a_reduced_dont_bet_locks_only_its_own_spot_623a_4_d(name, before, others):
    """623a.4(d) forbids replacing or increasing the Don't Pass or Don't Come Bet that was
    reduced, nothing else: the same seat's Place, Pass, Come, Buy, Lay, Hardway, Bonus
    Craps wagers and lay odds are other bets. They were refused `dont_reduced` until the
    next roll (every name but dont_come shared the Don't Pass area's bit)."""
    flats = [Wager.of("dp", "dont_pass", 1000)] if name == "dont_come" else []
    state = table(*flats, rolls=before)
    state = craps.place(state, Wager.of("d", name, 1000)).state
    after = craps.reduce(state, "d", 500).state
    for i, (other, params) in enumerate(others):
        placed = craps.place(after, Wager.of(f"x{i}", other, 1000, **params))
        assert placed.wager.name == other
        assert craps.place_many(after, [Wager.of(f"x{i}", other, 1000, **params)])[1]


def test_which_wagers_the_next_roll_can_decide_623a_4_c():
    """After the throw a wager comes down only if the roll cannot decide it (623a.4(c))."""
    state = table(Wager.of("pass", "pass", 1000), Wager.of("p6", "place_to_win", 1200, number=6),
                  Wager.of("h8", "hardway", 500, number=8), Wager.of("l4", "lay", 2000, number=4),
                  Wager.of("fire", "fire", 500))
    state = craps.set_working(state, "h8", True)
    decided = {w.id: craps.decided_by_next_roll(state, w.id) for w in state.wagers}
    # Place off on the come out (623a.3(a)(5)); a Lay is on (623a.3(a)(42)); a Fire Bet is
    # decided by a loser 7 only (623a.11(a)(5)).
    assert decided == {"pass": True, "p6": False, "h8": True, "l4": True, "fire": False}
    assert craps.decided_by_next_roll(craps.settle(state, POINT[4]).state, "p6")
    assert not craps.decided_by_next_roll(state, "nope")


def test_which_wagers_a_run_of_pending_rolls_can_decide_623a_4_c():
    """Rolls held or queued for review may each be decided as any faces, or voided
    (623a.9(c)); a wager comes down only if none of them can decide it (623a.4(c)). A
    Place Bet off on the come out roll is not decided by that roll, but by the next one
    once the come out sets a point; marked off, by neither; a Fire Bet by the first loser
    7, which takes two rolls (623a.11(a)(5))."""
    state = table(Wager.of("p6", "place_to_win", 1200, number=6), Wager.of("f", "fire", 500),
                  Wager.of("x6", "place_to_win", 1200, number=6, seat=1))
    state = craps.set_working(state, "x6", False)
    runs = {k: {w.id: craps.decided_by_next_roll(state, w.id, k) for w in state.wagers}
            for k in (1, 2, 40)}
    assert runs[1] == {"p6": False, "f": False, "x6": False}
    assert runs[2] == runs[40] == {"p6": True, "f": True, "x6": False}
    assert not craps.decided_by_next_roll(state, "nope", 3)
