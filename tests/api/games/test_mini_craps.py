"""Which wagers a Mini-Craps table offers (58 Pa. Code 623a).

623a.3(a) authorizes its wagers "in the games of Craps and Mini-Craps", but 623a.11 sets the
Fire Bet's procedures and its $1-$5 limits only "in the game of Craps": a Mini-Craps table
does not offer it. Bonus Craps (623a.12) names no game, so both tables may offer it.
"""

from __future__ import annotations

import pytest

from dicecall.api.games import catalog, craps, serialize
from dicecall.api.games.craps_options import CrapsOptions
from dicecall.api.games.errors import OptionsRefused, WagerRefused
from dicecall.api.games.model import Wager

MINI = CrapsOptions(game="mini-craps")
# A Mini-Craps table stored before the Fire Bet was refused there: it offered pay table A.
STORED = {**serialize.options_to_json(MINI), "fire": "A"}


def test_mini_craps_offers_no_fire_bet_by_default_623a_11():
    assert (MINI.fire, CrapsOptions().fire) == (None, "A")
    assert MINI.bonus_craps and CrapsOptions().bonus_craps  # 623a.12 names no game
    assert "fire" not in {name for name, _ in MINI.specs}
    assert serialize.options_from_json("mini-craps", {}).fire is None


@pytest.mark.parametrize("options", [MINI, serialize.options_from_json("mini-craps", STORED)])
def test_a_fire_bet_at_mini_craps_is_refused_623a_11(options):
    with pytest.raises(WagerRefused) as err:
        craps.place(craps.new_table(options), Wager.of("f", "fire", 500))
    assert (err.value.code, err.value.section) == ("unknown_wager", "623a.11(a),(b)")
    with pytest.raises(WagerRefused, match=r"623a\.11"):
        craps.place_many(craps.new_table(options), [Wager.of("f", "fire", 500)])


def test_a_stored_mini_craps_table_with_the_fire_bet_still_loads_and_settles_it():
    """Refused for new tables and new wagers, not on load: a Fire Bet accepted before stays
    up and is settled by its terms (623a.11(a)(5))."""
    options = serialize.options_from_json("mini-craps", STORED)
    assert options.fire == "A"
    with pytest.raises(OptionsRefused) as err:
        options.refuse_craps_only()
    assert err.value.section == "623a.11(a),(b)"
    up = craps.new_table(options).with_wagers((Wager("f", "fire", 500, shooter=0),))
    state = serialize.loads(serialize.dumps("mini-craps", up))
    [line] = craps.settle(craps.settle(state, (2, 2)).state, (3, 4)).lines
    assert (line.name, line.result) == ("fire", "lose")
    assert "fire" not in {e["name"] for e in catalog.catalog("mini-craps", options)}


def test_bonus_craps_and_the_fire_bet_stay_offered_at_craps():
    CrapsOptions(fire="B").refuse_craps_only()
    MINI.refuse_craps_only()
    state = craps.new_table(MINI)
    assert craps.place(state, Wager.of("b", "all_small", 500)).wager.name == "all_small"
    assert craps.place(craps.new_table(), Wager.of("f", "fire", 500)).wager.name == "fire"


@pytest.mark.parametrize(("name", "params", "section"), [
    ("buy", {"number": 4}, "623a.3(a)(41), 623a.5(g)"),
    ("lay", {"number": 10}, "623a.3(a)(42), 623a.5(g)"),
    ("all_small", {}, "623a.3(a)(43)(i), 623a.5(h), 623a.12"),
    ("all_tall", {}, "623a.3(a)(43)(iii), 623a.5(h), 623a.12"),
    ("all_or_nothing", {}, "623a.3(a)(43)(ii), 623a.5(h), 623a.12"),
])
def test_the_other_optional_wagers_are_offered_at_mini_craps(name, params, section):
    """623a.3(a) authorizes Buy, Lay and Bonus Craps "in the games of Craps and
    Mini-Craps"; unlike 623a.11 ("in the game of Craps") neither 623a.5(g) nor 623a.12
    names a game, and 623a.2(d)(5) lays out Bonus Craps on "a Craps or Mini-Craps table".
    Only the Fire Bet is Craps-only; the house options turn the others off."""
    assert MINI.craps_only(name) is None
    placed = craps.place(craps.new_table(MINI), Wager.of("w", name, 2000, **params))
    assert MINI.specs[(name, placed.wager.params)].section == section
    off = CrapsOptions(game="mini-craps", buy_lay=False, bonus_craps=False)
    with pytest.raises(WagerRefused) as err:
        craps.place(craps.new_table(off), Wager.of("w", name, 2000, **params))
    assert err.value.code == "unknown_wager"
