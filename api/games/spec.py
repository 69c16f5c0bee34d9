"""The shape of a catalog entry: one concrete wager (name + params) of one game."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .model import Params, canonical_params


@dataclass(frozen=True)
class Spec:
    """A concrete wager a table accepts.

    Attributes:
        name: canonical snake_case name (DESIGN.md, Games engine).
        params: canonical params, e.g. (("number", 6),).
        title: the regulation's own name for it.
        odds: pay odds as a person reads them, e.g. "7 to 6"; pay tables are spelled out.
        section: the section that defines it, e.g. "623a.3(a)(5)".
        kind: how the engine settles it ("one_roll", "place", "line", "fire", ...).
        data: kind-specific constants (pay odds, winning numbers), read by the engine.
    """

    name: str
    params: Params
    title: str
    odds: str
    section: str
    kind: str
    data: Any = None
    units: int = 1
    limits: tuple[int, int] | None = None
    notes: str = ""
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def key(self) -> tuple[str, Params]:
        return (self.name, self.params)

    @property
    def params_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.params}


def make(name: str, title: str, odds: str, section: str, kind: str, data: Any = None,
         params: dict | None = None, **kw: Any) -> Spec:
    return Spec(name, canonical_params(params), title, odds, section, kind, data, **kw)


def odds_text(odds: tuple[int, int]) -> str:
    return f"{odds[0]:,} to {odds[1]}"
