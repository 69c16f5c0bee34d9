"""JSON form of every game's table state and house options, for storage and the API.

The service keeps each table's state between requests, so `from_json(to_json(s)) == s`
must hold exactly, including the fields left out of equality (shooter, rolls) and the
Fractions (`vig_rate` is stored as "1/20", never as a float). Options are rebuilt through
their constructors, so stored or posted options are validated by the engine's own rules
(`OptionsRefused` names the section).
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from fractions import Fraction
from functools import lru_cache
from typing import Any

from .errors import OptionsRefused
from .model import Wager, canonical_params
from .registry import get

# Option fields whose JSON form differs from the constructor's argument.
_TUPLE_OPTIONS = ("buy_vig_numbers", "lay_vig_numbers")
# One value, or one per Craps box number: {"4": 3, ...} in JSON, whose keys are text.
_POINT_OPTIONS = ("odds_multiple", "lay_odds_multiple")
_WAGER_DEFAULTS = {"params": (), "seat": 0, "working": None, "point": None, "progress": 0,
                   "shooter": None}


def options_to_json(options: Any) -> dict[str, Any]:
    """A game's options as JSON-ready data (Fractions as "n/d", tuples as lists)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(options):
        value = getattr(options, f.name)
        if isinstance(value, Fraction):
            value = str(value)
        elif f.name in _POINT_OPTIONS and isinstance(value, tuple):
            value = {str(n): m for n, m in value}
        elif f.name == "hop_layout":
            value = {box: [list(pair) for pair in pairs] for box, pairs in value}
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out


def options_from_json(game: str, data: dict[str, Any] | None) -> Any:
    """Builds (and validates) a game's options from JSON data; missing keys take defaults.

    Raises:
        KeyError: unknown game.
        OptionsRefused: an unknown key or a value the regulations do not allow.
    """
    key = json.dumps(data or {}, sort_keys=True, separators=(",", ":"))
    return _options_cached(game, key)


@lru_cache(maxsize=256)
def _options_cached(game: str, key: str) -> Any:
    # Options are immutable and cache their wager specs, which are costly to build: one
    # object per distinct configuration keeps every table state of that setup cheap.
    rules = get(game)
    data = dict(json.loads(key))
    # Init-only options too: older names a stored table may still have (Craps' buy_lay).
    known = set(inspect.signature(rules.options_type).parameters)
    unknown = sorted(set(data) - known)
    if unknown:
        raise OptionsRefused("bad_option", f"unknown option(s) for {game}: "
                             f"{', '.join(unknown)}; known: {', '.join(sorted(known))}")
    for name, fixed in (rules.default_options or {}).items():
        if name in data and data[name] != fixed:
            raise OptionsRefused("bad_option", f"{name} is fixed to {fixed!r} by the game "
                                 f"{game!r}, got {data[name]!r}")
    for name in _TUPLE_OPTIONS:
        if isinstance(data.get(name), list):
            data[name] = tuple(data[name])
    for name in _POINT_OPTIONS:
        if isinstance(data.get(name), dict):
            by_point = {_point_key(name, k): v for k, v in data[name].items()}
            if len(by_point) != len(data[name]):  # "4" and "04": which one is meant?
                raise OptionsRefused("bad_option", f"{name}: a point number is given twice",
                                     "623a.6(e)")
            data[name] = by_point
    if isinstance(data.get("vig_rate"), str):
        try:
            data["vig_rate"] = Fraction(data["vig_rate"])
        except (ValueError, ZeroDivisionError):
            raise OptionsRefused("bad_option", "vig_rate must be a fraction such as "
                                 f"\"1/20\", got {data['vig_rate']!r}", "623a.5(g)(3)") from None
    try:
        return rules.options(**data)
    except TypeError as exc:  # a value of the wrong shape inside the engine's checks
        raise OptionsRefused("bad_option", str(exc)) from None


def _point_key(option: str, key: str) -> int:
    if not (key.isascii() and key.isdigit()):
        raise OptionsRefused("bad_option", f"{option}: the keys are point numbers such as "
                             f"\"4\", got {key!r}", "623a.6(e)")
    return int(key)


def wager_to_json(w: Wager) -> dict[str, Any]:
    """A wager as JSON data; fields at their default are left out to keep states small."""
    out: dict[str, Any] = {"id": w.id, "name": w.name, "amount": w.amount}
    for name, default in _WAGER_DEFAULTS.items():
        value = getattr(w, name)
        if value != default:
            out[name] = w.params_dict if name == "params" else value
    return out


def wager_from_json(data: dict[str, Any]) -> Wager:
    return Wager(
        id=data["id"], name=data["name"], amount=data["amount"],
        params=canonical_params(data.get("params")), seat=data.get("seat", 0),
        working=data.get("working"), point=data.get("point"),
        progress=data.get("progress", 0), shooter=data.get("shooter"),
    )


def to_json(game: str, state: Any) -> dict[str, Any]:
    """A table state as JSON data: {"options": ..., "wagers": [...], other fields}."""
    out: dict[str, Any] = {"game": game}
    for f in dataclasses.fields(state):
        value = getattr(state, f.name)
        if f.name == "options":
            value = options_to_json(value)
        elif f.name == "wagers":
            value = [wager_to_json(w) for w in value]
        out[f.name] = value
    return out


def from_json(data: dict[str, Any]) -> Any:
    """The inverse of `to_json`; the game is read from the data itself."""
    game = data["game"]
    rules = get(game)
    fields: dict[str, Any] = {}
    for key, value in data.items():
        if key == "game":
            continue
        if key == "options":
            value = options_from_json(game, value)
        elif key == "wagers":
            value = tuple(wager_from_json(w) for w in value)
        fields[key] = value
    state_type = type(rules.new_table(fields["options"]))
    return state_type(**fields)


_WAGER_TEXT: dict[Wager, str] = {}
_OPTIONS_TEXT: dict[int, tuple[Any, str]] = {}


def _wager_text(w: Wager) -> str:
    # Wagers are immutable values and most stay on the layout roll after roll, so their
    # JSON is cached by value; the cache is simply dropped when it grows large.
    text = _WAGER_TEXT.get(w)
    if text is None:
        if len(_WAGER_TEXT) > 200_000:
            _WAGER_TEXT.clear()
        text = _WAGER_TEXT[w] = json.dumps(wager_to_json(w), separators=(",", ":"))
    return text


def _options_text(options: Any) -> str:
    hit = _OPTIONS_TEXT.get(id(options))
    if hit is None or hit[0] is not options:
        hit = _OPTIONS_TEXT[id(options)] = (options, json.dumps(options_to_json(options),
                                                                separators=(",", ":")))
    return hit[1]


def dumps(game: str, state: Any) -> str:
    """Compact JSON text of a state (what the service stores); `loads` reads it back."""
    rest = {f.name: getattr(state, f.name) for f in dataclasses.fields(state)
            if f.name not in ("options", "wagers")}
    wagers = ",".join(_wager_text(w) for w in state.wagers)
    tail = json.dumps(rest, separators=(",", ":"))[1:]
    return (f'{{"game":{json.dumps(game)},"options":{_options_text(state.options)},'
            f'"wagers":[{wagers}]' + ("," + tail if rest else "}"))


def loads(text: str) -> Any:
    return from_json(json.loads(text))
