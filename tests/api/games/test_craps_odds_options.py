"""Craps house options for odds (623a.6), Buy, Lay and Place to Lose (623a.3(a)(6),(41),(42)),
and Don't bets coming down with their lay odds (623a.4(d), 623a.6)."""

from __future__ import annotations

import pytest

from dicecall.api.games import craps, serialize
from dicecall.api.games.craps_options import CrapsOptions
from dicecall.api.games.errors import OptionsRefused, WagerRefused
from dicecall.api.games.model import Wager

from .craps_helpers import POINT, table

THREE_FOUR_FIVE = {4: 3, 5: 4, 6: 5, 8: 5, 9: 4, 10: 3}



def refused(state, wager) -> WagerRefused:
    with pytest.raises(WagerRefused) as err:
        craps.place(state, wager)
    return err.value


# 623a.6: odds limits per point number


@pytest.mark.parametrize(("point", "most"), [(4, 3000), (5, 4000), (6, 5000), (8, 5000),
                                             (9, 4000), (10, 3000)])
def test_three_four_five_x_odds_on_a_pass_bet_623a_6_a_e(point, most):
    """623a.6(e): up to ten times the Pass Bet, the house setting the multiple; "3-4-5x"
    is 3x on 4 and 10, 4x on 5 and 9, 5x on 6 and 8 (each pays six times the flat bet)."""
    state = table(Wager.of("p", "pass", 1000), rolls=[POINT[point]],
                  options=CrapsOptions(odds_multiple=THREE_FOUR_FIVE))
    placed = craps.place(state, Wager.of("o", "pass_odds", most)).state
    err = refused(state, Wager.of("o", "pass_odds", most + 1))
    assert (err.code, err.section) == ("outside_limits", "623a.6(e)")
    line = next(x for x in craps.settle(placed, POINT[point]).lines if x.wager_id == "o")
    assert (line.result, line.paid) == ("win", 6000)


def test_three_four_five_x_odds_on_a_come_bet_623a_6_c_e():
    state = table(rolls=[POINT[4]], options=CrapsOptions(odds_multiple=THREE_FOUR_FIVE))
    state = craps.place(state, Wager.of("c", "come", 1000)).state
    state = craps.settle(state, POINT[5]).state  # the Come Bet travels to the 5
    craps.place(state, Wager.of("o", "come_odds", 4000, number=5))
    assert refused(state, Wager.of("o", "come_odds", 4001, number=5)).code == "outside_limits"


@pytest.mark.parametrize(("point", "most", "wins"), [(4, 6000, 3000), (5, 6000, 4000),
                                                     (6, 6000, 5000), (10, 6000, 3000)])
def test_lay_odds_are_limited_by_their_winnings_per_point_623a_6_b_e(point, most, wins):
    """623a.6(b),(e): lay odds "calculated as to provide winnings not in excess of" the
    multiple of the Don't Pass Bet. Left unset, the lay multiples are the take ones: with
    3-4-5x, lay to win 3x, 4x, 5x: six times the flat bet laid on every number."""
    state = table(Wager.of("d", "dont_pass", 1000), rolls=[POINT[point]],
                  options=CrapsOptions(odds_multiple=THREE_FOUR_FIVE))
    placed = craps.place(state, Wager.of("o", "dont_pass_odds", most)).state
    assert refused(state, Wager.of("o", "dont_pass_odds", most + 1)).code == "outside_limits"
    line = next(x for x in craps.settle(placed, (3, 4)).lines if x.wager_id == "o")
    assert (line.result, line.paid) == ("win", wins)


def test_lay_odds_may_have_their_own_multiples_623a_6_d_e():
    options = CrapsOptions(odds_multiple=2, lay_odds_multiple={4: 6, 5: 6, 6: 6, 8: 6, 9: 6,
                                                                10: 10})
    state = craps.place(table(rolls=[POINT[5]], options=options),
                        Wager.of("c", "dont_come", 1000)).state
    state = craps.settle(state, POINT[10]).state  # the Don't Come travels to the 10
    craps.place(state, Wager.of("o", "dont_come_odds", 20_000, number=10))  # wins 10x
    assert refused(state, Wager.of("o", "dont_come_odds", 20_001, number=10)).code == \
        "outside_limits"
    pass_state = table(Wager.of("p", "pass", 1000), rolls=[POINT[10]], options=options)
    assert refused(pass_state, Wager.of("o", "pass_odds", 2001)).code == "outside_limits"


