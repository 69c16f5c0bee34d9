"""Values shared by the three games: wagers, roll validation, settlement lines.

All money is integer cents. A `Line` tells what happened to one wager on one roll; its
amounts always add up: `returned + collected + (stake if stays else 0) == stake`, and the
player receives `returned + paid`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from operator import itemgetter
from typing import Any, NamedTuple

from .errors import RollRefused, WagerRefused
from .money import ZERO

WIN, LOSE, PUSH, MOVE, RETURNED = "win", "lose", "push", "move", "returned"

Params = tuple[tuple[str, Any], ...]


def canonical_params(params: Mapping[str, Any] | None) -> Params:
    """Sorted, hashable params; `dice` becomes an ascending tuple (order does not matter)."""
    if not params:
        return ()
    items = []
    for key, value in params.items():
        if key == "dice":
            if not isinstance(value, (list, tuple)) or len(value) != 2:
                raise WagerRefused("bad_params", f"dice must be two faces, got {value!r}")
            value = tuple(sorted(int(v) for v in value))
        elif isinstance(value, bool) or not isinstance(value, int):
            raise WagerRefused("bad_params", f"param {key} must be an integer, got {value!r}")
        items.append((key, value))
    return tuple(sorted(items))


class Wager(NamedTuple):
    """One wager on the layout (immutable; a NamedTuple because the engine makes millions).

    Attributes:
        id: unique on the table (the service uses a UUID).
        name: canonical snake_case name from the catalog, e.g. "place_to_win".
        amount: cents at risk.
        params: canonical params, e.g. (("number", 6),); see `Wager.of`.
        seat: player position; odds and High Roll equal-value rules are per seat.
        working: the on/off marker (623a.3(a)(5)); None means the rule's default.
        point: come / don't come point after the bet travels (623a.3(a)(3),(4)).
        progress: bitmask of what the wager has seen: Fire points made, Bonus Craps
            numbers, Six Eight Shake combinations.
        shooter: the shooter whose points a Fire Bet counts (623a.11(a)(2)).
    """

    id: str
    name: str
    amount: int
    params: Params = ()
    seat: int = 0
    working: bool | None = None
    point: int | None = None
    progress: int = 0
    shooter: int | None = None

    @classmethod
    def of(cls, id: str, name: str, amount: int, seat: int = 0, **params: Any) -> Wager:
        return cls(id=id, name=name, amount=amount, params=canonical_params(params), seat=seat)

    def param(self, key: str, default: Any = None) -> Any:
        for k, v in self.params:
            if k == key:
                return v
        return default

    @property
    def params_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.params}


class Line(NamedTuple):
    """The effect of one roll (or action) on one wager."""

    wager_id: str
    name: str
    seat: int
    result: str
    stake: int
    paid: int = 0
    returned: int = 0
    collected: int = 0
    stays: bool = False
    remainder: Fraction = ZERO
    section: str = ""
    note: str = ""

    @property
    def net(self) -> int:
        """The player's gain on this line in cents (negative when collected)."""
        return self.paid - self.collected


@dataclass(frozen=True)
class Settlement:
    """What one roll did: the lines of every wager it touched and the next table state."""

    faces: tuple[int, ...]
    lines: tuple[Line, ...]
    state: Any
    events: tuple[str, ...] = ()

    @property
    def paid(self) -> int:
        return sum(line.paid for line in self.lines)

    @property
    def collected(self) -> int:
        return sum(line.collected for line in self.lines)

    @property
    def remainder(self) -> Fraction:
        return sum((line.remainder for line in self.lines), ZERO)


class Placement(NamedTuple):
    """A placed wager and the vigorish collected with it (623a.5(g)(3), else 0)."""

    state: Any
    wager: Wager
    fee: int = 0


@dataclass(frozen=True)
class Change:
    """A reduction, removal or on/off change, with the chips returned to the player.

    `returned` counts every chip handed back: the wager's (`line`) and those of the wagers
    that came down with it (`also`, e.g. the lay odds behind a Don't bet, 623a.6).
    """

    state: Any
    returned: int = 0
    line: Line | None = None
    notes: tuple[str, ...] = field(default=())
    also: tuple[Line, ...] = field(default=())


_ID = itemgetter(0)


class WagersMixin:
    """Look-ups every table state needs; `wagers` is a tuple of `Wager`."""

    wagers: tuple[Wager, ...]

    def has_wager(self, wager_id: str) -> bool:
        return wager_id in map(_ID, self.wagers)  # a C-level scan: placement is hot

    def wager(self, wager_id: str) -> Wager | None:
        if wager_id in map(_ID, self.wagers):
            for w in self.wagers:
                if w.id == wager_id:
                    return w
        return None

    def with_wagers(self, wagers: tuple[Wager, ...]) -> Any:
        return evolve(self, wagers=wagers)


def evolve(obj: Any, **changes: Any) -> Any:
    """`dataclasses.replace` for the engine's hot path: NamedTuples and plain dataclasses.

    A dataclass copy goes through its instance dict, 5-8x faster than `replace`, so it is
    only for the state classes, which have no `__post_init__` to re-run.
    """
    if isinstance(obj, tuple):
        return obj._replace(**changes)
    known = obj.__dataclass_fields__
    for key in changes:
        if key not in known:
            raise TypeError(f"{type(obj).__name__} has no field {key!r}")
    new = object.__new__(type(obj))
    fields = new.__dict__
    fields.update(obj.__dict__)
    fields.update(changes)
    return new


def check_faces(faces: Iterable[int], expected: int, section: str) -> tuple[int, ...]:
    """Validates a roll: `expected` dice, each an integer 1-6."""
    out = tuple(faces)
    if len(out) != expected:
        raise RollRefused(
            "wrong_dice_count", f"expected {expected} dice, got {len(out)}", section
        )
    for face in out:
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= 6:
            raise RollRefused("bad_face", f"a die face must be 1-6, got {face!r}", section)
    return out


def check_seat(seat: Any, seats: int, section: str) -> None:
    """Refuses a seat outside the table's player positions 0..seats-1."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seats:
        raise WagerRefused("bad_seat", f"seat must be 0-{seats - 1}, got {seat!r}", section)


def refuse_unknown(specs: Mapping, wager: Wager, game: str, section: str) -> None:
    """Raises the refusal for a (name, params) the table does not offer: wrong params of a
    known wager, or a wager the game does not have."""
    if any(name == wager.name for name, _ in specs):
        raise WagerRefused("bad_params", f"{wager.name} does not take params "
                           f"{wager.params_dict} at {game}", section)
    raise WagerRefused("unknown_wager", f"{wager.name!r} is not a wager offered at {game}",
                       section)


def check_amount(amount: Any) -> int:
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise WagerRefused("bad_amount",
                           f"amount must be a positive integer of cents, got {amount!r}")
    return amount
