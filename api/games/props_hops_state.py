"""The state of a Props & Hops table between rolls (668a.2, 668a.3)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import Wager, WagersMixin
from .props_hops_options import PropsHopsOptions

SEATS = 6  # 668a.1(a): betting positions for six players


@dataclass(frozen=True)
class PropsHopsState(WagersMixin):
    """Everything that carries from one roll to the next.

    Only `options`, `wagers` and `betting_open` decide how the next roll settles; the rest
    is for display and audit, so it is left out of equality and hashing (a house-edge solver
    hashes states and would otherwise explore copies that settle identically).

    Attributes:
        options: the table's house options.
        wagers: wagers on the layout, in the order they were placed; a Six Eight Shake Wager
            carries the combinations it has seen in `Wager.progress` (bits of `SHAKE_PAIRS`).
        betting_open: False after the dealer's "no more bets" (668a.3(e)); wagers are made
            before the dice are shaken (668a.2(a)). The next roll opens betting again.
        shooter: the current shooter's number (1, 2, ...): the same player shakes until
            they shake a 7 (668a.3(k)).
        shooter_seat: the seat (0-5) holding the shaker; it passes to the next seat on a 7.
        lammers: bitmask of the 6 and 8 combinations whose lammer buttons have been moved to
            the Six Eight Shake circles since the last 7 (668a.3(e),(i)).
        rolls: valid rolls settled on this table.
    """

    options: PropsHopsOptions = field(default_factory=PropsHopsOptions)
    wagers: tuple[Wager, ...] = ()
    betting_open: bool = True
    shooter: int = field(default=1, compare=False)
    shooter_seat: int = field(default=0, compare=False)
    lammers: int = field(default=0, compare=False)
    rolls: int = field(default=0, compare=False)


