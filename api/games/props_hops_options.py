"""House options of a Props & Hops table (668a.1(b), 668a.2(f)(2)-(5), 668a.4)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .errors import OptionsRefused
from .money import ZERO
from .props_hops_rules import BOXES, DEFAULT_HOP_LAYOUT, HOP_ODDS, Pair, player_edge, props_specs

Layout = tuple[tuple[str, tuple[Pair, ...]], ...]
_LAYOUT_SECTION = "668a.1(b)(2), 668a.2(f)(2)-(5)"


def _refuse(message: str, section: str | None = _LAYOUT_SECTION) -> None:
    raise OptionsRefused("bad_option", message, section)


def _pair(box: str, value: Any) -> Pair:
    """One combination of a hop box as a sorted pair of faces 1-6."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        _refuse(f"hop_the_{box}: a combination is two faces, got {value!r}")
    for face in value:
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= 6:
            _refuse(f"hop_the_{box}: a face must be 1-6, got {face!r}")
    return tuple(sorted(value))


def normalize_layout(layout: Mapping[str, Any] | Layout) -> Layout:
    """Validates a hop box layout and returns it in canonical, hashable form.

    Args:
        layout: box name ("top", "left", "right", "center") -> combinations, each a pair of
            faces in any order, e.g. {"top": [[1, 1], [2, 1]], ...}; or the canonical form.

    Returns:
        ((box, (sorted pairs, ascending)), ...) in the order of `BOXES`.

    Raises:
        OptionsRefused: a box missing or unknown, empty, a combination that is not two faces
            1-6, a combination twice in one box, or pay odds that give the player an edge.
    """
    items = dict(layout.items() if isinstance(layout, Mapping) else layout)
    if set(items) != set(BOXES):
        _refuse(f"the layout must depict exactly the boxes {', '.join(BOXES)}; "
                f"got {', '.join(sorted(map(str, items)))}")
    out = []
    for box in BOXES:
        raw = items[box]
        if not isinstance(raw, (list, tuple)) or not raw:
            _refuse(f"hop_the_{box} needs at least one combination")
        pairs = [_pair(box, value) for value in raw]
        if len(set(pairs)) != len(pairs):
            _refuse(f"hop_the_{box} lists a combination twice")
        pairs = tuple(sorted(pairs))
        # No approved layout pays a hop box above its true odds: 668a.4 fixes the odds,
        # so the combinations must leave the house an edge (a fair box is tolerated).
        if player_edge(pairs, HOP_ODDS[box]) > ZERO:
            _refuse(f"hop_the_{box} at {HOP_ODDS[box][0]} to {HOP_ODDS[box][1]} on "
                    f"{len(pairs)} combinations would give the player an edge", "668a.4")
        out.append((box, pairs))
    return tuple(out)


@dataclass(frozen=True)
class PropsHopsOptions:
    """Per-table data of a Props & Hops game.

    Attributes:
        table_min: minimum wager in cents: the house's limit, which 668a neither sets nor
            requires posted (668a.1(b)(6) posts the payout odds only).
        table_max: maximum wager in cents.
        payout_unit: payouts are rounded down to this many cents; the rest is reported.
        hop_layout: the combinations behind each Hop the Top/Left/Right/Center box; a mapping
            is accepted and stored canonically (see `normalize_layout`).
    """

    table_min: int = 100
    table_max: int = 100_000
    payout_unit: int = 1
    hop_layout: Layout = DEFAULT_HOP_LAYOUT

    def __post_init__(self) -> None:
        for name in ("table_min", "table_max", "payout_unit"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                _refuse(f"{name} must be an integer of cents, got {value!r}",
                        "668a.4" if name == "payout_unit" else None)
        if not 0 < self.table_min <= self.table_max:
            _refuse("need 0 < table_min <= table_max", None)
        if self.payout_unit < 1:
            _refuse("payout_unit must be a positive number of cents", "668a.4")
        object.__setattr__(self, "hop_layout", normalize_layout(self.hop_layout))

    def hop_pairs(self, box: str) -> tuple[Pair, ...]:
        return dict(self.hop_layout)[box]

    @cached_property
    def specs(self) -> dict:
        return props_specs(self.hop_layout)
