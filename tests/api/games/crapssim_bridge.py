"""Drives our Craps engine and crapssim 0.4.1 side by side: the same rolls, the same bets.

Used by `test_crapssim_crosscheck.py` (agreement, where every rule difference between
crapssim and 58 Pa. Code 623a is listed) and by `bench/bench_engine.py` (speed). Each side
keeps the same layout up: before every roll it re-places, at the same amount and under the
same id, every bet of `LAYOUT` that its own table no longer holds, so a bet that one engine
keeps working after a win and the other takes down is re-placed only on the second. Money
out of `outcomes` is an exact `Fraction` of cents: the player's net on that roll.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from dicecall.api.games import craps
from dicecall.api.games.craps_options import CrapsOptions
from dicecall.api.games.craps_rules import HOP_SECTIONS, POINTS
from dicecall.api.games.model import LOSE, PUSH, RETURNED, WIN, Wager

# isort: split
# crapssim after ours: its wheel also installs a top-level `tests` package.
from crapssim import Table
from crapssim import bet as sim
from crapssim.strategy.tools import NullStrategy
from crapssim.table import TableUpdate

NONE = ("none", Fraction(0))
ANY, COME_OUT, NEW_SHOOTER = "any", "come_out", "new_shooter"


@dataclass(frozen=True)
class Slot:
    """One bet of the layout: our wager and the crapssim bet that models it."""

    key: str
    name: str
    cents: int
    params: tuple[tuple[str, object], ...]
    sim: Callable[[], sim.Bet]
    when: str = ANY
    working: bool | None = None


def _slot(key, name, cents, make, when=ANY, working=None, **params) -> Slot:
    return Slot(key, name, cents, tuple(params.items()), make, when, working)


def _static(key, name, cents, cls, *args, **params) -> Slot:
    return _slot(key, name, cents, lambda: cls(*args, cents / 100), **params)


# Amounts pay whole cents wherever a vigorish depends on the payout (see the test docstring);
# place 6 ($5 at 7:6), the odds and Don't odds leave exact remainders of 1/3 and 2/3 cent.
PLACE = {4: 500, 5: 500, 6: 500, 8: 600, 9: 1000, 10: 500}
BUY = {4: 2000, 5: 2500, 6: 3000, 8: 3000, 9: 2500, 10: 2000}
LAY = {4: 4000, 5: 3000, 6: 3000, 8: 3000, 9: 3000, 10: 4000}
FLAT, PASS_ODDS, COME_ODDS, DONT_ODDS = 1000, 2500, 2000, 2500
LAYOUT: tuple[Slot, ...] = (
    _slot("pass", "pass", FLAT, lambda: sim.PassLine(FLAT / 100), COME_OUT),
    _slot("dont_pass", "dont_pass", FLAT, lambda: sim.DontPass(FLAT / 100), COME_OUT),
    *(_static(f"place{n}", "place_to_win", PLACE[n], sim.Place, n, number=n) for n in POINTS),
    *(_static(f"buy{n}", "buy", BUY[n], sim.Buy, n, number=n) for n in POINTS),
    *(_slot(f"lay{n}", "lay", LAY[n], lambda n=n: sim.Lay(n, LAY[n] / 100, True),
            number=n) for n in POINTS),
    *(_slot(f"hard{n}", "hardway", 500, lambda n=n: sim.HardWay(n, 5.0), working=True,
            number=n) for n in (4, 6, 8, 10)),
    _static("field", "field", 500, sim.Field),
    _static("any_seven", "any_seven", 500, sim.Any7),
    _static("any_craps", "any_craps", 500, sim.AnyCraps),
    _static("craps_two", "craps_two", 500, sim.Two),
    _static("craps_three", "craps_three", 500, sim.Three),
    _static("craps_twelve", "craps_twelve", 500, sim.Boxcars),
    _static("eleven", "eleven", 500, sim.Yo),
    _static("c_and_e", "c_and_e", 400, sim.CAndE),
    _static("horn", "horn", 400, sim.Horn),
    _static("whirl", "whirl", 500, sim.World),
    *(_static(f"hop{a}{b}", "hop", 500, sim.Hop, (a, b), dice=(a, b)) for a, b in HOP_SECTIONS),
    _slot("fire", "fire", 500, lambda: sim.Fire(5.0), NEW_SHOOTER),
    _slot("all_small", "all_small", 500, lambda: sim.Small(5.0), NEW_SHOOTER),
    _slot("all_tall", "all_tall", 500, lambda: sim.Tall(5.0), NEW_SHOOTER),
    _slot("all_or_nothing", "all_or_nothing", 500, lambda: sim.All(5.0), NEW_SHOOTER),
)
# Flat bets that travel, and the odds taken behind them: (flat name, odds name, odds cents).
_ODDS = {"pass": ("pass_odds", PASS_ODDS, sim.PassLine), "dont_pass":
         ("dont_pass_odds", DONT_ODDS, sim.DontPass), "come": ("come_odds", COME_ODDS, sim.Come),
         "dont_come": ("dont_come_odds", DONT_ODDS, sim.DontCome)}


@dataclass(frozen=True)
class Config:
    """A pair of house configurations that settle alike (our options, crapssim settings)."""

    vig: str = "on_win"  # "on_win" or "upfront", for both Buy and Lay
    fire: str = "A"
    come_odds_on_comeout: bool = False
    sim_overrides: tuple[tuple[str, object], ...] = ()  # crapssim settings to change

    def options(self) -> CrapsOptions:
        return CrapsOptions(table_min=100, odds_multiple=5, buy_vig=self.vig, lay_vig=self.vig,
                            fire=self.fire, come_odds_on_comeout=self.come_odds_on_comeout)

    def settings(self) -> dict:
        fire = {"A": {4: 24, 5: 249, 6: 999}, "B": {4: 39, 5: 199, 6: 499}}[self.fire]
        return {"field_payouts": {2: 2, 3: 1, 4: 1, 9: 1, 10: 1, 11: 1, 12: 2},  # 623a.5(a)
                "fire_payouts": fire, "hop_payouts": {"easy": 15, "hard": 30},  # 623a.5(f)
                "ATS_payouts": {"small": 34, "tall": 34, "all": 175},  # 623a.5(h)
                "max_odds": dict.fromkeys(POINTS, 10), "max_dont_odds": dict.fromkeys(POINTS, 20),
                "vig_rounding": "none", "vig_floor": 0.0,
                "vig_paid_on_win": self.vig == "on_win", "come_out_working_policy": "real_casino",
                **dict(self.sim_overrides)}


def wanted(point: int | None, new_shooter: bool, have: set[str], travelling: dict[str, int]):
    """The layout bets a side must place before the next roll: (key, slot or odds tuple)."""
    due = {ANY: True, COME_OUT: point is None, NEW_SHOOTER: new_shooter}
    for slot in LAYOUT:
        if slot.key not in have and due[slot.when]:
            yield slot.key, slot
    if point is not None:
        for key, number in (("pass", point), ("dont_pass", point), *travelling.items()):
            if key in have and f"{key}_odds" not in have:
                yield f"{key}_odds", (key.rstrip("0123456789"), number)


class OurSide:
    """Our engine with the layout kept up; `step` returns the roll's settlement lines."""

    def __init__(self, config: Config) -> None:
        self.state = craps.new_table(config.options())
        self.fees: dict[str, int] = {}
        self.come_ids = 0
        self.layout = {s.key: Wager(s.key, s.name, s.cents, s.params, working=s.working)
                       for s in LAYOUT}  # immutable, so placed again as they are

    def place_all(self) -> None:
        s = self.state
        have = {w.id for w in s.wagers}
        travelling = {w.id: w.point for w in s.wagers if w.point is not None}
        batch = []
        for key, what in list(wanted(s.point, s.shooter_rolls == 0, have, travelling)):
            if isinstance(what, Slot):
                batch.append(self.layout[key])
            else:
                name, cents, _ = _ODDS[what[0]]
                batch.append(Wager.of(key, name, cents, **({} if what[0].endswith("pass") else
                                                           {"number": what[1]})))
        layout = len(batch)  # fees are compared for the layout's bets only
        if s.point is not None and not any(w.name == "come" and w.point is None for w in s.wagers):
            self.come_ids += 1
            batch += [Wager.of(f"{name}{self.come_ids}", name, FLAT)
                      for name in ("come", "dont_come")]
        # The whole layout goes down before the roll, as a dealer books it: one batch.
        self.state, placed, fees = craps.place_many(self.state, batch)
        self.fees = {w.id: fee for w, fee in zip(placed[:layout], fees[:layout], strict=True)}

    def settle(self, dice: tuple[int, int]):
        settled = craps.settle(self.state, dice)
        self.state = settled.state
        return settled.lines

    def step(self, dice: tuple[int, int]):
        self.place_all()
        return self.settle(dice)

    def keys(self) -> set[str]:
        return {w.id for w in self.state.wagers}

    @staticmethod
    def outcomes(lines) -> dict[str, tuple[str, Fraction]]:
        out = {}
        for line in lines:
            net = line.paid + line.remainder - line.collected
            if line.result == WIN:  # a Whirl on 7 is a WIN line that nets 0 (623a.5(e))
                out[line.wager_id] = ("win" if net > 0 else "push", net)
            elif line.result == LOSE:
                out[line.wager_id] = ("lose", net)
            elif line.result in (PUSH, RETURNED):
                out[line.wager_id] = ("push", net)
        return out