def test_one_multiple_still_covers_every_point_and_stored_tables_load():
    """Tables stored with `odds_multiple: 3` read back as they were and keep their limit."""
    options = serialize.options_from_json("craps", {"odds_multiple": 3})
    assert options.odds_multiple == 3 and options.lay_odds_multiple is None
    assert serialize.options_to_json(options)["odds_multiple"] == 3
    assert {options.odds_limit(n, lay) for n in (4, 6, 10) for lay in (False, True)} == {3}


def test_per_point_odds_survive_storage_with_text_keys():
    data = {"odds_multiple": {str(n): m for n, m in THREE_FOUR_FIVE.items()},
            "lay_odds_multiple": 6}
    options = serialize.options_from_json("craps", data)
    assert options == CrapsOptions(odds_multiple=THREE_FOUR_FIVE, lay_odds_multiple=6)
    stored = serialize.options_to_json(options)
    assert stored["odds_multiple"] == data["odds_multiple"]
    assert serialize.options_from_json("craps", stored) == options
    state = table(options=options)
    assert serialize.loads(serialize.dumps("craps", state)) == state
    hash(state)  # states are graph nodes for the house edge: options must hash


@pytest.mark.parametrize("value", [
    pytest.param({4: 3, 5: 4, 6: 5, 8: 5, 9: 4}, id="a-point-missing"),
    pytest.param({**THREE_FOUR_FIVE, 7: 2}, id="7-is-no-point"),
    pytest.param({**THREE_FOUR_FIVE, 6: 11}, id="623a.6(e)-over-ten-times"),
    pytest.param({**THREE_FOUR_FIVE, 6: 0}, id="623a.6(a)-at-least-once"),
    pytest.param({**THREE_FOUR_FIVE, 6: 2.5}, id="whole-multiples"),
    pytest.param({**THREE_FOUR_FIVE, 6: True}, id="bool-is-no-multiple"),
    pytest.param(11, id="623a.6(e)-one-multiple-over-ten"),
    pytest.param("3", id="text"),
])
@pytest.mark.parametrize("option", ["odds_multiple", "lay_odds_multiple"])
def test_odds_multiples_outside_the_regulation_are_refused_623a_6_e(option, value):
    with pytest.raises(OptionsRefused) as err:
        CrapsOptions(**{option: value})
    assert (err.value.code, err.value.section) == ("bad_option", "623a.6(e)")


@pytest.mark.parametrize("key", ["four", "-4", "4.0", "04"])
def test_stored_per_point_keys_are_point_numbers(key):
    with pytest.raises(OptionsRefused, match="bad_option"):
        serialize.options_from_json("craps", {"odds_multiple": {
            **{str(n): 3 for n in POINT}, key: 3}})


def test_catalog_states_the_tables_odds_limits():
    specs = CrapsOptions(odds_multiple=THREE_FOUR_FIVE).specs
    assert specs[("pass_odds", ())].notes == \
        "up to 3x the Pass Bet on 4, 10; 4x on 5, 9; 5x on 6, 8"
    assert specs[("dont_come_odds", (("number", 6),))].notes == \
        "laid to win up to 5x the Don't Come Bet"


# 623a.6(f): odds above the limit so that they pay a whole amount


