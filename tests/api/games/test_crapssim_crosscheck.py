"""Cross-check: our Craps engine and crapssim 0.4.1 settle the same rolls and bets alike.

Both engines roll the same seeded dice (`random.Random(seed)`) with the same layout kept up
(`crapssim_bridge.LAYOUT`: pass, don't pass, come and don't come with their odds, place to win
4-10, buy, lay, hardways, field, any seven, any craps, craps 2/3/12, eleven, C and E, horn,
whirl, the 17 hops, Fire Bet, All Small, All Tall, All Or Nothing At All). Every roll, for
every bet on the layout, the decision (win, lose, push, none) and the player's net in cents
must agree; crapssim's float dollars must equal our exact cents (paid + remainder) to within
a millionth of a cent. Up-front vigorish is compared at placement.

Where crapssim 0.4.1 differs from 58 Pa. Code 623a, and what this check does about it:

1. All Small / All Tall / All Or Nothing pay 30 / 30 / 150 to 1 by default; 623a.5(h) says
   34 / 34 / 175 to 1: set in `ATS_payouts`.
2. crapssim accepts the three Bonus Craps wagers after any 7, a come out 7 included;
   623a.12(1) only before a new shooter's initial come out roll: the layout places them (and
   the Fire Bet, 623a.11(a)(1)) only for a new shooter.
3. Fire Bet: crapssim pays at once when the sixth point is made; 623a.11(a)(5) settles it on
   the loser 7. The bridge holds crapssim's early payment and compares it at the loser 7.
   Pay tables: crapssim's default is table A of 623a.5(f); table B is set by `fire_payouts`.
4. Vigorish: crapssim charges a fixed 5% rounded to the nearest dollar by default
   (`ceil_dollar` optional), which can exceed the 5% cap of 623a.5(g)(3) ($30 buy: $1.50 ->
   $2, 6.7%; $10 with ceil: $1, 10%). We round down to `vig_unit`. Set `vig_rounding="none"`
   and every Buy/Lay amount makes a vig of whole cents; other rates are not compared.
5. crapssim has one switch (`vig_paid_on_win`) for Buy and Lay and takes the on-win vig on
   all numbers; 623a.5(g)(3)(i)(B),(ii)(B) lets each be chosen per number. Both set alike.
6. A Lay's vig on the win: crapssim on the exact float win, ours on the win paid (rounded to
   the payout unit); the Lay amounts pay whole cents, so the two agree.
7. A losing Buy/Lay with an up-front vig: crapssim reports stake + vig as lost; ours collects
   the stake on the roll and the vig at placement (`Placement.fee`). Stakes are compared per
   roll and fees per placement.
8. Buy, Lay and the hardways come down after a win in crapssim; ours keep them working
   (`stays=True`). The layout re-places them on crapssim, which charges a new up-front vig
   for it; that fee has no counterpart on our table and is not compared.
9. Lays: crapssim's `real_casino` policy turns them off on the come out; 623a.3(a)(42) keeps
   them on unless called off: crapssim Lays are placed with `always_working=True`.
10. Hardways always work in crapssim; 623a.3(a)(7)-(10) turns them off on the come out unless
    called on: ours are placed with the "on" marker (`working=True`).
11. Odds limits: crapssim allows 3-4-5x take odds and lay odds up to 6x the flat stake;
    623a.6(e) allows up to 10x, lay odds measured by their winnings. crapssim's limits are
    raised and every odds amount is within our `odds_multiple=5`.
12. Come Bet odds on the come out: off in crapssim (returned, a push) unless
    `always_working`; ours follow `come_odds_on_comeout`. Both settings are checked.
13. Horn, Whirl (crapssim's World) and C and E: crapssim pays one net ratio on the whole bet;
    623a.5(b),(c),(e) pay the winning share and collect the others. The nets are equal. A
    Whirl on 7 nets 0: crapssim calls it a push, we write a WIN line; counted as a push.
14. Not in crapssim, not checked: Place to Lose, Horn High, 6-7-8. In crapssim and not in
    623a: Put, Big 6/8, crapless rules; its hops on 1-1, 1-2, 5-6, 6-6 are 623a's Craps Two,
    Craps Three, 11 and Craps Twelve bets (checked as those).
15. crapssim merges two bets with the same placement key into one; ours keeps each wager.
    The layout never holds two such bets.
16. Field: crapssim 0.4.1 pays 2 to 1 on both 2 and 12, as 623a.5(a); set explicitly, since
    other crapssim releases and many houses pay 3 to 1 on 12.
"""

from __future__ import annotations