class SimSide:
    """crapssim with the layout kept up, rolled through `TableUpdate`'s own steps.

    With `native` the bets go through `Player.add_bet` and leave by `list.remove`, as a
    crapssim strategy does; both scan the layout with `Bet.__eq__` (quadratic in the number
    of bets). Otherwise a placement checks `Bet.is_allowed` and appends, and a removal is by
    identity: the same effect for this layout, where no two bets share a placement key.
    """

    def __init__(self, config: Config, native: bool = True) -> None:
        self.config = config
        self.native = native
        self.table = Table()
        self.table.settings.update(config.settings())
        self.player = self.table.add_player(bankroll=1e12, strategy=NullStrategy())
        self.keys_by_id: dict[int, str] = {}  # id(bet) -> our key
        self.fees: dict[str, float] = {}
        self.held: dict[str, tuple[str, Fraction]] = {}
        self.come_ids = 0

    def _add(self, key: str, bet: sim.Bet) -> None:
        player = self.player
        before = len(player.bets)
        if self.native:
            player.add_bet(bet)
        elif bet.is_allowed(player):
            player.bankroll -= bet.cost(self.table)
            player.bets.append(bet)
        if len(player.bets) != before + 1:
            raise AssertionError(f"crapssim refused {bet!r} ({key})")
        placed = player.bets[-1]
        self.keys_by_id[id(placed)] = key
        upfront = self.config.vig == "upfront" and isinstance(placed, (sim.Buy, sim.Lay))
        self.fees[key] = placed.vig(self.table) if upfront else 0.0

    def place_all(self) -> None:
        t, bets = self.table, self.player.bets
        have = self.keys()
        travelling = {self.keys_by_id[id(b)]: b.number for b in bets
                      if isinstance(b, (sim.Come, sim.DontCome)) and b.number is not None}
        self.fees = {}
        for key, what in list(wanted(t.point.number, t.new_shooter, have, travelling)):
            if isinstance(what, Slot):
                self._add(key, what.sim())
            else:
                _, cents, base = _ODDS[what[0]]
                working = self.config.come_odds_on_comeout if what[0] == "come" else None
                self._add(key, sim.Odds(base, what[1], cents / 100, working))
        if t.point.number is not None and not any(
                isinstance(b, sim.Come) and b.number is None for b in bets):
            self.come_ids += 1
            self._add(f"come{self.come_ids}", sim.Come(FLAT / 100))
            self._add(f"dont_come{self.come_ids}", sim.DontCome(FLAT / 100))

    def step(self, dice: tuple[int, int]):
        self.place_all()
        return self.settle(dice)

    def keys(self) -> set[str]:
        """The layout's keys, with a Fire Bet crapssim paid early (still up on our table)."""
        return {self.keys_by_id[id(b)] for b in self.player.bets} | self.held.keys()

    def settle(self, dice: tuple[int, int]):
        """One roll as `TableUpdate.run` does it, keeping each bet's `BetResult`."""
        t, player = self.table, self.player
        TableUpdate.update_table_stats(t)
        TableUpdate.roll(t, dice)
        TableUpdate.after_roll(t)
        results, kept = [], []
        for bet in player.bets[:]:  # Player.update_bet, recording each result
            result = bet.get_result(t)
            player.bankroll += result.bankroll_change
            if not result.remove:
                kept.append(bet)
                results.append((self.keys_by_id[id(bet)], result))
                continue
            if self.native:
                player.bets.remove(bet)
            results.append((self.keys_by_id.pop(id(bet)), result))
        if not self.native:
            player.bets[:] = kept
        seven_out = t.point.number is not None and sum(dice) == 7
        TableUpdate.set_new_shooter(t)
        TableUpdate.update_numbers(t, False)
        return results, seven_out

    def outcomes(self, raw) -> dict[str, tuple[str, Fraction]]:
        """Decisions and nets in cents; a Fire Bet won early is held for the loser 7."""
        results, seven_out = raw
        out = {}
        for key, r in results:
            if r.won:
                out[key] = ("win", Fraction(r.amount - r.bet_amount) * 100)
            elif r.lost:  # the stake: an up-front vigorish is compared at placement
                out[key] = ("lose", -Fraction(r.bet_amount) * 100)
            elif r.remove:
                out[key] = ("push", Fraction(r.amount - r.bet_amount) * 100)
        if "fire" in out and not seven_out:  # 6 points made: crapssim pays at once
            self.held["fire"] = out.pop("fire")
        if seven_out and "fire" in self.held:
            out["fire"] = self.held.pop("fire")
        return out