def test_odds_above_the_limit_paid_in_whole_amounts_623a_6_f():
    """$5 Pass Bet on the 5 at 1x: $5 of odds would pay $7.50; with the option, $6 (paying
    $9) is accepted, the excess being "necessary to facilitate the payouts"; $5.50 (paying
    $8.25) and $7 are not."""
    rolls = [POINT[5]]
    plain = table(Wager.of("p", "pass", 500), rolls=rolls, options=CrapsOptions(odds_multiple=1))
    assert refused(plain, Wager.of("o", "pass_odds", 600)).section == "623a.6(e)"
    options = CrapsOptions(odds_multiple=1, odds_whole_payout=100)
    state = table(Wager.of("p", "pass", 500), rolls=rolls, options=options)
    craps.place(state, Wager.of("o", "pass_odds", 500))
    placed = craps.place(state, Wager.of("o", "pass_odds", 600)).state
    for amount in (550, 700):
        err = refused(state, Wager.of("o", "pass_odds", amount))
        assert (err.code, err.section) == ("outside_limits", "623a.6(e),(f)")
    line = next(x for x in craps.settle(placed, POINT[5]).lines if x.wager_id == "o")
    assert (line.paid, line.remainder) == (900, 0)


def test_lay_odds_above_the_limit_win_a_whole_amount_623a_6_f():
    """$7.50 Don't Pass on the 4 at 1x: lay $15 to win $7.50, or $16 to win $8."""
    options = CrapsOptions(odds_multiple=1, odds_whole_payout=100)
    state = table(Wager.of("d", "dont_pass", 750), rolls=[POINT[4]], options=options)
    placed = craps.place(state, Wager.of("o", "dont_pass_odds", 1600)).state
    assert refused(state, Wager.of("o", "dont_pass_odds", 1550)).code == "outside_limits"
    line = next(x for x in craps.settle(placed, (3, 4)).lines if x.wager_id == "o")
    assert line.paid == 800


@pytest.mark.parametrize("unit", [0, -100, True, 1.5])
def test_whole_payout_unit_is_positive_cents_623a_6_f(unit):
    with pytest.raises(OptionsRefused) as err:
        CrapsOptions(odds_whole_payout=unit)
    assert err.value.section == "623a.6(f)"


# 623a.3(a)(6),(41),(42): Buy, Lay and Place to Lose


@pytest.mark.parametrize(("options", "offered", "refused_with"), [
    pytest.param({"buy": False}, ["lay", "place_to_lose"], {"buy": "623a.3(a)(41)"},
                 id="623a.3(a)(41)-lay-without-buy"),
    pytest.param({"lay": False}, ["buy", "place_to_lose"], {"lay": "623a.3(a)(42)"},
                 id="623a.3(a)(42)-buy-without-lay"),
    pytest.param({"place_to_lose": False}, ["buy", "lay"],
                 {"place_to_lose": "623a.3(a)(6),(42)"}, id="623a.3(a)(42)-lay-in-lieu"),
    pytest.param({"buy_lay": False}, ["place_to_lose"],
                 {"buy": "623a.3(a)(41)", "lay": "623a.3(a)(42)"}, id="older-buy_lay-off"),
    pytest.param({"buy_lay": True, "place_to_lose": False}, ["buy", "lay"],
                 {"place_to_lose": "623a.3(a)(6),(42)"}, id="older-buy_lay-on"),
])
def test_buy_lay_and_place_to_lose_are_each_the_houses_choice(options, offered, refused_with):
    state = table(rolls=[POINT[4]], options=CrapsOptions(**options))
    for name in offered:
        craps.place(state, Wager.of("w", name, 2000, number=6))
    for name, section in refused_with.items():
        err = refused(state, Wager.of("w", name, 2000, number=6))
        assert (err.code, err.section) == ("unknown_wager", section)
        assert not any(n == name for n, _ in state.options.specs)


def test_place_to_lose_comes_off_only_in_lieu_of_lay_623a_3_a_42():
    for options in ({"place_to_lose": False, "lay": False},
                    {"place_to_lose": False, "buy_lay": False}):
        with pytest.raises(OptionsRefused) as err:
            CrapsOptions(**options)
        assert err.value.section == "623a.3(a)(42)"


def test_the_older_buy_lay_option_loads_and_is_stored_as_buy_and_lay():
    """A table stored with `buy_lay` reads back as both, and is written back without it."""
    for old, both in ((False, False), (True, True)):
        options = serialize.options_from_json("craps", {"buy_lay": old})
        assert (options.buy, options.lay) == (both, both)
        stored = serialize.options_to_json(options)
        assert "buy_lay" not in stored and (stored["buy"], stored["lay"]) == (both, both)
    with pytest.raises(OptionsRefused, match="contradicts"):
        CrapsOptions(buy_lay=False, lay=True)
    assert CrapsOptions(buy_lay=False, lay=False) == CrapsOptions(buy=False, lay=False)


