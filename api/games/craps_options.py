"""House options of a Craps or Mini-Craps table (623a.3(b), 623a.5(f)-(g), 623a.6, 623a.12)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import InitVar, dataclass
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
# 623a.6(e) allows odds up to ten times the flat bet (lay odds: winnings up to ten times);
# 623a.6(a)-(d) let the house limit them to once it, no lower.
MAX_ODDS = 10
# Options that hold one odds multiple or one per box number; stored as ((4, m), ...).
PER_POINT = ("odds_multiple", "lay_odds_multiple")


@dataclass(frozen=True)
class CrapsOptions:
    """Per-table data; every default is a common Pennsylvania configuration.

    Attributes:
        game: "craps" or "mini-craps"; the wagers and rules are the same (623a).
        table_min: minimum wager in cents (623a.3(b)(1)).
        table_max: maximum wager in cents (623a.3(b)(2)); odds may exceed it (623a.6(e)).
        payout_unit: payouts are rounded down to this many cents; the rest is reported.
        odds_multiple: odds a Pass or Come Bet may take, 1-10 times the flat bet
            (623a.6(a),(c),(e)): one multiple, or one per point number, e.g.
            {4: 3, 5: 4, 6: 5, 8: 5, 9: 4, 10: 3} for "3-4-5x odds"; stored as pairs.
        lay_odds_multiple: odds a Don't Pass or Don't Come Bet may lay, stated as the
            winnings, 1-10 times the flat bet (623a.6(b),(d),(e)), in the same two forms;
            None takes `odds_multiple` (with 3-4-5x: lay to win 3x on 4, 4x on 5, 5x on 6,
            six times the flat bet laid on every number).
        odds_whole_payout: with a unit in cents (e.g. 100), an odds wager may exceed its
            limit by what it takes to pay a whole multiple of the unit, and no more
            (623a.6(f)): $6 of odds behind a $5 Pass Bet on the 5 at 1x, paid $9; None,
            the default, accepts nothing above the limit.
        prop_unit: the chip unit in cents of "units of four/five" (623a.3(a)(19)-(21)).
        buy: whether Buy Bets are offered (623a.3(a)(41)).
        lay: whether Lay Bets are offered (623a.3(a)(42)).
        place_to_lose: whether Place Bets to Lose are offered (623a.3(a)(6)); a house may
            leave them off only where it offers Lay Bets "in lieu of" them (623a.3(a)(42)).
        buy_lay: the older single option (init only): True or False sets both `buy` and
            `lay`, as tables stored before them meant; not stored.
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
    odds_multiple: int | tuple[tuple[int, int], ...] = 3
    lay_odds_multiple: int | tuple[tuple[int, int], ...] | None = None
    odds_whole_payout: int | None = None
    prop_unit: int = 100
    buy: bool | None = None
    lay: bool | None = None
    place_to_lose: bool = True
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
    buy_lay: InitVar[bool | None] = None

    def __post_init__(self, buy_lay: bool | None) -> None:
        def refuse(message: str, section: str) -> None:
            raise OptionsRefused("bad_option", message, section)

        if self.game not in ("craps", "mini-craps"):
            refuse(f"game must be craps or mini-craps, got {self.game!r}", "623a")
        if not 0 < self.table_min <= self.table_max:
            refuse("need 0 < table_min <= table_max", "623a.3(b)")
        for name in PER_POINT:
            value = getattr(self, name)
            if value is not None or name == "odds_multiple":
                object.__setattr__(self, name, _per_point(name, value))
        whole = self.odds_whole_payout
        if whole is not None and (isinstance(whole, bool) or not isinstance(whole, int)
                                  or whole < 1):
            refuse(f"odds_whole_payout is a unit of cents or null, got {whole!r}", "623a.6(f)")
        self._buy_and_lay(buy_lay)
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

    def _buy_and_lay(self, buy_lay: bool | None) -> None:
        """`buy` and `lay` from themselves or the older `buy_lay`; Place Bets to Lose off
        only with Lay Bets on."""
        for name in ("buy", "lay"):
            value = getattr(self, name)
            if buy_lay is not None and value is not None and value != buy_lay:
                raise OptionsRefused("bad_option", f"buy_lay={buy_lay} is the older form of "
                                     f"buy and lay and contradicts {name}={value}; give "
                                     "buy and lay only", "623a.3(a)(41),(42)")
            value = (buy_lay if buy_lay is not None else True) if value is None else value
            if not isinstance(value, bool):
                raise OptionsRefused("bad_option", f"{name} must be true or false, got "
                                     f"{value!r}", "623a.3(a)(41),(42)")
            object.__setattr__(self, name, value)
        if not isinstance(self.place_to_lose, bool):
            raise OptionsRefused("bad_option", "place_to_lose must be true or false",
                                 "623a.3(a)(6)")
        # 623a.3(a)(41) offers Buy "in addition to" Place Bets to Win; only Lay may come
        # "in addition to or in lieu of" Place Bets to Lose, (42).
        if not self.place_to_lose and not self.lay:
            raise OptionsRefused("bad_option", "Place Bets to Lose may be left off only in "
                                 "lieu of Lay Bets: set lay to true, or place_to_lose to "
                                 "true", "623a.3(a)(42)")

    @cached_property
    def _odds_limits(self) -> tuple[dict[int, int], dict[int, int]]:
        take = _by_point(self.odds_multiple)
        lay = take if self.lay_odds_multiple is None else _by_point(self.lay_odds_multiple)
        return take, lay

    def odds_limit(self, number: int, lay: bool) -> int:
        """The multiple of the flat bet odds on `number` may be (take) or win (lay)."""
        return self._odds_limits[lay][number]

    def not_offered(self, name: str) -> tuple[str, str] | None:
        """(why, section) when wager `name` is one the regulation leaves to the house and
        this table does not offer it; else None."""
        if name == "buy" and not self.buy:
            return "this table does not offer Buy Bets", "623a.3(a)(41)"
        if name == "lay" and not self.lay:
            return "this table does not offer Lay Bets", "623a.3(a)(42)"
        if name == "place_to_lose" and not self.place_to_lose:
            return ("this table offers Lay Bets in lieu of Place Bets to Lose",
                    "623a.3(a)(6),(42)")
        return None

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
        return craps_specs(buy=self.buy, lay=self.lay, place_to_lose=self.place_to_lose,
                           fire=self.fire, bonus=self.bonus_craps, odds=self._odds_limits,
                           whole=self.odds_whole_payout)

    @cached_property
    def plain_specs(self) -> dict:
        """Specs of the wagers without params, by name: most of a layout, looked up per roll
        without building and hashing a (name, params) key."""
        return {name: spec for (name, params), spec in self.specs.items() if not params}

    def spec(self, name: str, params) -> object | None:
        return self.plain_specs.get(name) if not params else self.specs.get((name, params))


