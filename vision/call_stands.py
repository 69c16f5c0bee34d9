"""High Roll settles each throw on one call; whether a doubtful face that cannot change it
need hold the roll (rules 34-36, docs/verdicts.md, session 38: off, for the benches).

On the first roll the dealer calls "which die of the highest value occurs the most"
(675a.4(d); 675a.6(h) with six dice), and every first-roll wager is settled on that face and
its count alone (675a.4(f); 675a.6(i); `api/games/high_roll_settle.settle_first`). So a
die read under the confidence line would hold the roll for review only when one of
the faces it could show changed the call. Off: a doubtful face is sometimes the only sign
of a die on a die (`DOUBT_CODES`). Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import product

import numpy as np

from dicecall.api.games.high_roll_rules import high_face

from .profiles import FIRST_THROW_DICE, GameProfile

# The finding a doubtful face raises that may be lifted; any other finding at review or
# stricter keeps the roll where it is. Rule 34 also lifted `readings_disagree` and let two
# stacked rolls through on FRESH73; rule 36, with the pips agreeing, let one through on
# FRESH74. So `VerdictConfig.call_stands_floor` is 0 (off): a doubtful face is sometimes
# the only sign of a die on a die (docs/verdicts.md, session 38).
DOUBT_CODES = frozenset({"low_confidence"})
# With more dice in doubt the reading itself is in question (a blurred or dark frame), and
# every combination of their faces is 6^k calls.
MAX_DOUBTFUL = 3


def section_of(profile: GameProfile) -> str | None:
    """The section that settles a throw of `profile` on one call, or None where a doubtful
    face is not judged by its effect: Craps and Props & Hops settle on every face, and the
    Extra Roll counts the first roll's face (675a.4(h)), which the verdict does not know
    (rule 35 measured it with that face given: cba3219)."""
    if profile.game in FIRST_THROW_DICE and not profile.extra_roll:
        return profile.sections["dispute"]  # 675a.4(d); 675a.6(h) in the six-dice variation
    return None


def could_show(probs: np.ndarray, face: int, pip_face: int, floor: float) -> tuple[int, ...]:
    """The faces a die could show: those the classifier gives `floor` or more, the face read,
    and the pip count when it is a face (1-6).

    Args:
        probs: (6,) face probabilities (after the temperature), face k at index k - 1.
    """
    faces = {int(k) + 1 for k in np.flatnonzero(np.asarray(probs) >= floor)} | {int(face)}
    if 1 <= int(pip_face) <= 6:
        faces.add(int(pip_face))
    return tuple(sorted(faces))


def standing_call(faces: Mapping[int, int], doubtful: Mapping[int, Iterable[int]]
                  ) -> tuple[int, int] | None:
    """The call (face, count) when it is the same whatever the doubtful dice show, else None.

    Args:
        faces: die index -> face read, every die in play.
        doubtful: die index -> the faces it could show (`could_show`); each index in `faces`.
    """
    call = high_face(faces.values())
    keys = list(doubtful)
    for combo in product(*(tuple(doubtful[k]) for k in keys)):
        if high_face({**faces, **dict(zip(keys, combo, strict=True))}.values()) != call:
            return None
    return call