# 623a.4(d), 623a.6: a Don't bet comes down with its lay odds


def test_removing_a_dont_pass_takes_its_lay_odds_down_with_it_623a_4_d():
    """623a.4(d): removed "at any time"; the odds supported it (623a.6(b)) and come down
    too (623a.4(c)). The seat's other wagers and other seats' odds stay."""
    state = table(Wager.of("d", "dont_pass", 1000), Wager.of("d1", "dont_pass", 1000, seat=1),
                  rolls=[POINT[4]])
    state = craps.place(state, Wager.of("o", "dont_pass_odds", 2000)).state
    state = craps.place(state, Wager.of("o1", "dont_pass_odds", 2000, seat=1)).state
    state = craps.place(state, Wager.of("pl", "place_to_lose", 1100, number=4)).state
    change = craps.reduce(state, "d", 0)
    assert change.returned == 3000
    assert [w.id for w in change.state.wagers] == ["d1", "o1", "pl"]
    assert [(x.wager_id, x.returned, x.note) for x in change.also] == \
        [("o", 2000, "removed with the dont_pass bet")]
    assert change.also[0].section == "623a.4(c), 623a.6(b),(e)"
    assert change.line.returned + sum(x.returned for x in change.also) == change.returned


def test_reducing_a_dont_pass_keeps_the_odds_its_new_amount_allows_623a_4_d_6_e():
    """3x: the $10 bet on the 4 lays $60 to win $30; reduced to $6 it supports $36 of odds
    (winnings $18): the other $24 come back, the latest odds first."""
    state = table(Wager.of("d", "dont_pass", 1000), rolls=[POINT[4]])
    state = craps.place(state, Wager.of("o1", "dont_pass_odds", 4000)).state
    state = craps.place(state, Wager.of("o2", "dont_pass_odds", 2000)).state
    change = craps.reduce(state, "d", 600)
    assert change.returned == 400 + 2400
    assert {w.id: w.amount for w in change.state.wagers} == {"d": 600, "o1": 3600}
    assert [(x.wager_id, x.returned) for x in change.also] == [("o2", 2000), ("o1", 400)]
    within = craps.reduce(craps.reduce(state, "o2", 0).state, "d", 700)  # $40 <= $42
    assert within.also == () and within.state.wager("o1").amount == 4000
    line = next(x for x in craps.settle(change.state, (3, 4)).lines if x.wager_id == "o1")
    assert line.paid == 1800


def test_a_reduced_dont_bet_keeps_odds_that_pay_whole_623a_6_f():
    """With 623a.6(f), what the reduced bet allows includes the amount that pays whole."""
    options = CrapsOptions(odds_multiple=1, odds_whole_payout=100, table_min=100)
    state = table(Wager.of("d", "dont_pass", 1000), rolls=[POINT[4]], options=options)
    state = craps.place(state, Wager.of("o", "dont_pass_odds", 2000)).state
    change = craps.reduce(state, "d", 750)  # limit $15 (wins $7.50); $16 wins $8
    assert change.state.wager("o").amount == 1600 and change.returned == 250 + 400


def test_a_dont_come_on_its_point_comes_down_with_its_odds_only_623a_4_d_6_d():
    state = table(rolls=[POINT[4]])
    state = craps.place(state, Wager.of("d6", "dont_come", 1000)).state
    state = craps.settle(state, POINT[6]).state
    state = craps.place(state, Wager.of("d8", "dont_come", 1000)).state
    state = craps.settle(state, POINT[8]).state
    for wid, n in (("o6", 6), ("o8", 8)):
        state = craps.place(state, Wager.of(wid, "dont_come_odds", 1200, number=n)).state
    change = craps.reduce(state, "d8", 0)
    assert [w.id for w in change.state.wagers] == ["d6", "o6"]
    assert [(x.wager_id, x.section) for x in change.also] == \
        [("o8", "623a.4(c), 623a.6(d),(e)")]
    assert change.returned == 2200
