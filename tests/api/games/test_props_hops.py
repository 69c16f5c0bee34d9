"""Props & Hops (58 Pa. Code 668a), written from the regulation text; sections in the ids."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import combinations

import pytest

from dicecall.api.games import props_hops as ph
from dicecall.api.games.catalog import house_edge
from dicecall.api.games.errors import OptionsRefused, RollRefused, WagerRefused
from dicecall.api.games.model import Wager
from dicecall.api.games.props_hops_options import PropsHopsOptions
from dicecall.api.games.props_hops_rules import SHAKE_ALL, SHAKE_BIT, SHAKE_PAIRS, ways
from dicecall.api.games.registry import get


def check(line):
    """Money is conserved on every line: back, kept or staying adds up to the stake."""
    assert line.returned + line.collected + (line.stake if line.stays else 0) == line.stake
    assert min(line.paid, line.returned, line.collected) >= 0


def table(*wagers, options=None, rolls=()):
    state = ph.new_table(options)
    for w in wagers:
        state = ph.place(state, w).state
    for dice in rolls:
        state = roll(state, dice).state
    return state


def roll(state, dice):
    result = ph.settle(state, dice)
    for line in result.lines:
        check(line)
    return result


def one(name, faces, amount=1000, options=None, **params):
    """Places one wager, rolls `faces`, returns the wager's line."""
    result = roll(table(Wager.of("w", name, amount, **params), options=options), faces)
    assert result.state.wagers == ()  # every one-roll wager is decided by the next roll
    (line,) = result.lines
    return line


WIN, LOSE = "win", "lose"
ONE_ROLL = [  # (name, params, faces, result, paid on $10)
    *[pytest.param("double", {"face": f}, (f, f), WIN, 30000, id=f"668a.2(d)({f})-win")
      for f in range(1, 7)],
    pytest.param("double", {"face": 2}, (1, 3), LOSE, 0, id="668a.2(d)(2)-easy-4-loses"),
    pytest.param("double", {"face": 6}, (5, 6), LOSE, 0, id="668a.2(d)(6)-11-loses"),
    pytest.param("any_number", {"dice": [1, 2]}, (2, 1), WIN, 15000, id="668a.2(e)(1)-win"),
    pytest.param("any_number", {"dice": [2, 1]}, (1, 2), WIN, 15000, id="668a.2(e)(1)-order"),
    pytest.param("any_number", {"dice": [1, 3]}, (2, 2), LOSE, 0, id="668a.2(e)(2)-hard-4"),
    pytest.param("any_number", {"dice": [1, 6]}, (6, 1), WIN, 15000, id="668a.2(e)(5)-win"),
    pytest.param("any_number", {"dice": [1, 6]}, (2, 5), LOSE, 0, id="668a.2(e)(5)-other-7"),
    pytest.param("any_number", {"dice": [3, 4]}, (4, 3), WIN, 15000, id="668a.2(e)(10)-win"),
    pytest.param("any_number", {"dice": [5, 6]}, (6, 6), LOSE, 0, id="668a.2(e)(15)-lose"),
    pytest.param("field", {}, (1, 1), WIN, 2000, id="668a.2(f)(1)-2-pays-2-to-1"),
    pytest.param("field", {}, (6, 6), WIN, 2000, id="668a.2(f)(1)-12-pays-2-to-1"),
    *[pytest.param("field", {}, d, WIN, 1000, id=f"668a.2(f)(1)-{sum(d)}-even")
      for d in [(1, 2), (1, 3), (3, 6), (4, 6), (5, 6)]],
    *[pytest.param("field", {}, d, LOSE, 0, id=f"668a.2(f)(1)-{sum(d)}-loses")
      for d in [(1, 4), (3, 3), (3, 4), (2, 6)]],
    pytest.param("hop_the_top", {}, (1, 1), WIN, 1500, id="668a.2(f)(2)-1-1-3-to-2"),
    pytest.param("hop_the_top", {}, (4, 3), WIN, 1500, id="668a.2(f)(2)-3-4"),
    pytest.param("hop_the_top", {}, (5, 5), LOSE, 0, id="668a.2(f)(2)-lose"),
    pytest.param("hop_the_left", {}, (2, 2), WIN, 2000, id="668a.2(f)(3)-2-2-2-to-1"),
    pytest.param("hop_the_left", {}, (6, 6), LOSE, 0, id="668a.2(f)(3)-lose"),
    pytest.param("hop_the_right", {}, (6, 5), WIN, 2000, id="668a.2(f)(4)-5-6-2-to-1"),
    pytest.param("hop_the_right", {}, (1, 1), LOSE, 0, id="668a.2(f)(4)-lose"),
    pytest.param("hop_the_center", {}, (6, 6), WIN, 1500, id="668a.2(f)(5)-6-6-3-to-2"),
    pytest.param("hop_the_center", {}, (1, 2), LOSE, 0, id="668a.2(f)(5)-lose"),
    pytest.param("one_six_and_under", {}, (6, 1), WIN, 1000, id="668a.2(f)(6)-the-1-6"),
    pytest.param("one_six_and_under", {}, (3, 3), WIN, 1000, id="668a.2(f)(6)-6-is-under"),
    pytest.param("one_six_and_under", {}, (1, 1), WIN, 1000, id="668a.2(f)(6)-2"),
    pytest.param("one_six_and_under", {}, (2, 5), LOSE, 0, id="668a.2(f)(6)-other-7"),
    pytest.param("one_six_and_under", {}, (4, 4), LOSE, 0, id="668a.2(f)(6)-8"),
    pytest.param("three_four_and_over", {}, (4, 3), WIN, 1000, id="668a.2(f)(7)-the-3-4"),
    pytest.param("three_four_and_over", {}, (4, 4), WIN, 1000, id="668a.2(f)(7)-8-is-over"),
    pytest.param("three_four_and_over", {}, (6, 6), WIN, 1000, id="668a.2(f)(7)-12"),
    pytest.param("three_four_and_over", {}, (1, 6), LOSE, 0, id="668a.2(f)(7)-other-7"),
    pytest.param("three_four_and_over", {}, (3, 3), LOSE, 0, id="668a.2(f)(7)-6"),
]