def _per_point(name: str, value) -> int | tuple[tuple[int, int], ...]:
    """One odds multiple (kept as the int it was given) or one per box number, as sorted
    (number, multiple) pairs: hashable, like every option, since table states are."""
    def refuse(message: str) -> None:
        raise OptionsRefused("bad_option", f"{name}: {message}", "623a.6(e)")

    def multiple(m) -> int:
        if isinstance(m, bool) or not isinstance(m, int) or not 1 <= m <= MAX_ODDS:
            refuse(f"a multiple is a whole number 1-{MAX_ODDS}, got {m!r} (623a.6(e): up to "
                   "ten times; 623a.6(a)-(d): the house may limit odds to once the bet)")
        return m

    if isinstance(value, Mapping):
        value = tuple(value.items())
    if not isinstance(value, tuple):
        return multiple(value) if isinstance(value, int) else refuse(
            f"give a multiple or one per point number, got {value!r}")
    try:
        pairs = dict(value)
    except (TypeError, ValueError):
        refuse(f"give a multiple or one per point number, got {value!r}")
    if (len(pairs) != len(value) or set(pairs) != set(POINTS)
            or any(type(n) is not int for n in pairs)):
        refuse(f"give one multiple for each of {', '.join(map(str, POINTS))}, got "
               f"{', '.join(map(repr, pairs)) or 'none'}")
    return tuple((n, multiple(pairs[n])) for n in POINTS)


def _by_point(value: int | tuple[tuple[int, int], ...]) -> dict[int, int]:
    return dict(value) if isinstance(value, tuple) else dict.fromkeys(POINTS, value)
