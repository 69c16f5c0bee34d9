"""Properties of every game in the registry: money is conserved, dice order is irrelevant."""

from __future__ import annotations

import contextlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicecall.api.games.errors import WagerRefused
from dicecall.api.games.model import Wager
from dicecall.api.games.registry import GAMES

AMOUNTS = (100, 500, 1000, 1200, 2000, 3000)


@st.composite
def shifts(draw, game):
    rules = GAMES[game]
    keys = sorted(rules.options().specs, key=repr)
    steps = draw(st.lists(st.tuples(
        st.lists(st.tuples(st.sampled_from(keys), st.sampled_from(AMOUNTS),
                           st.integers(1, 3)), max_size=6),
        st.lists(st.integers(1, 6), min_size=10, max_size=10),
    ), min_size=1, max_size=12))
    return rules, steps


def _play(rules, steps, check):
    state = rules.new_table(rules.options())
    counter = 0
    for attempts, dice in steps:
        for (name, params), amount, seat in attempts:
            counter += 1
            with contextlib.suppress(WagerRefused):
                state = rules.place(state, Wager(f"w{counter}", name, amount, params, seat)).state
        faces = tuple(dice[: rules.expected_dice(state)])
        result = rules.settle(state, faces)
        check(state, faces, result)
        state = result.state


def _conserves(state, faces, result):
    before = sum(w.amount for w in state.wagers)
    after = sum(w.amount for w in result.state.wagers)
    out = 0
    for line in result.lines:
        assert line.returned + line.collected + (line.stake if line.stays else 0) == line.stake
        assert min(line.paid, line.returned, line.collected) >= 0
        assert 0 <= line.remainder < result.state.options.payout_unit
        if not line.stays:
            out += line.stake
    assert before == after + out, "every cent on the layout is still there or settled"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_money_is_conserved(data):
    for game in GAMES:
        rules, steps = data.draw(shifts(game), label=game)
        _play(rules, steps, _conserves)


def _order_free(rules):
    def check(state, faces, result):
        again = rules.settle(state, tuple(reversed(faces)))
        assert again.lines == result.lines
        assert again.state == result.state
    return check


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_results_do_not_depend_on_the_order_of_the_dice(data):
    for game in GAMES:
        rules, steps = data.draw(shifts(game), label=game)
        _play(rules, steps, _order_free(rules))