@pytest.mark.parametrize(("name", "params", "faces", "result", "paid"), ONE_ROLL)
def test_one_roll_wagers_668a_4(name, params, faces, result, paid):
    line = one(name, faces, **params)
    assert (line.result, line.paid, line.remainder) == (result, paid, 0)
    assert line.returned == (1000 if result == WIN else 0)


B = SHAKE_BIT
SHAKE = [  # (rolls after placing, result or None while undecided, progress left)
    pytest.param([(1, 5), (2, 4), (3, 3), (2, 6), (3, 5)], None, SHAKE_ALL ^ B[(4, 4)],
                 id="668a.2(f)(8)-five-of-six-undecided"),
    pytest.param([(5, 1), (4, 2), (3, 3), (6, 2), (5, 3), (4, 4)], WIN, None,
                 id="668a.2(f)(8)-all-six-pays-150-to-1"),
    pytest.param([(1, 5), (1, 1), (1, 5), (2, 4), (3, 3), (5, 6), (2, 6), (3, 5), (4, 4)], WIN,
                 None, id="668a.2(f)(8)-repeats-and-others-do-not-matter"),
    pytest.param([(1, 5), (2, 4), (4, 3)], LOSE, None, id="668a.2(f)(8)-7-loses"),
    pytest.param([(6, 1)], LOSE, None, id="668a.2(f)(8)-1-6-is-a-7"),
    pytest.param([(1, 1), (6, 6), (2, 2)], None, 0, id="668a.2(f)(8)-no-6-or-8"),
    pytest.param([(1, 5), (1, 5)], None, B[(1, 5)], id="668a.2(f)(8)-one-lammer"),
]


@pytest.mark.parametrize(("rolls", "result", "progress"), SHAKE)
def test_six_eight_shake_668a_2_f_8(rolls, result, progress):
    state = table(Wager.of("s", "six_eight_shake", 1000))
    lines = []
    for dice in rolls:
        r = roll(state, dice)
        lines += r.lines
        state = r.state
    if result is None:
        assert lines == [] and state.wager("s").progress == progress
        return
    assert [(x.result, x.paid) for x in lines] == [(result, 150_000 if result == WIN else 0)]
    assert state.wager("s") is None


def test_six_eight_shake_counts_only_rolls_after_it_is_placed():
    state = table(rolls=[(1, 5), (2, 4), (3, 3)])
    assert state.lammers == B[(1, 5)] | B[(2, 4)] | B[(3, 3)]  # 668a.3(i): the table's lammers
    state = ph.place(state, Wager.of("s", "six_eight_shake", 500)).state
    for dice in [(2, 6), (3, 5), (4, 4)]:
        state = roll(state, dice).state
    assert state.wager("s").progress == B[(2, 6)] | B[(3, 5)] | B[(4, 4)]


def test_seven_passes_the_shaker_668a_3_k():
    state = table(rolls=[(1, 5), (2, 2)])
    assert (state.shooter, state.shooter_seat, state.rolls) == (1, 0, 2)
    result = roll(state, (3, 4))
    assert result.events == ("seven", "new_shooter")
    assert (result.state.shooter, result.state.shooter_seat, result.state.lammers) == (2, 1, 0)
    assert result.state == ph.new_table()  # shooter, lammers and counters do not settle wagers


