"""High Roll Dice (58 Pa. Code 675a, ten dice and the six-dice variation of 675a.6).

Every case is written from the regulation text; the section is in the case id.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction as F

import pytest

from dicecall.api.games import catalog, high_roll
from dicecall.api.games.errors import OptionsRefused, RollRefused, WagerRefused
from dicecall.api.games.high_roll_state import HighRollOptions
from dicecall.api.games.model import Wager
from dicecall.api.games.registry import get, outcomes

WIN, LOSE = "win", "lose"


def check(line):
    """Money is conserved on every line: back, kept or staying adds up to the stake."""
    assert line.returned + line.collected + (line.stake if line.stays else 0) == line.stake
    assert min(line.paid, line.returned, line.collected) >= 0


def W(wid, name, amount=1000, seat=0, **params):
    return Wager.of(wid, name, amount, seat, **params)


def table(*wagers, dice=10, **options):
    state = high_roll.new_table(HighRollOptions(dice=dice, **options))
    for w in wagers:
        state = high_roll.place(state, w).state
    return state


def roll(state, faces):
    result = high_roll.settle(state, faces)
    for line in result.lines:
        check(line)
    return result, {line.wager_id: (line.result, line.paid) for line in result.lines}


def first(name, faces, amount=1000, dice=None, **params):
    """Settles one wager (after the seat's Pip Street on the ace) on a first roll."""
    dice = dice or len(faces)
    wagers = [W("w", name, amount, **params)]
    if name != "pip_street":
        wagers.insert(0, W("p", "pip_street", 1000, face=1))
    result, lines = roll(table(*wagers, dice=dice), faces)
    assert result.state.wagers == () and "round_over" in result.events
    return lines["w"]


# Ten dice 675a.2(e), 675a.4(f), 675a.5(a)-(c); six dice 675a.6(d),(h),(j),(k).
E1I = (6, 6, 6, 4, 4, 4, 4, 2, 3, 5)  # 675a.2(e)(1)(i): three 6s and four 4s
E1II = (6, 6, 6, 1, 1, 1, 2, 3, 4, 5)  # 675a.2(e)(1)(ii): three 6s and three 1s
E2I = (6, 6, 6, 1, 1, 1, 1, 2, 3, 4)  # 675a.2(e)(2)(i): three 6s and four 1s
E2II = (2, 2, 2, 2, 2, 1, 1, 1, 3, 4)  # 675a.2(e)(2)(ii): five 2s and three 1s
F4 = (5, 5, 5, 5, 6, 6, 6, 1, 1, 4)  # 675a.4(e),(f): four 5s, three 6s, two 1s, one 4
NINE, TEN = (3,) * 9 + (2,), (2,) * 10
FIRST = [  # (name, params, faces, result, paid on $10)
    pytest.param("pip_street", {"face": 4}, E1I, WIN, 5000, id="675a.2(e)(1)(i)-4s-5-to-1"),
    pytest.param("pip_street", {"face": 6}, E1I, LOSE, 0, id="675a.2(e)(1)(i)-6s-lose"),
    pytest.param("pip_street", {"face": 1}, E1II, WIN, 3000, id="675a.2(e)(1)(ii)-ace-ranks"),
    pytest.param("pip_street", {"face": 6}, E1II, LOSE, 0, id="675a.2(e)(1)(ii)-6-lower"),
    pytest.param("pip_street", {"face": 5}, F4, WIN, 4000, id="675a.4(f)(1)-5-paid"),
    pytest.param("pip_street", {"face": 2}, F4, LOSE, 0, id="675a.4(f)(1)-2-collected"),
    pytest.param("pip_street", {"face": 2}, E2II, WIN, 6000, id="675a.5(a)-two-6-to-1"),
    pytest.param("pip_street", {"face": 3}, NINE, WIN, 6000, id="675a.5(a)-three-6-to-1"),
    pytest.param("pip_street", {"face": 6}, E1I[:3] * 3 + (1,), WIN, 4000,
                 id="675a.5(a)-six-4-to-1"),
    pytest.param("like_kind", {"count": 4}, E2I, WIN, 1000, id="675a.2(e)(2)(i)-four"),
    pytest.param("like_kind", {"count": 5}, E2II, WIN, 4000, id="675a.2(e)(2)(ii)-five"),
    pytest.param("like_kind", {"count": 4}, F4, WIN, 1000, id="675a.4(f)(2)(i)-four-paid"),
    *[pytest.param("like_kind", {"count": k}, F4, LOSE, 0, id=f"675a.4(f)(2)(i)-{k}-collected")
      for k in (2, 3, 5, 8)],
    pytest.param("like_kind", {"count": 2}, (1, 1, 2, 2, 3, 3, 4, 4, 5, 6), WIN, 12000,
                 id="675a.5(b)-two-12-to-1"),
    pytest.param("like_kind", {"count": 3}, E1II, WIN, 600, id="675a.5(b)-three-3-to-5"),
    pytest.param("like_kind", {"count": 6}, (4,) * 6 + (1, 2, 3, 5), WIN, 30000,
                 id="675a.5(b)-six-30-to-1"),
    pytest.param("like_kind", {"count": 7}, (4,) * 7 + (1, 2, 3), WIN, 400_000,
                 id="675a.5(b)-seven-400-to-1"),
    pytest.param("like_kind", {"count": 8}, (4,) * 8 + (1, 2), WIN, 5_000_000,
                 id="675a.5(b)-eight-5000-to-1"),
    pytest.param("like_kind", {"count": 8}, NINE, LOSE, 0, id="675a.5(b)-nine-is-no-circle"),
    pytest.param("millionaire_row", {"count": 9}, NINE, WIN, 5_000_000,
                 id="675a.4(f)(3)-nine-paid-50000"),
    pytest.param("millionaire_row", {"count": 10}, NINE, LOSE, 0, id="675a.4(f)(3)-ten-lost"),
    pytest.param("millionaire_row", {"count": 10}, TEN, WIN, 100_000_000,
                 id="675a.5(c)-ten-paid-1000000"),
    pytest.param("millionaire_row", {"count": 9}, TEN, LOSE, 0, id="675a.5(c)-nine-not-ten"),
    pytest.param("pip_street", {"face": 5}, (5, 5, 5, 6, 6, 4), WIN, 4000,
                 id="675a.6(h),(j)-three-5s"),
    pytest.param("pip_street", {"face": 2}, (2, 2, 2, 6, 6, 4), WIN, 8000,
                 id="675a.6(j)-two-8-to-1"),
    pytest.param("pip_street", {"face": 1}, (1, 2, 3, 4, 5, 6), WIN, 2000,
                 id="675a.6(j)-ace-2-to-1-on-no-match"),
    pytest.param("like_kind", {"count": 4}, (6, 6, 1, 1, 1, 1), WIN, 15000,
                 id="675a.6(d)(1)-four-15-to-1"),
    pytest.param("no_match", {}, (6, 1, 2, 5, 3, 4), WIN, 60000, id="675a.6(d)(2)-no-match"),
    pytest.param("no_match", {}, (6, 6, 1, 1, 1, 1), LOSE, 0, id="675a.6(d)(2)-lose"),
    pytest.param("like_kind", {"count": 2}, (1, 1, 2, 3, 4, 4), WIN, 500,
                 id="675a.6(k)-two-1-to-2"),
    pytest.param("like_kind", {"count": 6}, (3,) * 6, WIN, 6_000_000, id="675a.6(k)-six"),
    pytest.param("like_kind", {"count": 5}, (3,) * 6, LOSE, 0, id="675a.6(k)-five-lost"),
]


@pytest.mark.parametrize(("name", "params", "faces", "result", "paid"), FIRST)
def test_first_roll(name, params, faces, result, paid):
    amount = 100 if name == "millionaire_row" else 1000
    line = first(name, faces, amount, **params)
    assert line == (result, paid)


def extra_table(*counts, others=(), extra=True):
    """Seat 0: Pip Street on the ace, Like Kind on `counts`, maybe an Extra Roll."""
    wagers = [W("p", "pip_street", face=1), *[W(f"k{c}", "like_kind", count=c) for c in counts]]
    return table(*wagers, *([W("x", "extra_roll")] if extra else []), *others)


EXTRA = [  # (like kind counts, first roll, held, extra roll, {wager: (result, paid)} per roll)
    pytest.param((3, 4, 5), F4, (5, 4), (5, 2, 3, 4, 6, 1),
                 [{"k4": (WIN, 1000), "k3": (LOSE, 0), "x": (LOSE, 0)}, {"k5": (WIN, 2000)}],
                 id="675a.4(e),(f)(2)(ii)-four-paid-three-collected-five-left-up"),
    pytest.param((5,), (6, 6, 6, 4, 4, 4, 2, 2, 1, 1), (6, 3), (6, 6, 1, 2, 3, 4, 5),
                 [{"x": (LOSE, 0)}, {"k5": (WIN, 2000)}],
                 id="675a.4(g),(h)-three-6s-held-seven-rethrown-two-more-6s-five"),
    pytest.param((4, 5), F4, (5, 4), (1, 2, 3, 4, 6, 6),
                 [{"k4": (WIN, 1000), "x": (LOSE, 0)}, {"k5": (LOSE, 0)}],
                 id="675a.4(h)-four-not-paid-again-on-the-extra-roll"),
    pytest.param((6,), (6, 6, 1, 1, 1, 1, 2, 3, 4, 5), (1, 4), (1, 1, 2, 3, 4, 5),
                 [{"x": (LOSE, 0)}, {"k6": (WIN, 4000)}],
                 id="675a.2(e)(3)-two-more-1s-six-of-a-kind-4-to-1"),
    pytest.param((3, 8), (2, 2, 1, 1, 3, 3, 4, 4, 5, 6), (1, 2), (1,) * 6 + (4, 5),
                 [{"x": (LOSE, 0)}, {"k8": (WIN, 50_000), "k3": (LOSE, 0)}],
                 id="675a.5(d)-eight-50-to-1-two-of-a-kind-held-as-aces"),
    pytest.param((3,), (2, 2, 1, 1, 3, 3, 4, 4, 5, 6), (1, 2), (1, 2, 3, 4, 5, 6, 2, 3),
                 [{"x": (LOSE, 0)}, {"k3": (WIN, 6000)}], id="675a.5(d)-three-6-to-1"),
    pytest.param((7, 8), (4,) * 6 + (1, 2, 3, 5), (4, 6), (4, 4, 4, 1),
                 [{"x": (LOSE, 0), "k7": None}, {"k7": (LOSE, 0), "k8": (LOSE, 0)}],
                 id="675a.4(h)-nine-matches-no-circle"),
    pytest.param((8,), NINE, (3, 9), (3,),
                 [{"k8": (LOSE, 0), "x": (LOSE, 0)}, {}],
                 id="675a.4(g)-nine-on-the-first-roll-one-die-rethrown"),
]


@pytest.mark.parametrize(("counts", "faces", "held", "extra", "expect"), EXTRA)
def test_extra_roll_675a_4(counts, faces, held, extra, expect):
    state = extra_table(*counts)
    result, lines = roll(state, faces)
    assert {k: lines.get(k) for k in expect[0]} == expect[0]
    state = result.state
    assert (state.held_face, state.held_count) == held
    assert high_roll.expected_dice(state) == 10 - held[1] == len(extra)
    assert {w.id for w in state.wagers} == {f"k{c}" for c in counts if c > held[1] and c < 9}
    result, lines = roll(state, tuple(reversed(extra)))
    assert lines == expect[1] and result.state == high_roll.new_table()


def test_like_kind_without_extra_roll_is_settled_on_the_first_roll_675a_4_f_2_i():
    others = [W("q", "pip_street", seat=1, face=2), W("q5", "like_kind", seat=1, count=5)]
    result, lines = roll(extra_table(5, others=others), F4)
    assert lines["q5"] == (LOSE, 0) and "k5" not in lines  # seat 0 rides, seat 1 does not
    assert [w.id for w in result.state.wagers] == ["k5"]


def test_ten_of_a_kind_leaves_nothing_to_rethrow_and_six_dice_have_no_extra_roll():
    result, lines = roll(extra_table(8), TEN)
    assert lines["k8"] == (LOSE, 0) and result.events[-1] == "round_over"
    state = table(W("p", "pip_street", face=1), dice=6)
    assert high_roll.expected_dice(state) == 6
    with pytest.raises(RollRefused, match="wrong_dice_count"):
        high_roll.settle(state, F4)


SEAT = [W("p", "pip_street", face=1), W("k", "like_kind", count=4)]
REFUSED = [  # (wagers already up, the refused wager, dice, refusal)
    pytest.param([], W("w", "hop_the_top"), 10, "unknown_wager", id="675a.2(e)-unknown"),
    pytest.param([], W("w", "no_match"), 10, "unknown_wager", id="675a.6(d)-ten-dice"),
    pytest.param(SEAT, W("w", "extra_roll"), 6, "unknown_wager", id="675a.6(d)-no-extra"),
    pytest.param([], W("w", "pip_street", face=7), 10, "bad_params", id="675a.2(e)(1)-face-7"),
    pytest.param(SEAT, W("w", "like_kind", count=9), 10, "bad_params", id="675a.2(e)(2)-nine"),
    pytest.param(SEAT, W("w", "like_kind", count=1), 10, "bad_params", id="675a.2(e)(2)-one"),
    pytest.param(SEAT, W("w", "like_kind", count=7), 6, "bad_params", id="675a.6(d)-seven"),
    pytest.param(SEAT, W("w", "millionaire_row", 100, count=8), 10, "bad_params",
                 id="675a.2(e)(4)-eight"),
    pytest.param([], W("w", "like_kind", count=3), 10, "no_pip_street",
                 id="675a.2(e)(1)-pip-street-first"),
    pytest.param([], W("w", "millionaire_row", 100, count=9), 10, "no_pip_street",
                 id="675a.2(e)(1)-to-participate"),
    pytest.param(SEAT[:1], W("w", "extra_roll"), 10, "no_like_kind", id="675a.2(e)(3)-needs"),
    pytest.param(SEAT, W("w", "like_kind", 1500, count=5), 10, r"unequal_amounts.*\(2\)",
                 id="675a.2(e)(2)-equal-to-pip-street"),
    pytest.param(SEAT, W("w", "pip_street", 500, face=2), 10, r"675a\.1\(b\)\(2\)\(iv\)",
                 id="675a.1(b)(2)(iv)-equal-value"),
    pytest.param(SEAT, W("w", "extra_roll", 2000), 10, r"unequal.*675a\.2\(e\)\(3\)",
                 id="675a.2(e)(3)-equal-to-like-kind"),
    pytest.param(SEAT, W("w", "no_match", 900), 6, r"675a\.6\(b\)\(3\)", id="675a.6(b)(3)"),
    pytest.param([*SEAT, W("x", "extra_roll")], W("w", "extra_roll"), 10, "duplicate_wager",
                 id="675a.2(e)(3)-one-extra-roll-per-seat"),
    pytest.param(SEAT, W("w", "millionaire_row", 101, count=9), 10, "more than \\$1",
                 id="675a.2(e)(4)-over-1-dollar"),
    pytest.param(SEAT, W("w", "millionaire_row", 50, count=9), 10, "outside_limits",
                 id="675a.5(c)-under-the-house-minimum"),
    pytest.param([], W("w", "pip_street", 100, face=3), 10, "outside_limits", id="table-min"),
    pytest.param([], W("w", "pip_street", 60_000, face=3), 10, "outside_limits", id="max"),
    pytest.param([], W("w", "pip_street", 1000, seat=6, face=3), 10, "bad_seat",
                 id="675a.1(a)-six-seats"),
    pytest.param(SEAT, W("p", "pip_street", face=3), 10, "duplicate_id", id="duplicate-id"),
]


@pytest.mark.parametrize(("up", "wager", "dice", "code"), REFUSED)
def test_refused_wagers(up, wager, dice, code):
    with pytest.raises(WagerRefused, match=code):
        high_roll.place(table(*up, dice=dice), wager)


def test_no_wager_placed_or_removed_after_no_more_bets_or_during_the_extra_roll_675a_2_a():
    closed = high_roll.close_betting(extra_table(5))
    extra, _ = roll(extra_table(5), F4)
    for state in (closed, extra.state):
        with pytest.raises(WagerRefused, match=r"bet_closed.*675a\.2\(a\)"):
            high_roll.place(state, W("q", "pip_street", seat=1, face=2))
        with pytest.raises(WagerRefused, match=r"not_removable.*675a\.2\(a\)"):
            high_roll.reduce(state, "k5")


def test_removal_before_no_more_bets_keeps_the_seat_consistent():
    state = extra_table(4, 5, others=[W("m", "millionaire_row", 100, count=9)])
    with pytest.raises(WagerRefused, match=r"has_dependants.*675a\.2\(e\)\(1\)"):
        high_roll.reduce(state, "p")
    with pytest.raises(WagerRefused, match="unequal_amounts"):
        high_roll.reduce(state, "k4", 500)
    with pytest.raises(WagerRefused, match="outside_limits"):
        high_roll.reduce(state, "m", 50)  # under the house's Millionaire Row minimum
    state = high_roll.reduce(state, "k4").state
    with pytest.raises(WagerRefused, match=r"has_dependants.*675a\.2\(e\)\(3\)"):
        high_roll.reduce(state, "k5")
    for wid in ("x", "k5", "m", "p"):
        change = high_roll.reduce(state, wid)
        check(change.line)
        state = change.state
    assert state == high_roll.new_table()


@pytest.mark.parametrize(("faces", "code"), [((1,) * 9, "wrong_dice_count"),
                                             ((1,) * 11, "wrong_dice_count"),
                                             ((0,) + (1,) * 9, "bad_face"),
                                             ((7,) + (1,) * 9, "bad_face")],
                         ids=["675a.3(a)-nine", "eleven", "face-0", "face-7"])
def test_refused_rolls(faces, code):
    with pytest.raises(RollRefused, match=code):
        high_roll.settle(high_roll.new_table(), faces)
    extra, _ = roll(extra_table(5), F4)
    with pytest.raises(RollRefused, match=r"675a\.4\(g\)"):
        high_roll.settle(extra.state, (1,) * 10)  # six dice are rethrown, not ten


@pytest.mark.parametrize(("options", "match"), [({"dice": 8}, "675a.3"),
                                                ({"millionaire_min": 101}, "1-100"),
                                                ({"millionaire_min": 24}, "edge"),
                                                ({"table_min": 0}, "table_min")])
def test_refused_options(options, match):
    with pytest.raises(OptionsRefused, match=match):
        HighRollOptions(**options)
    assert HighRollOptions(millionaire_min=25).millionaire_min == 25


def test_registry_and_exact_house_edges_by_enumeration():
    """Pip Street on the 6 and Like Kind on three, checked against a plain count of throws."""
    rules = get("high-roll-dice")
    assert rules.new_table(rules.options()).options.dice == 10
    assert get("high-roll-dice-6").options().dice == 6
    wins = Counter()
    for faces, weight in outcomes(10):
        counts = Counter(faces)
        top = max(counts.values())
        best = max((f for f in counts if counts[f] == top), key=lambda f: (f == 1, f))
        wins["pip6"] += weight * (best == 6)
        wins["three"] += weight * (top == 3)
    options = rules.options()
    pip6 = options.specs[("pip_street", (("face", 6),))]
    three = options.specs[("like_kind", (("count", 3),))]
    assert catalog.house_edge("high-roll-dice", options, pip6) == 1 - F(wins["pip6"] * 5, 6**10)
    assert catalog.house_edge("high-roll-dice", options, three) == \
        1 - F(wins["three"] * 8, 6**10 * 5)


@pytest.mark.parametrize("dice", [10, 6])
def test_table_limits_cite_no_section_675a_sets_none(dice):
    """675a.1(b)(3) is about the payout odds on the layout or a sign; 675a sets no minimum or
    maximum wager but the Millionaire Row's $1 (675a.2(e)(4)), so a refusal by the house's
    own limits cites none."""
    with pytest.raises(WagerRefused) as placed:
        high_roll.place(high_roll.new_table(HighRollOptions(dice=dice)),
                        W("p", "pip_street", 50_001, face=2))
    with pytest.raises(OptionsRefused) as options:
        HighRollOptions(dice=dice, table_min=500, table_max=100)
    with pytest.raises(OptionsRefused) as typed:
        HighRollOptions(dice=dice, table_max="100")
    assert placed.value.code == "outside_limits"
    assert [e.value.section for e in (placed, options, typed)] == [None, None, None]