import functools
import random
import time
from collections import Counter
from fractions import Fraction
from importlib.metadata import version

import pytest

pytest.importorskip("crapssim", reason="crapssim is not installed (pip install -e '.[dev]')")
if version("crapssim") != "0.4.1":
    pytest.skip(f"written against crapssim 0.4.1, found {version('crapssim')}",
                allow_module_level=True)

from .crapssim_bridge import LAYOUT, NONE, Config, OurSide, SimSide

CENT_TOLERANCE = Fraction(1, 10**6)
ROLLS, SEED = 100_000, 20260623


@functools.cache
def family(key: str) -> str:
    """`come17_odds` -> `come_odds`; `place6` -> `place`."""
    return "".join(c for c in key if not c.isdigit())


def crosscheck(config: Config, rolls: int, seed: int) -> Counter:
    """Rolls both engines `rolls` times; asserts every settlement agrees; tallies them."""
    ours, theirs = OurSide(config), SimSide(config, native=False)
    rng = random.Random(seed)
    tally: Counter = Counter()
    for n in range(rolls):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        ours.place_all()
        theirs.place_all()
        keys = ours.keys()
        where = f"roll {n} {dice} point {ours.state.point}"
        assert keys == theirs.keys(), f"{where}: layouts differ {keys ^ theirs.keys()}"
        assert ours.fees.keys() <= theirs.fees.keys(), where
        for key, fee in ours.fees.items():
            assert abs(fee - Fraction(theirs.fees[key]) * 100) <= CENT_TOLERANCE, (
                f"{where}: {key} vig ours {fee} crapssim {theirs.fees[key]}")
            tally["fees"] += bool(fee)
        mine = ours.outcomes(ours.settle(dice))
        held = len(theirs.held)
        other = theirs.outcomes(theirs.settle(dice))
        tally["fire_held"] += len(theirs.held) > held
        assert mine.keys() | other.keys() <= keys, where
        for key in keys:
            a, b = mine.get(key, NONE), other.get(key, NONE)
            if a is not b and (a[0] != b[0] or abs(a[1] - b[1]) > CENT_TOLERANCE):
                raise AssertionError(f"{where}: {key} ours {a[0]} {float(a[1])}c, "
                                     f"crapssim {b[0]} {float(b[1])}c")
        for key, (decision, _) in mine.items():
            tally[(family(key), decision)] += 1
        tally["compared"] += len(keys)
        assert ours.state.point == theirs.table.point.number, where
        tally["rolls"] += 1
    return tally


def report(name: str, tally: Counter, seconds: float) -> None:
    settled = sum(v for k, v in tally.items() if isinstance(k, tuple))
    print(f"\ncrapssim cross-check [{name}]: {tally['rolls']:,} rolls, "
          f"{tally['compared']:,} bet-rolls "
          f"compared, {settled:,} settlements agree (win/lose/push), {tally['fees']:,} "
          f"vigorish fees, {tally['fire_held']} Fire Bets paid early by crapssim; "
          f"{seconds:.1f} s")
    for fam in sorted({k[0] for k in tally if isinstance(k, tuple)}):
        counts = " ".join(f"{d}={tally[(fam, d)]}" for d in ("win", "lose", "push"))
        print(f"  {fam:<16} {counts}")


CONFIGS = {
    "vig on win, Fire A": (Config(), ROLLS, SEED),
    "vig up front, Fire B, come odds on": (
        Config(vig="upfront", fire="B", come_odds_on_comeout=True), 25_000, SEED + 1),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CONFIGS))
def test_every_settlement_agrees_with_crapssim(name: str) -> None:
    config, rolls, seed = CONFIGS[name]
    start = time.perf_counter()
    tally = crosscheck(config, rolls, seed)
    report(name, tally, time.perf_counter() - start)
    assert tally["rolls"] == rolls
    if rolls == ROLLS:
        assert tally["rolls"] >= 100_000
    families = {family(s.key) for s in LAYOUT}
    never_won = {f for f in families if not tally[(f, "win")]}
    assert not never_won, f"too few rolls: never won {never_won}"
    for fam in ("pass", "come", "dont_come", "field", "buy", "lay", "hard", "fire"):
        assert tally[(fam, "lose")], f"{fam} never lost"


def test_the_crosscheck_sees_a_field_paying_3_to_1_on_12() -> None:
    config = Config(sim_overrides=(("field_payouts", {2: 2, 3: 1, 4: 1, 9: 1, 10: 1, 11: 1,
                                                       12: 3}),))
    with pytest.raises(AssertionError, match=r"field ours win 1000\.0c, crapssim win 1500"):
        crosscheck(config, 2_000, SEED)