def test_removal_668a_2_a_and_668a_2_f_8():
    state = ph.close_betting(table(Wager.of("s", "six_eight_shake", 1000),
                                   Wager.of("f", "field", 1000)))
    with pytest.raises(WagerRefused, match=r"not_removable.*668a\.2"):
        ph.reduce(state, "f")  # one-roll wagers ride the roll once betting is closed
    change = ph.reduce(state, "s", 500)  # the Six Eight Shake comes down any time before a 7
    check(change.line)
    assert (change.returned, change.state.wager("s").amount) == (500, 500)
    assert [w.id for w in ph.reduce(change.state, "s").state.wagers] == ["f"]
    open_state = roll(state, (1, 1)).state  # the next roll opens betting again
    assert open_state.betting_open and ph.reduce(open_state, "s").returned == 1000


BAD_WAGERS = [
    pytest.param(Wager.of("x", "pass", 1000), "unknown_wager", id="668a.2-no-pass-bet"),
    pytest.param(Wager.of("x", "double", 1000, face=7), "bad_params", id="668a.2(d)-face-7"),
    pytest.param(Wager.of("x", "double", 1000), "bad_params", id="668a.2(d)-no-face"),
    pytest.param(Wager.of("x", "any_number", 1000, dice=[3, 3]), "bad_params",
                 id="668a.2(e)-a-double-is-not-any-number"),
    pytest.param(Wager.of("x", "field", 1000, number=2), "bad_params", id="668a.2(f)(1)-param"),
    pytest.param(Wager.of("x", "field", 99), "outside_limits", id="under-table-min"),
    pytest.param(Wager.of("x", "field", 100_001), "outside_limits", id="over-table-max"),
    pytest.param(Wager.of("x", "field", 0), "bad_amount", id="zero"),
    pytest.param(Wager("x", "field", 5.5), "bad_amount", id="not-cents"),
    pytest.param(Wager.of("x", "field", 1000, seat=6), "bad_seat", id="668a.1(a)-six-seats"),
]


@pytest.mark.parametrize(("wager", "code"), BAD_WAGERS)
def test_refused_wagers(wager, code):
    with pytest.raises(WagerRefused, match=code):
        ph.place(ph.new_table(), wager)


def test_refused_timing_and_ids():
    state = table(Wager.of("a", "field", 1000))
    with pytest.raises(WagerRefused, match="duplicate_id"):
        ph.place(state, Wager.of("a", "field", 1000))
    with pytest.raises(WagerRefused, match=r"bet_closed.*668a\.2\(a\)"):
        ph.place(ph.close_betting(state), Wager.of("b", "field", 1000))
    with pytest.raises(WagerRefused, match="unknown_id"):
        ph.reduce(state, "nope")
    with pytest.raises(WagerRefused, match="bad_amount"):
        ph.reduce(state, "a", 1000)
    with pytest.raises(WagerRefused, match="outside_limits"):
        ph.reduce(state, "a", 50)
    with pytest.raises(WagerRefused, match="bad_params"):
        Wager.of("x", "any_number", 1000, dice=[1, 2, 3])


@pytest.mark.parametrize("faces", [(1,), (1, 2, 3), (0, 3), (7, 1), ("6", 1), (True, 2)],
                         ids=["one-die", "three-dice", "face-0", "face-7", "str", "bool"])
def test_refused_rolls_668a_3_a_h(faces):
    with pytest.raises(RollRefused, match=r"668a\.3"):
        ph.settle(ph.new_table(), faces)


DEFAULT = {"top": [[1, 1], [1, 2], [1, 3], [1, 4], [2, 3], [2, 4], [3, 4]],
           "left": [[2, 2], [1, 5], [1, 6], [2, 5], [2, 6], [3, 5]],
           "right": [[5, 5], [2, 6], [3, 6], [4, 5], [4, 6], [5, 6]],
           "center": [[3, 3], [4, 4], [6, 6], [1, 5], [2, 4], [3, 4], [3, 5], [2, 5]]}
LAYOUTS = [  # (changes to the documented layout, refusal or None)
    pytest.param({}, None, id="documented-default"),
    pytest.param({"top": [[2, 1], [1, 1]]}, None, id="pairs-normalized"),
    pytest.param({"left": [[1, 2], [1, 3], [1, 4], [1, 5], [1, 6], [2, 3]]}, None,
                 id="668a.4-fair-12-of-36-at-2-to-1-is-no-player-edge"),
    pytest.param({"left": [[1, 2], [1, 3], [1, 4], [1, 5], [1, 6], [2, 3], [2, 2]]},
                 "668a.4", id="668a.4-13-of-36-at-2-to-1-favours-the-player"),
    pytest.param({"top": [[1, 2], [1, 3], [1, 4], [1, 5], [1, 6], [2, 3], [2, 4], [2, 5]]},
                 "668a.4", id="668a.4-16-of-36-at-3-to-2-favours-the-player"),
    pytest.param({"center": []}, "at least one", id="empty-box"),
    pytest.param({"top": [[1, 7]]}, "1-6", id="face-7"),
    pytest.param({"top": [[0, 1]]}, "1-6", id="face-0"),
    pytest.param({"top": [[1, 2, 3]]}, "two faces", id="three-faces"),
    pytest.param({"top": [[1, 2], [2, 1]]}, "twice", id="duplicate-in-a-box"),
    pytest.param({"bottom": [[1, 1]]}, "exactly the boxes", id="unknown-box"),
    pytest.param({"top": None}, "at least one", id="missing-combinations"),
]


