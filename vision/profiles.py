"""Per-game no-roll rules as data (DESIGN.md, Roll verdict rules), with their sections."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Annotated

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from .config import FROM_ARRAY

# (x, y) in frame pixels; a list in a file (vision/config.py FROM_ARRAY).
Point = Annotated[tuple[float, float], FROM_ARRAY]

GAMES = ("craps", "mini-craps", "props-and-hops", "high-roll-dice", "high-roll-dice-6")


@dataclass(frozen=True)
class GameProfile:
    """What a valid roll of one game looks like.

    Attributes:
        game: "craps", "mini-craps", "props-and-hops", "high-roll-dice", "high-roll-dice-6".
        expected: dice the roll must show in the zone (2; 10 or 6; on the Extra Roll the
            number rethrown).
        cocked_counts: True when a cocked die counts with the face most nearly up (623a.9(b),
            675a.4(c)); False when it is a no roll (668a.3(h)).
        sections: rule -> the section that states it for this game.
        extra_roll: the High Roll Extra Roll (675a.4(g)): dice on the holding boxes were
            not thrown.
    """

    game: str
    expected: int
    cocked_counts: bool
    sections: dict[str, str]
    extra_roll: bool = False


_CRAPS = {"missing": "623a.8(b)", "stacked": "623a.8(b)", "cocked": "623a.9(b)",
          "void": "623a.9(b)", "no_roll_zone": "623a.8(c)(3),(4)", "dispute": "623a.9(c)"}
_PROPS = {"missing": "668a.3(g)", "stacked": "668a.3(h)", "cocked": "668a.3(h)",
          "void": "668a.3(h)", "no_roll_zone": "668a.3(g)", "dispute": "668a.3(h)"}
_HIGH = {"missing": "675a.4(b)", "stacked": "675a.4(b)", "cocked": "675a.4(c)",
         "void": "675a.4(c)", "no_roll_zone": "675a.4(c)", "dispute": "675a.4(d)"}
# The six-dice variation takes 675a.4(b) and (c) (675a.6(g)) and has its own call (675a.6(h)).
_HIGH6 = {**_HIGH, "dispute": "675a.6(h)"}
FIRST_THROW_DICE = {"high-roll-dice": 10, "high-roll-dice-6": 6}


def profile(game: str, expected: int | None = None) -> GameProfile:
    """The profile of `game`; `expected` overrides the count (the High Roll Extra Roll).

    Raises:
        ValueError: an unknown game, or a count the game's chapter does not allow: two dice
            in Craps, Mini-Craps and Props & Hops (623a.8(a), 668a.3(a)); 1 to 10 (1 to 6)
            in High Roll, fewer than all being the Extra Roll.
    """
    if expected is not None and (isinstance(expected, bool)
                                 or not isinstance(expected, numbers.Integral)):
        raise ValueError(f"{game}: expected dice must be a whole number, got {expected!r}")
    if game in ("craps", "mini-craps", "props-and-hops"):
        if expected not in (None, 2):
            raise ValueError(f"{game} is played with two dice, got {expected}")
        return GameProfile(game, 2, game != "props-and-hops",
                           _PROPS if game == "props-and-hops" else _CRAPS)
    if game in FIRST_THROW_DICE:
        default = FIRST_THROW_DICE[game]
        if expected is not None and not 1 <= expected <= default:
            raise ValueError(f"{game}: expected dice must be 1-{default}, got {expected}")
        n = default if expected is None else int(expected)
        return GameProfile(game, n, True, _HIGH if game == "high-roll-dice" else _HIGH6,
                           extra_roll=n < default)
    raise ValueError(f"unknown game {game!r}")


class Zones(BaseModel):
    """Zones as polygons in frame pixels, from calibration (calibration/ writes them).

    `play` is where the dice must come to rest (the shaker interior, the throw box or the
    table); `no_roll` zones (bank chips, dice cup, rails) allow a no roll call in Craps
    (623a.8(c)(3),(4)); `held` is the throw box area where High Roll dice wait during the
    Extra Roll (675a.4(e),(g)).
    """

    # Strict like vision/config.py's STRICT, but a NaN corner reaches `_polygons`, whose
    # message names the zone.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    play: list[Point] = Field(min_length=3, description="play area polygon, px")
    no_roll: dict[str, list[Point]] = Field(
        default_factory=dict, description="name -> polygon where a die may be called no roll")
    held: list[Point] | None = Field(
        None, description="High Roll: where the matched dice are held during the Extra Roll")
    # A die can only rest tilted or raised on something: a die, or the wall at the floor's
    # edge. That tells only when `play` is that edge, as calibration draws it (the floor at
    # its height); the whole frame, used without calibration, says nothing of where a wall is.
    walled: bool = Field(False, description="play is the outline of a floor walled in (shaker "
                                            "wall, box wall, rails), drawn at the floor's height")
    # The verdict measures a die's reach to what it may lean or rest on in its box's side, and
    # the detector can box a die short: black dice in the shaker got boxes about 0.6 of their
    # side, so a die leaning 29 degrees on another was freed as out of reach (FRESH98-HD
    # shaker_0000953, session 63). The calibration knows the die's size from its mm and the
    # table's pose; a box shorter than the smallest die in play is certainly cut short.
    die_px: float | None = Field(None, gt=0, allow_inf_nan=False,
                                 description="the smallest die side over the play zone, px, "
                                             "from calibration (None: not known)")

    @model_validator(mode="after")
    def _polygons(self) -> Zones:
        """Every polygon an area: three or more finite points. A two-point `held` line or a
        NaN corner would otherwise call dice missing instead of naming the calibration."""
        named = {"play": self.play, **{f"no_roll.{k}": v for k, v in self.no_roll.items()},
                 **({"held": self.held} if self.held is not None else {})}
        for name, poly in named.items():
            pts = np.asarray(poly, np.float64).reshape(-1, 2)
            if len(pts) < 3 or not np.isfinite(pts).all():
                raise ValueError(f"zone {name}: a polygon needs at least 3 finite points, "
                                 f"got {poly}")
        return self

    @classmethod
    def whole_frame(cls, width: int, height: int) -> Zones:
        return cls(play=[(0, 0), (width, 0), (width, height), (0, height)])


def inside(points: np.ndarray, polygon) -> np.ndarray:
    """(N,) bool: which of the (N, 2) points lie inside or on the polygon."""
    return edge_distance(points, polygon) >= 0


def edge_distance(points: np.ndarray, polygon) -> np.ndarray:
    """(N,) float: each point's distance in pixels to the polygon's outline, positive inside
    and negative outside."""
    import cv2

    poly = np.asarray(polygon, np.float32).reshape(-1, 1, 2)
    return np.array([cv2.pointPolygonTest(poly, (float(x), float(y)), True)
                     for x, y in np.asarray(points, np.float32).reshape(-1, 2)], np.float64)
