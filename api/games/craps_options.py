"""House options of a Craps or Mini-Craps table (623a.3(b), 623a.5(f)-(g), 623a.6(e), 623a.12)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

from .craps_catalog import craps_specs
from .craps_rules import POINTS
from .errors import OptionsRefused

MINI_CRAPS_SEATS = 9  # 623a.2(c): seating locations for a maximum of nine players
# 623a sets no number of positions at a Craps table; the default is the service's player
# positions 0-20 (api/schemas/wagers.py), a table may configure fewer.
CRAPS_SEATS = 21
# 623a.2(d)(4)(i): no more than 16 Fire Bet areas, numbered 1-16 by player position; the
# engine's positions 0-15 have one, later positions none, whatever the table seats.
FIRE_AREAS = 16
# 623a.3(a) authorizes its wagers "in the games of Craps and Mini-Craps", but 623a.11 sets
# the Fire Bet's procedures and its $1-$5 limits only "in the game of Craps": a Mini-Craps
# table does not offer it. Bonus Craps (623a.12) names no game and stays offered at both.
CRAPS_ONLY = {"fire": "623a.11(a),(b)"}
_BY_GAME = "by_game"  # the `fire` default: pay table A at Craps, none at Mini-Craps


@dataclass(frozen=True)
class CrapsOptions:
    """Per-table data; every default is a common Pennsylvania configuration.

    Attributes:
        game: "craps" or "mini-craps"; the wagers and rules are the same (623a).
        table_min: minimum wager in cents (623a.3(b)(1)).
        table_max: maximum wager in cents (623a.3(b)(2)); odds may exceed it (623a.6(e)).
        payout_unit: payouts are rounded down to this many cents; the rest is reported.
        odds_multiple: supplemental odds allowed, 1-10 times the flat bet (623a.6(e)).
        prop_unit: the chip unit in cents of "units of four/five" (623a.3(a)(19)-(21)).
        buy_lay: whether Buy and Lay Bets are offered (623a.3(a)(41),(42)).
        vig_rate: vigorish on Buy and Lay, at most 5% (623a.5(g)(3)).
        buy_vig, lay_vig: "upfront" (623a.5(g)(3)(i)(A),(ii)(A)) or "on_win" ((B)).
        buy_vig_numbers, lay_vig_numbers: with "on_win", the numbers it applies to.
        vig_unit: vigorish is rounded down to this many cents.
        fire: Fire Bet pay table "A" or "B" (623a.5(f)), or None when not offered; left
            out, "A" at Craps and None at Mini-Craps, which does not offer it (623a.11).
        bonus_craps: whether Bonus Craps is offered (623a.12).
        come_odds_on_comeout: whether Come Bet odds work on the come out roll; the regulation
            is silent and most houses leave them off (returned on a come out 7).
        seats: player positions 0..seats-1; None takes 9 at Mini-Craps (623a.2(c), at most
            9) and `CRAPS_SEATS` at Craps.
    """

    game: str = "craps"
    table_min: int = 500
    table_max: int = 500_000
    payout_unit: int = 1
    odds_multiple: int = 3
    prop_unit: int = 100
    buy_lay: bool = True
    vig_rate: Fraction = Fraction(5, 100)
    buy_vig: str = "upfront"
    lay_vig: str = "upfront"
    buy_vig_numbers: tuple[int, ...] = POINTS
    lay_vig_numbers: tuple[int, ...] = POINTS
    vig_unit: int = 1
    fire: str | None = _BY_GAME
    bonus_craps: bool = True
    come_odds_on_comeout: bool = False
    seats: int | None = None

    def __post_init__(self) -> None:
        def refuse(message: str, section: str) -> None:
            raise OptionsRefused("bad_option", message, section)

        if self.game not in ("craps", "mini-craps"):
            refuse(f"game must be craps or mini-craps, got {self.game!r}", "623a")
        if not 0 < self.table_min <= self.table_max:
            refuse("need 0 < table_min <= table_max", "623a.3(b)")
        if not 1 <= self.odds_multiple <= 10:
            refuse("odds_multiple must be 1-10", "623a.6(e)")
        if self.payout_unit < 1 or self.vig_unit < 1 or self.prop_unit < 1:
            refuse("units must be positive cents", "623a.5")
        object.__setattr__(self, "vig_rate", Fraction(self.vig_rate))
        if not 0 <= self.vig_rate <= Fraction(5, 100):
            refuse("vig_rate must be between 0 and 5%", "623a.5(g)(3)")
        for v in (self.buy_vig, self.lay_vig):
            if v not in ("upfront", "on_win"):
                refuse(f"vigorish is 'upfront' or 'on_win', got {v!r}", "623a.5(g)(3)")
        if not set(self.buy_vig_numbers) | set(self.lay_vig_numbers) <= set(POINTS):
            refuse("vigorish numbers must be box numbers", "623a.5(g)(3)")
        mini = self.game == "mini-craps"
        if self.fire == _BY_GAME:
            object.__setattr__(self, "fire", None if mini else "A")
        if self.fire not in (None, "A", "B"):
            refuse("fire pay table must be 'A', 'B' or None", "623a.5(f)")
        if self.seats is None:
            object.__setattr__(self, "seats", MINI_CRAPS_SEATS if mini else CRAPS_SEATS)
        if isinstance(self.seats, bool) or not isinstance(self.seats, int) or self.seats < 1:
            refuse(f"seats must be a positive number of player positions, got {self.seats!r}",
                   "623a.2")
        if mini and self.seats > MINI_CRAPS_SEATS:
            refuse(f"a Mini-Craps table seats at most {MINI_CRAPS_SEATS} players, got "
                   f"{self.seats}", "623a.2(c)")

    def refuse_craps_only(self) -> None:
        """Refuses a new table offering at Mini-Craps a wager 623a offers only at Craps.

        Not checked on construction: a table stored before loads, and a Fire Bet already up
        there settles by its terms; only new ones are refused (`craps_only`).
        """
        for name, section in CRAPS_ONLY.items():
            if self.craps_only(name) and any(n == name for n, _ in self.specs):
                raise OptionsRefused("bad_option", f"a Mini-Craps table does not offer the "
                                     f"{name} wager: 623a offers it in the game of Craps "
                                     "only (set fire to null)", section)

    def craps_only(self, name: str) -> str | None:
        """At Mini-Craps, the section that offers wager `name` only at Craps; else None."""
        return CRAPS_ONLY.get(name) if self.game == "mini-craps" else None

    @cached_property
    def offered_specs(self) -> dict:
        """The specs of the wagers a new wager may be: `specs` less what the game does not
        offer but a table stored before may still have up."""
        return {key: spec for key, spec in self.specs.items() if not self.craps_only(key[0])}

    @cached_property
    def specs(self) -> dict:
        return craps_specs(buy_lay=self.buy_lay, fire=self.fire, bonus=self.bonus_craps)

    @cached_property
    def plain_specs(self) -> dict:
        """Specs of the wagers without params, by name: most of a layout, looked up per roll
        without building and hashing a (name, params) key."""
        return {name: spec for (name, params), spec in self.specs.items() if not params}

    def spec(self, name: str, params) -> object | None:
        return self.plain_specs.get(name) if not params else self.specs.get((name, params))