@pytest.mark.parametrize(("change", "refusal"), LAYOUTS)
def test_hop_layout_validation_668a_2_f_2_5(change, refusal):
    layout = {**DEFAULT, **change}
    if refusal is None:
        options = PropsHopsOptions(hop_layout=layout)
        assert options.hop_pairs("top") == tuple(sorted(tuple(sorted(p)) for p in layout["top"]))
        return
    with pytest.raises(OptionsRefused, match=refusal):
        PropsHopsOptions(hop_layout=layout)


def test_layout_drives_settlement_and_defaults_match_the_documented_layout():
    assert PropsHopsOptions() == PropsHopsOptions(hop_layout=DEFAULT)
    missing = {k: v for k, v in DEFAULT.items() if k != "right"}
    with pytest.raises(OptionsRefused, match="exactly the boxes"):
        PropsHopsOptions(hop_layout=missing)
    options = PropsHopsOptions(hop_layout={**DEFAULT, "top": [[6, 6]]})
    assert one("hop_the_top", (6, 6), options=options).paid == 1500
    assert one("hop_the_top", (1, 1), options=options).result == LOSE


@pytest.mark.parametrize(("options", "bad"), [({"table_min": 0}, "table_min"),
                                              ({"table_min": 500, "table_max": 100}, "table"),
                                              ({"payout_unit": 0}, "payout_unit")])
def test_refused_options(options, bad):
    with pytest.raises(OptionsRefused, match=bad):
        PropsHopsOptions(**options)


def test_payouts_round_down_to_the_unit_with_the_remainder_reported_668a_4():
    line = one("hop_the_top", (1, 1), amount=101)  # 3 to 2 on $1.01 = 151.5 cents
    assert (line.paid, line.remainder) == (151, F(1, 2))
    line = one("hop_the_center", (3, 3), amount=1010, options=PropsHopsOptions(payout_unit=25))
    assert (line.paid, line.remainder) == (1500, 15)


def test_every_wager_every_roll_conserves_money_and_favours_the_house():
    rules = get("props-and-hops")
    state = rules.new_table(rules.options())
    names = {}
    for k, (name, params) in enumerate(sorted(state.options.specs, key=repr)):
        names[f"w{k}"] = name
        state = rules.place(state, Wager(f"w{k}", name, 1000, params, k % 6)).state
    net = dict.fromkeys(names, 0)
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            result = rules.settle(state, (d1, d2))
            assert result.state.rolls == 1 and rules.expected_dice(result.state) == 2
            for line in result.lines:
                check(line)
                net[line.wager_id] += line.net
    one_roll = {i: v for i, v in net.items() if names[i] != "six_eight_shake"}
    assert len(one_roll) == 28 and all(v < 0 for v in one_roll.values())
    (field,) = [i for i, n in names.items() if n == "field"]
    assert net[field] == -1000 * 36 // 18  # the Field's house edge is 1/18


def test_six_eight_shake_exact_house_edge_by_inclusion_exclusion_668a_4():
    """P(all six combinations before a 7) = sum over subsets S of (-1)^|S| p7 / (p7 + p(S))."""
    p7 = F(6, 36)
    win = sum((-1) ** n * p7 / (p7 + sum(F(ways(c), 36) for c in subset))
              for n in range(7) for subset in combinations(SHAKE_PAIRS, n))
    options = PropsHopsOptions()
    spec = options.specs[("six_eight_shake", ())]
    assert house_edge("props-and-hops", options, spec) == 1 - 151 * win


def test_table_limits_cite_no_section_668a_sets_none():
    """668a.1(b)(6) is about posting the payout odds; no section of 668a sets or posts wager
    limits (Craps has 623a.3(b),(c)), so a refusal by the house's limits cites none."""
    with pytest.raises(WagerRefused) as placed:
        ph.place(ph.new_table(), Wager.of("x", "field", 100_001))
    with pytest.raises(WagerRefused) as reduced:
        ph.reduce(table(Wager.of("a", "field", 1000)), "a", 50)
    with pytest.raises(OptionsRefused) as options:
        PropsHopsOptions(table_min=500, table_max=100)
    assert [e.value.section for e in (placed, reduced, options)] == [None, None, None]
