"""House options and round state of a High Roll Dice table (675a.1-675a.6)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from math import comb

from .errors import OptionsRefused
from .high_roll_rules import MILLIONAIRE, MILLIONAIRE_MAX, high_roll_specs
from .model import Wager, WagersMixin

SEATS = 6  # 675a.1(a): up to six betting positions


def millionaire_edge(count: int, amount: int) -> Fraction:
    """Player's expected gain in cents on a `count`-of-a-kind Millionaire Row of `amount`.

    With more than five matching dice only one face can match, so there are
    6 * C(10, count) * 5**(10 - count) such throws of the 6**10.
    """
    p = Fraction(6 * comb(10, count) * 5 ** (10 - count), 6 ** 10)
    return p * MILLIONAIRE[count] - (1 - p) * amount


@dataclass(frozen=True)
class HighRollOptions:
    """Per-table data of a High Roll Dice game.

    Attributes:
        dice: 10 (675a.3(a)) or 6 for the variation (675a.6(a),(e)).
        table_min: minimum Pip Street / Like Kind / Extra Roll amount in cents: the house's
            limit, which 675a neither sets nor requires posted (675a.1(b)(3) posts the
            payout odds only).
        table_max: maximum of those amounts in cents.
        payout_unit: payouts are rounded down to this many cents; the rest is reported.
        millionaire_min: smallest Millionaire Row wager in cents. Its payout is fixed
            (675a.5(c)) and it may not exceed $1 (675a.2(e)(4)); a small wager would win the
            same $50,000, so a minimum that hands the player an edge is refused.
    """

    dice: int = 10
    table_min: int = 500
    table_max: int = 50_000
    payout_unit: int = 1
    millionaire_min: int = MILLIONAIRE_MAX

    def __post_init__(self) -> None:
        def refuse(message: str, section: str | None) -> None:
            raise OptionsRefused("bad_option", message, section)

        # The table limits are the house's: no section of 675a sets them.
        for name, section in (("dice", "675a.3(a), 675a.6(a)"), ("table_min", None),
                              ("table_max", None), ("payout_unit", "675a.5"),
                              ("millionaire_min", "675a.2(e)(4)")):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                refuse(f"{name} must be an integer, got {value!r}", section)
        if self.dice not in (10, 6):
            refuse(f"High Roll Dice uses 10 dice, or 6 in the variation; got {self.dice}",
                   "675a.3(a), 675a.6(a)")
        if not 0 < self.table_min <= self.table_max:
            refuse("need 0 < table_min <= table_max", None)
        if self.payout_unit < 1:
            refuse("payout_unit must be a positive number of cents", "675a.5")
        if not 1 <= self.millionaire_min <= MILLIONAIRE_MAX:
            refuse("millionaire_min must be 1-100 cents", "675a.2(e)(4)")
        if any(millionaire_edge(k, self.millionaire_min) > 0 for k in MILLIONAIRE):
            refuse(f"a {self.millionaire_min}-cent Millionaire Row would give the player an "
                   "edge against the fixed payouts", "675a.5(c)")

    @cached_property
    def specs(self) -> dict:
        return high_roll_specs(self.dice)


@dataclass(frozen=True)
class HighRollState(WagersMixin):
    """The table between throws. A round is the first roll and, when any seat bought one,
    the Extra Roll; every wager is decided within the round.

    Attributes:
        options: the table's house options.
        wagers: wagers on the layout; during the Extra Roll only the Like Kind wagers left
            up under 675a.4(f)(2)(ii).
        betting_open: False after "no more bets" (675a.4(a)) and during the Extra Roll.
        held_face: during the Extra Roll, the face of the dice kept in the throw box
            (675a.4(e),(g)); None on the first roll.
        held_count: how many dice of `held_face` are kept; 0 on the first roll.
        rounds: rounds completed; rolls: valid throws settled (neither affects settling).
    """

    options: HighRollOptions = field(default_factory=HighRollOptions)
    wagers: tuple[Wager, ...] = ()
    betting_open: bool = True
    held_face: int | None = None
    held_count: int = 0
    rounds: int = field(default=0, compare=False)
    rolls: int = field(default=0, compare=False)

    @property
    def extra_phase(self) -> bool:
        return self.held_face is not None


    def seat_wagers(self, seat: int, *names: str) -> list[Wager]:
        return [w for w in self.wagers if w.seat == seat and w.name in names]

