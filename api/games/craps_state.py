"""The state of a Craps table between rolls (623a.3, 623a.10, 623a.11, 623a.12)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .craps_options import CrapsOptions
from .model import Wager, WagersMixin


@dataclass(frozen=True)
class CrapsState(WagersMixin):
    """Everything that carries from one roll to the next.

    Attributes:
        options: the table's house options.
        wagers: wagers on the layout, in the order they were placed.
        point: the come out point, or None on a come out roll.
        shooter: the current shooter's number (1, 2, ...); changes on a loser 7 or when
            the shooter passes the dice (623a.10).
        points_made: bitmask of the unique points the shooter has made (623a.11(a)(4)).
        bonus_marks: bitmask of the totals marked for Bonus Craps since the last 7
            (623a.12(3)).
        shooter_rolls: rolls thrown by the current shooter.
        dont_reduced: bitmask of (seat, Don't Pass or Don't Come area) spots whose bet was
            reduced or removed since the last roll (`dont_bit`); they may not be increased
            or replaced (623a.4(d)) until a roll decides or moves the bet.
        took_point: the current shooter took the dice with a point on (623a.10(a)) and has
            not yet thrown a come out roll of his own.
        rolls: rolls settled on this table.
    """

    options: CrapsOptions = field(default_factory=CrapsOptions)
    wagers: tuple[Wager, ...] = ()
    point: int | None = None
    shooter: int = 1
    points_made: int = 0
    bonus_marks: int = 0
    dont_reduced: int = 0
    shooter_rolls: int = field(default=0, compare=False)
    took_point: bool = field(default=False, compare=False)
    rolls: int = field(default=0, compare=False)

    @property
    def come_out(self) -> bool:
        return self.point is None

    @property
    def initial_come_out(self) -> bool:
        """Whether the next roll is the current shooter's initial come out roll, before which
        Fire and Bonus wagers are made (623a.3(a)(40),(43), 623a.11(a)(1), 623a.12(1)). A
        shooter who took over a point rolls it out first: his first roll is not it."""
        return self.come_out and (self.shooter_rolls == 0 or self.took_point)

    def seat_total(self, seat: int, name: str, point: int | None = None) -> int:
        """Cents a seat has on `name` (for come bets: on the given come point)."""
        return sum(
            w.amount for w in self.wagers
            if w.seat == seat and w.name == name and (point is None or w.point == point)
        )


def dont_bit(seat: int, name: str) -> int:
    """The `dont_reduced` bit of a seat's Don't Pass or Don't Come area."""
    return 1 << (2 * seat + (name == "dont_come"))
