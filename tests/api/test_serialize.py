"""Round trips of table states and options through `api.games.serialize`."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from dicecall.api.games import serialize
from dicecall.api.games.errors import OptionsRefused
from dicecall.api.games.registry import get
from dicecall.api.games.shift import run_shift

GAMES = ("craps", "mini-craps", "props-and-hops", "high-roll-dice", "high-roll-dice-6")


def _exact(a, b) -> None:
    """Equality plus the fields left out of `==` (shooter_rolls, rolls, lammers...)."""
    assert a == b
    assert a.__dict__ == b.__dict__


@pytest.mark.parametrize("game", [g for g in GAMES if g != "mini-craps"])
def test_round_trip_through_a_shift(game):
    """Every state of a seeded shift survives JSON text unchanged."""
    for roll in run_shift(game, 40, seed=3, seats=3):
        state = roll.settlement.state
        text = serialize.dumps(game, state)
        back = serialize.loads(json.loads(json.dumps(text)))
        _exact(back, state)
        assert serialize.dumps(game, back) == text


def test_mini_craps_keeps_its_game():
    state = get("mini-craps").new_table(get("mini-craps").options())
    back = serialize.loads(serialize.dumps("mini-craps", state))
    _exact(back, state)
    assert back.options.game == "mini-craps"


def test_fractions_are_strings():
    options = get("craps").options(vig_rate=Fraction(1, 40), buy_vig="on_win")
    data = serialize.options_to_json(options)
    assert data["vig_rate"] == "1/40"
    assert serialize.options_from_json("craps", data) == options


def test_custom_hop_layout_round_trips():
    layout = {"top": [[1, 1], [2, 1]], "left": [[3, 3]], "right": [[5, 4]],
              "center": [[6, 1], [5, 2], [4, 3]]}
    options = serialize.options_from_json("props-and-hops", {"hop_layout": layout})
    state = get("props-and-hops").new_table(options)
    _exact(serialize.loads(serialize.dumps("props-and-hops", state)), state)


@pytest.mark.parametrize(("game", "data", "code"), [
    ("craps", {"odds_multiple": 11}, "bad_option"),
    ("craps", {"no_such": 1}, "bad_option"),
    ("craps", {"game": "mini-craps"}, "bad_option"),
    ("high-roll-dice", {"dice": 6}, "bad_option"),
    ("craps", {"vig_rate": "abc"}, "bad_option"),
])
def test_bad_options_are_refused_with_the_engine_code(game, data, code):
    with pytest.raises(OptionsRefused) as err:
        serialize.options_from_json(game, data)
    assert err.value.code == code
