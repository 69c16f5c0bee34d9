"""House edges computed through the engine equal the published figures.

Exact fractions are the textbook values (e.g. pass 7/495 = 1.414%); the Fire Bet and Bonus
Craps figures are published to two decimals in percent.
"""

from __future__ import annotations

import re
from fractions import Fraction as F

import pytest

from dicecall.api.games.catalog import catalog, house_edge
from dicecall.api.games.craps_options import CrapsOptions
from dicecall.api.games.model import canonical_params

EXACT = [
    ("pass", {}, F(7, 495)),  # 1.414%
    ("dont_pass", {}, F(3, 220)),  # 1.364%
    ("come", {}, F(7, 495)),
    ("dont_come", {}, F(3, 220)),
    ("pass_odds", {}, F(0)),
    ("come_odds", {"number": 5}, F(0)),
    ("field", {}, F(1, 18)),  # 5.556%
    ("any_seven", {}, F(1, 6)),  # 16.667%
    ("any_craps", {}, F(1, 9)),
    ("craps_two", {}, F(5, 36)),
    ("eleven", {}, F(1, 9)),
    ("c_and_e", {}, F(1, 9)),
    ("horn", {}, F(1, 8)),
    ("whirl", {}, F(2, 15)),
    ("hardway", {"number": 6}, F(1, 11)),  # 9.091%
    ("hardway", {"number": 4}, F(1, 9)),
    ("place_to_win", {"number": 6}, F(1, 66)),  # 1.515%
    ("place_to_win", {"number": 5}, F(1, 25)),
    ("place_to_win", {"number": 4}, F(1, 15)),
    ("place_to_lose", {"number": 4}, F(1, 33)),
    ("place_to_lose", {"number": 6}, F(1, 55)),
    ("buy", {"number": 4}, F(1, 21)),  # 5% up front: 4.762% of what is risked
    ("lay", {"number": 4}, F(1, 41)),  # 2.439%
    ("six_seven_eight", {}, F(1, 18)),
    ("hop", {"dice": [1, 3]}, F(1, 9)),
    ("hop", {"dice": [2, 2]}, F(5, 36)),
]

PUBLISHED = [("fire", {}, 20.76), ("all_small", {}, 7.76), ("all_tall", {}, 7.76),
             ("all_or_nothing", {}, 7.46)]


def _spec(name, params, options=None):
    options = options or CrapsOptions()
    return options, options.specs[(name, canonical_params(params))]


@pytest.mark.parametrize(("name", "params", "expected"), EXACT,
                         ids=[f"{n}{p or ''}" for n, p, _ in EXACT])
def test_exact_house_edges(name, params, expected):
    options, spec = _spec(name, params)
    assert house_edge("craps", options, spec) == expected


@pytest.mark.parametrize(("name", "params", "percent"), PUBLISHED)
def test_published_house_edges(name, params, percent):
    options, spec = _spec(name, params)
    assert round(float(house_edge("craps", options, spec)) * 100, 2) == percent


def test_buy_with_vigorish_on_win_only():
    """5% of a $20 buy on the 4 taken only from a win: 1/3 * 1 / 20 = 1.667%."""
    options, spec = _spec("buy", {"number": 4},
                          CrapsOptions(buy_vig="on_win", buy_vig_numbers=(4, 10)))
    assert house_edge("craps", options, spec) == F(1, 60)


def test_catalog_lists_every_craps_wager_with_its_section():
    entries = catalog("craps")
    names = {e["name"] for e in entries}
    assert len(entries) == 82  # 43 paragraphs; numbers, hops and odds spelled out
    cited = {int(m) for e in entries for m in re.findall(r"623a\.3\(a\)\((\d+)\)", e["section"])}
    assert cited == set(range(1, 44))
    assert {"pass", "fire", "all_or_nothing", "horn_high", "lay", "six_seven_eight"} <= names
    assert all(e["section"].startswith("623a") and 0 <= e["house_edge"] < 0.25 for e in entries)
