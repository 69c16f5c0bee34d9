"""The roll verdict: every row of the rules table of DESIGN.md, for each game.

Pure: `verdict(dice, profile, zones, config) -> RollVerdict`. The strictest finding wins:
no roll, then needs review, then valid. Every finding is a `Reason` with a machine-readable
code, the section of the game's chapter, and the dice it concerns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, Field

from . import call_stands
from .config import STRICT
from .dice import Dice
from .profiles import GameProfile, Zones, edge_distance, inside

VALID, NO_ROLL, REVIEW = "valid", "no_roll", "needs_review"
_RANK = {VALID: 0, REVIEW: 1, NO_ROLL: 2}


class VerdictConfig(BaseModel):
    """Thresholds; `dicecall calibrate model` computes them for a table."""

    model_config = STRICT

    min_confidence: float = Field(0.98, ge=0.0, le=1.0,
                                  description="face probability needed to accept a reading")
    # Below 0.5 on purpose: a missed cocked or stacked die can settle a no roll, a false
    # flag only sends a good roll to review or a rethrow. Session 17's reader (its flags
    # trained again with 10,052 more cocked shaker dice, models/reader.md) runs its tilt
    # higher on every die, so its three lines (tilt 0.05, stacked 0.7, Props & Hops 0.05)
    # were chosen together on six suites (seeds 9200-9202, 9300-9302, 11200-11502) as the
    # most good rolls valid at no more unsafe rolls through than the runtime before it, by
    # rules written down before the untouched suites that judged them (seeds 11600-11902)
    # were read (docs/verdicts.md, session 17).
    tilt_threshold: float = Field(0.05, gt=0.0, lt=1.0, description="tilt probability = cocked")
    # Where a cocked die is a no roll (Props & Hops, 668a.3(h)) a missed one settles a roll
    # that did not happen; where it counts (623a.9(b), 675a.4(c)) the flag only asks whether
    # it rests on two sides. The lines of earlier readers: 0.1 (session 9), 0.05 (10-11),
    # 0.015 (14, whose flags ran lower). Session 17's reader: 0.05, the same as its tilt
    # line, chosen with it (above) on 640x480 renders. 0.025 since session 27 (rule 18): the
    # edge reads 1920x1080, and on cleaner pictures the tilt reads shallow leans lower, so the
    # line is chosen to be as safe at 1920x1440 as 0.05 was at 640x480 (docs/verdicts.md).
    # 0.035 since session 28 (rule 19), chosen together with the reader's one-view shortcut
    # (`ReaderConfig.sure_tilt` 0.015): the shortcut decides which dice the line sees
    # averaged over four views.
    no_roll_tilt_threshold: float = Field(
        0.035, gt=0.0, lt=1.0, description="tilt probability = cocked in a game where a cocked "
                                          "die is a no roll (the lower of this and "
                                          "tilt_threshold applies)")
    # Where a cocked die is a no roll, its line is low (above) so that no shallow lean is
    # missed, and most flat shaker dice cross it too (docs/verdicts.md, "A flagged die needs
    # something to lean on"). A flag under this line (and an up margin over
    # `edge_review_deg`) holds the roll for a person instead of calling it off: the camera
    # does not void a roll on a sign it is unsure of (DESIGN: at most 0.5 % false no-roll).
    # 0.5 since session 46 (rule 43): on the untouched FRESH79 the camera called off 5.3 % of
    # good Props & Hops rolls instead of 72.3 %, and 481 of 509 unsafe ones (94.5 %).
    no_roll_sure_tilt: float = Field(
        0.5, ge=0.0, le=1.0,
        description="Props & Hops: a tilt flag from the no-roll line up to this is held for "
                    "review (cocked_doubt), from this up a no roll (0: every flag a no roll)")
    # Where a cocked die counts, one whose two best faces read about alike may rest on two
    # sides (a void, 623a.9(b), 675a.4(c)) or only be hard to read; the up margin is the
    # reader's own measure of the edge. With this on, a void read from the faces alone (the
    # margin over `void_margin_deg`) holds the roll for review (`void_doubt`, rule 44). Off:
    # on the untouched FRESH80 it cut the good Craps and High Roll rolls called off by a
    # third (45 to 30), and rule 44 asked for at most 0.6 times (docs/verdicts.md).
    void_faces_review: bool = Field(
        False, description="a void read from the two best faces alone, not the up margin, is "
                           "held for review instead of called a no roll")
    # Rule 47 (session 48, docs/verdicts.md): rule 44's review only where the up margin
    # itself reads the die off any edge. On the spent suites most face-only voids of good
    # rolls were dice lying flat (true tilt median 0) whose margin read 43.5 degrees at the
    # median, where the true voids' read 18.8. On since it met its judge (FRESH83, seeds
    # 18001-18003): good Craps and High Roll rolls called off 31 -> 24, unsafe ones called
    # off 750 -> 747 (to review), nothing else moved.
    void_faces_margin: float = Field(
        40.0, ge=0.0, le=45.0,
        description="a void read from the two best faces alone on a die whose up margin "
                    "reads at least this many degrees is held for review (void_doubt) "
                    "instead of called a no roll; 0: off")
    stacked_threshold: float = Field(0.7, gt=0.0, lt=1.0,
                                     description="stacked probability = die on die")
    void_margin: float = Field(0.35, ge=0.0, le=1.0,
                               description="a cocked die whose two best faces are closer than "
                                           "this rests on more than one side: void")
    # A die on an edge (up margin under 10 degrees in the generated labels) is a void where a
    # cocked die counts (623a.9(b), 675a.4(c)). The face classifier reads one face of such a
    # die with p 0.98-0.99, so `void_margin` alone caught 2 of 27 on the tuning suite (session
    # 10); the reader's margin output (session 11) measures the angle itself, coarsely: it
    # reads dice 0-10 and 10-20 degrees from the edge alike (median 26 and 27 on the tuning
    # suite). So a margin under `void_margin_deg` is a void, and one under `edge_review_deg`
    # goes to review: the camera cannot tell whether it rests on one side or two. NaN
    # margins (a reader without the output) cross neither line. The review line is 40 since
    # session 14 (30 before): the voids let through read 30-38 degrees, and over five suites
    # (seeds 9200-9202, 9300-9302, 10100-10102, 10200-10202, 10300-10302; the last untouched
    # until the choice was made) 40 let 24 of 6,095 unsafe rolls through against 33 at 30, for
    # 1.5 points of good rolls, all in Craps and High Roll (docs/verdicts.md).
    void_margin_deg: float = Field(10.0, ge=0.0, le=90.0,
                                   description="a die whose estimated up margin is under this "
                                               "many degrees rests on more than one side")
    edge_review_deg: float = Field(40.0, ge=0.0, le=90.0,
                                   description="a die whose estimated up margin is under this "
                                               "may rest on an edge: review where a cocked die "
                                               "counts, not flat where it is a no roll")
    # The margin head reads a die balanced near 45 degrees much as a flat one: the Craps
    # voids let through on the suites of sessions 22-24 were read tilted (0.75-1.00) with a
    # margin of 40.4-44.6, all but one (tilt 0.14, which no line of these outputs holds).
    # Where a cocked die counts, a die read this tilted is reviewed under
    # a higher margin line (docs/verdicts.md, session 24, rule 14: on the untouched FRESH50,
    # Craps and High Roll, 2 unsafe rolls of 2,434 through instead of 3, for 1.32 points of
    # good rolls valid). 0 turns it off.
    tilted_edge_tilt: float = Field(0.7, gt=0.0, le=1.0,
                                    description="tilt probability at which a die is held to "
                                                "`tilted_edge_review_deg`")
    tilted_edge_review_deg: float = Field(
        44.5, ge=0.0, le=90.0,
        description="where a cocked die counts, a die with tilt of at least "
                    "`tilted_edge_tilt` and an up margin under this goes to review (0: off)")
    # A die rests on another only with its centre over the lower one's top face; seen from
    # above the pair is usually one detection and a die short. Where both were found, in the
    # generated suites, offset stacks included (`--stack-offset 0.45`), the flagged die lay
    # 0.35-0.89 of its side from the die beneath; at 1.2, dice side by side with a false
    # stacked flag were the commonest die on die (session 11, docs/verdicts.md).
    stack_reach: float = Field(1.0, gt=0.0, le=5.0,
                               description="a die on a die has the die beneath it within this "
                                           "x its side, the larger of its box's and its "
                                           "nearest neighbour's (centre to centre)")
    # Where a cocked die is a no roll (668a.3(h)) the tilt line sits low, so flat dice are
    # flagged too. A die rests tilted or raised only on something. 1.3 (session 22, rule 12;
    # 1.5 since session 10) is the shortest reach that let no more leaning dice through than
    # 1.5 on 4,000 shaker scenes with a die leaning in nearly every one (seeds 81, 82) and on
    # four verdict suites; 1.2 let 3 more of 954 through (docs/verdicts.md, session 22).
    support_reach: float = Field(
        1.3, gt=0.0, le=10.0,
        description="Props & Hops: a die with no other die and no wall within this x its side "
                    "(the larger of its box's and its nearest neighbour's) has nothing to lean "
                    "on; its tilt or stacked flag alone is not a no roll")
    unsupported_line: float = Field(
        0.5, gt=0.0, le=1.0,
        description="a flag at or above this probability calls a no roll even on a die with "
                    "nothing to lean on (an object the camera cannot see may hold it up)")
    # A shallow lean on the wall (5-12 degrees, which the tilt reads as low as flat dice)
    # rides on its fillet, so the die's centre lies close to the wall: in the generated
    # shakers within 0.81 of a side (tuning seed 9200). Further out a die can lean on the
    # wall only steeply, which the tilt reads high; so a die with no other die within
    # `support_reach` and the wall between `shallow_reach` and `support_reach` is flagged
    # from `steep_line` instead of the Props & Hops line. Not for a die near the other die:
    # on LEAN91 dice leaning 20-35 degrees on a die 0.8-1.3 sides away read 0.07-0.27.
    # Off (0): rule 20 (docs/verdicts.md, session 29) passed 2.5 points more good rolls on
    # its untouched suite, but the Props & Hops line itself let over 0.5 % through there
    # at 1920x1440, and the rule asked for both.
    shallow_reach: float = Field(
        0.9, gt=0.0, le=10.0,
        description="Props & Hops: a die with no other die within `support_reach` whose "
                    "wall lies beyond this x its side can lean on it only steeply")
    steep_line: float = Field(
        0.0, ge=0.0, le=1.0,
        description="Props & Hops: the tilt line of a die with no die in reach and the wall "
                    "between `shallow_reach` and `support_reach`, where it is above the "
                    "game's line (0: off)")

    # Where a cocked die counts, the tilt line only decides which dice are checked for
    # resting on two sides (void) or near an edge (review); a flat die passes those checks
    # and counts as read. Recording "cocked die counts" on every die over that low line put
    # the finding on flat dice in 4 of the 7 sample frames (every Craps and High Roll frame
    # but one), and on the tuning suites (seeds 9200-9202, 9300-9302) 92 % of the 5,717 dice
    # it was recorded on were flat. Surveillance reads it as a finding, so it is recorded
    # from the lowest line where at least 9 in 10 are cocked: 0.9 (94 % there, 14 % of the
    # cocked dice), by a rule written before those figures were computed (docs/verdicts.md,
    # session 18). The calls are the same at any value.
    counts_record_line: float = Field(
        0.9, gt=0.0, le=1.0,
        description="where a cocked die counts: tilt probability from which the "
                    "cocked_counts finding is recorded (the call does not depend on it)")

    # A die boxed at half the size of the others is partly out of view (behind the shaker's
    # rim, under another die), and the face read may be only the pips that show: FRESH34
    # shaker_0000521 (session 20) read a 4 as a 1, both readings agreeing. Over 18,000
    # scenes read in session 20, no Props & Hops roll rightly called valid had a die under
    # 0.5, and 7 of 5,140 in Craps and High Roll did (docs/verdicts.md, session 20, rule 9).
    partly_hidden_line: float = Field(
        0.5, ge=0.0, lt=1.0,
        description="a die whose box side is under this x the median of the other dice in "
                    "play's goes to review: it may be partly out of view (0: off)")

    # A die on the table just outside the shaker (or the layout) can show its centre just
    # inside the outline: two of the six Props & Hops rolls let through on session 20's
    # FRESH34-39 did (FRESH35 shaker_0000894). Of 16 such dice over 24,000 scenes, 13 lay
    # within 0.1 of their side of the edge, against 94 of 12,264 dice in the shaker
    # (docs/verdicts.md, session 20, rule 10).
    zone_edge_line: float = Field(
        0.1, ge=0.0, le=1.0,
        description="a die in play whose centre lies within this x its box side of the play "
                    "zone's edge goes to review: in or out cannot be told there (0: off)")

    # High Roll settles each throw on one call (675a.4(d),(f),(h)); a die held only for a
    # doubtful face that cannot change that call need not hold the roll (`call_stands.py`).
    # Off: rule 34 passed its judge (FRESH72), but on FRESH73 it let two stacked rolls
    # through that only a doubtful face had held (a die partly under the top one, read
    # unsure, the top die read sure); with the pips agreeing (rule 36) it let one through
    # on FRESH74, the top die itself read unsure (docs/verdicts.md, session 38).
    call_stands_floor: float = Field(
        0.0, ge=0.0, le=1.0,
        description="High Roll first roll: a roll held only by low_confidence or "
                    "readings_disagree on at most three dice is valid when the call is the "
                    "same for every face those dice could show (classifier probability at "
                    "least this, the face read, the pip count); 0: off")

    # Rule 46 (session 48, docs/verdicts.md): on the spent suites a two-dice roll held only
    # by low_confidence had its faces right wherever the pip layout fit agreed, the face was
    # at least 0.9 and not a 1 (a lone blob is what a die seen in part, or a tiny one,
    # shows: the wrong agreeing faces there were all 1s). Not in larger rolls: in ten-dice
    # High Roll throws a doubtful face was the only hold on two stacked rolls and a void,
    # the die beneath or the leaning die read sure (FRESH74, FRESH81).
    # On since rule 46 met its judge (FRESH82, seeds 17901-17903): Craps and Props & Hops
    # good rolls valid +1.70 points, nothing more let through, no wrong face more.
    agreeing_confidence: float = Field(
        0.9, ge=0.0, le=1.0,
        description="a face read under min_confidence still counts when the pip reading "
                    "agrees, it is not a 1, its probability is at least this and the roll "
                    "has at most agreeing_max_dice dice; 0: off")
    agreeing_max_dice: int = Field(2, ge=1, le=10,
                                   description="the most dice a roll may have for "
                                               "agreeing_confidence to apply")

    def tilt_line(self, cocked_counts: bool) -> float:
        """The tilt probability from which a die is cocked, in a game where a cocked die
        counts (623a.9(b), 675a.4(c)) or is a no roll (668a.3(h))."""
        return self.tilt_threshold if cocked_counts else min(self.tilt_threshold,
                                                              self.no_roll_tilt_threshold)


@dataclass(frozen=True)
class Reason:
    code: str
    status: str
    section: str
    dice: tuple[int, ...] = ()
    detail: str = ""

    def as_dict(self) -> dict:
        return {"code": self.code, "status": self.status, "section": self.section,
                "dice": list(self.dice), "detail": self.detail}


@dataclass(frozen=True)
class RollVerdict:
    """The call on one settled frame.

    Attributes:
        status: "valid", "no_roll" or "needs_review".
        reasons: every finding, strictest first.
        faces: the faces of the dice in play, left to right then top to bottom.
        order: indices into `dice` of those faces, in the same order.
        confidences: the face probability of each, in the same order.
        pip_faces: the independent pip readings, in the same order (0: none).
        dice: all dice found in the frame, including those outside the play zone.
    """

    status: str
    reasons: tuple[Reason, ...]
    faces: tuple[int, ...]
    order: tuple[int, ...]
    confidences: tuple[float, ...]
    pip_faces: tuple[int, ...]
    dice: Dice

    def as_dict(self) -> dict:
        return {"status": self.status, "reasons": [r.as_dict() for r in self.reasons],
                "faces": list(self.faces), "confidences": [round(c, 5) for c in self.confidences],
                "pip_faces": list(self.pip_faces), "dice": self.dice.to_json()}


def _stable_order(dice: Dice, idx: np.ndarray) -> np.ndarray:
    """Left to right, then top to bottom, in bands of one die height so near ties are stable."""
    if len(idx) == 0:
        return idx
    size = float(np.median(dice.boxes[idx, 2] - dice.boxes[idx, 0])) or 1.0
    x = np.round(dice.centers[idx, 0] / size)
    return idx[np.lexsort((dice.centers[idx, 1], x))]


def verdict(dice: Dice, profile: GameProfile, zones: Zones,
            config: VerdictConfig | None = None) -> RollVerdict:
    """Calls one frame of settled dice.

    Args:
        dice: every die the reader found, in frame pixels.
        profile: the game's rules and the number of dice expected.
        zones: calibrated polygons in the same pixels.
        config: thresholds.
    """
    cfg = config or VerdictConfig()
    reasons: list[Reason] = []
    _zone_reasons(dice, profile, zones, reasons)
    # The holding boxes lie on the throw box layout (675a.4(e)): on a first throw a die that
    # stops on one is in the box like any other; only on the Extra Roll does it hold a die
    # that was not thrown.
    play = np.flatnonzero(thrown(dice, zones, holding=profile.extra_roll))
    _count_reasons(profile, len(play), reasons)
    own = _box_sides(dice.boxes)
    side, nearest = _neighbours(dice, own)
    apart, wall = _support_gaps(dice, profile, zones, play, side, nearest)
    free = (apart > cfg.support_reach) & (wall > cfg.support_reach)
    _stacked_reasons(dice, profile, play, cfg, reasons, side, nearest, free)
    steep = (apart > cfg.support_reach) & (wall > cfg.shallow_reach) & ~free
    _die_reasons(dice, profile, play, cfg, reasons, free, steep, wall)
    _partly_hidden(profile, play, own[play], cfg, reasons)
    _zone_edge(dice, profile, zones, play, own[play], cfg, reasons)
    order = _stable_order(dice, play)
    section = call_stands.section_of(profile)
    if cfg.call_stands_floor > 0 and section is not None:
        reasons = _call_stands(dice, section, order, cfg.call_stands_floor, reasons)
    status = max((r.status for r in reasons), key=_RANK.__getitem__, default=VALID)
    reasons.sort(key=lambda r: -_RANK[r.status])
    return RollVerdict(status, tuple(reasons), tuple(int(dice.face[i]) for i in order),
                       tuple(int(i) for i in order),
                       tuple(float(dice.confidence[i]) for i in order),
                       tuple(int(dice.pip_face[i]) for i in order), dice)


def thrown(dice: Dice, zones: Zones, holding: bool) -> np.ndarray:
    """(N,) bool: the dice that count as thrown: in the play zone, or in a no-roll zone (a
    die on the bank chips or a rail is on the table, not missing: it is flagged instead),
    and, while dice are held for the Extra Roll (`holding`), not in the held area."""
    if not len(dice):
        return np.zeros(0, bool)
    out = inside(dice.centers, zones.play)
    for polygon in zones.no_roll.values():
        out |= inside(dice.centers, polygon)
    if holding and zones.held:
        out &= ~inside(dice.centers, zones.held)
    return out


def _call_stands(dice: Dice, section: str, order: np.ndarray, floor: float,
                 reasons: list[Reason]) -> list[Reason]:
    """`reasons` with the doubtful-face findings replaced by one recorded `call_stands`
    when the call is the same whatever those dice show (`call_stands.py`), else as given."""
    held = [r for r in reasons if r.status != VALID]
    doubtful = sorted({i for r in held for i in r.dice})
    faces = {int(i): int(dice.face[i]) for i in order}
    if (not held or any(r.code not in call_stands.DOUBT_CODES for r in held)
            or len(doubtful) > call_stands.MAX_DOUBTFUL or not set(doubtful) <= set(faces)):
        return reasons
    options = {i: call_stands.could_show(dice.face_probs[i], dice.face[i], dice.pip_face[i],
                                         floor) for i in doubtful}
    call = call_stands.standing_call(faces, options)
    if call is None:
        return reasons
    shows = ", ".join(f"die {i}: {' or '.join(map(str, o))}" for i, o in options.items())
    why = "; ".join(r.detail for r in held)
    return [r for r in reasons if r.status == VALID] + [Reason(
        "call_stands", VALID, section, tuple(doubtful),
        f"{call[1]} x {call[0]} whatever the doubtful dice show ({shows}); {why}")]


def _zone_reasons(dice, profile, zones, reasons) -> None:
    """Flags dice in no-roll zones."""
    sec = profile.sections
    # 623a.8(c): in Craps a no roll "may" be called; the boxperson decides, so it is flagged.
    # High Roll has no such rule: a die resting on chips counts, the side opposite the one on
    # the chips uppermost (675a.4(c)), and a person checks the face the camera read. Props &
    # Hops: a die outside the shaker is a no roll (668a.3(g)).
    status = NO_ROLL if profile.game == "props-and-hops" else REVIEW
    for name, polygon in zones.no_roll.items():
        hit = np.flatnonzero(inside(dice.centers, polygon)) if len(dice) else []
        if len(hit):
            reasons.append(Reason(f"rest_on_{name}", status, sec["no_roll_zone"],
                                  tuple(int(i) for i in hit),
                                  f"die at rest on the {name.replace('_', ' ')}"))


def _support_gaps(dice: Dice, profile: GameProfile, zones: Zones, play: np.ndarray,
                  side: np.ndarray, nearest: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(apart, wall), each (N,): distances in sides from each die to the nearest other die
    and to the wall, where what a die could lean on can lift a no roll (668a.3(h)); 0
    elsewhere, which lifts nothing.

    On a flat floor a die rests tilted or raised only against something: another die, or the
    wall at the floor's edge. So in Props & Hops a die further than `support_reach` sides
    from both rests flat whatever its flags say. Only with every die accounted for (a
    missing die may be the one beneath) and a play zone that is the walled floor's outline.
    """
    apart, wall = np.zeros(len(dice)), np.zeros(len(dice))
    if (profile.cocked_counts or not zones.walled or len(play) != profile.expected
            or not len(play)):
        return apart, wall
    own = np.maximum(side[play], 1e-9)
    apart[play] = nearest[play] / own
    wall[play] = edge_distance(dice.centers[play], zones.play) / own
    return apart, wall


def _box_sides(boxes: np.ndarray) -> np.ndarray:
    """(N,) each box's side, the larger of its width and height, pixels."""
    return np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])


def _neighbours(dice: Dice, own: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(side, nearest), each (N,), from the dice and their box sides `own`: the side in
    pixels in which a die's reach to another it may rest or lean on is measured, and the
    distance from its centre to the nearest other die's (inf for a lone die).

    The side is the larger of the die's own box side and its nearest neighbour's. The
    detector can cut a die's box short: a die leaning on the other in the shaker (FRESH35
    shaker_0000071, session 20) got a box 0.68 times its neighbour's, so the die it leaned on
    lay just past 1.5 of its own sides and its tilt flag was set aside as `flag_unsupported`.
    The larger side only lengthens the reach, so fewer flags are set aside: the safe side."""
    if len(dice) < 2:
        return own, np.full(len(dice), np.inf)
    gap = np.hypot(*(dice.centers[:, None, :] - dice.centers[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(gap, np.inf)
    nearest = gap.argmin(axis=1)
    return np.maximum(own, own[nearest]), gap[np.arange(len(dice)), nearest]


def _stacked_reasons(dice: Dice, profile: GameProfile, play: np.ndarray, cfg, reasons,
                     side: np.ndarray, nearest: np.ndarray, free: np.ndarray) -> None:
    """Die on die (623a.8(b), 668a.3(h), 675a.4(b)). A die can only rest on a die: when the
    flag is raised but no other die is within reach and no die is missing, there is none
    beneath it. In Craps and High Roll such a die rests on something else (chips, the rail),
    where the face most nearly up counts (623a.9(b), 675a.4(c)), so the flag is recorded
    without calling a no roll. In Props & Hops any die off the shaker floor has not landed
    flat on the bottom, a no roll whatever holds it up (668a.3(h)). When a die is missing, the
    one beneath may be hidden under it, so the flag stands. Only dice in play are judged:
    a die held on the layout during the Extra Roll was not thrown, nor was a spare die off
    the table's zones; the die beneath may be any die found."""
    flagged = [i for i in play if dice.stacked[i] >= cfg.stacked_threshold]
    if not flagged:
        return
    short = len(play) < profile.expected
    on_die, alone = [], []
    for i in flagged:
        (on_die if short or nearest[i] <= cfg.stack_reach * side[i] else alone).append(int(i))
    sec = profile.sections["stacked"]
    if on_die:
        reasons.append(Reason("die_on_die", NO_ROLL, sec, tuple(on_die),
                              "one die rests on another"))
    if alone and not profile.cocked_counts:
        held = [i for i in alone if not free[i] or dice.stacked[i] >= cfg.unsupported_line]
        if held:
            reasons.append(Reason("off_floor", NO_ROLL, profile.sections["cocked"],
                                  tuple(held), "die raised off the shaker floor: not flat on "
                                               "the bottom"))
        if len(held) < len(alone):
            reasons.append(Reason("flag_unsupported", VALID, profile.sections["cocked"],
                                  tuple(i for i in alone if i not in held),
                                  "stacked flag raised on a die with no die or wall within "
                                  "reach to hold it up: it rests on the floor"))
    elif alone:
        reasons.append(Reason("stacked_flag_alone", VALID, sec, tuple(alone),
                              "die-on-die flag raised with no die beneath it to rest on"))


def _partly_hidden(profile: GameProfile, play: np.ndarray, own: np.ndarray, cfg,
                   reasons) -> None:
    """Review for a die in play (box sides `own`) boxed under `partly_hidden_line` x the
    median side of the other dice in play: the camera may see only part of it, and read only
    the pips in view."""
    if cfg.partly_hidden_line <= 0 or len(play) < 2:
        return
    for k, i in enumerate(play):
        usual = float(np.median(np.delete(own, k)))
        if own[k] < cfg.partly_hidden_line * usual:
            reasons.append(Reason("die_partly_hidden", REVIEW, profile.sections["dispute"],
                                  (int(i),), f"boxed at {own[k]:.0f} px where the other dice "
                                  f"are {usual:.0f} px: it may be partly out of view"))


def _zone_edge(dice: Dice, profile: GameProfile, zones: Zones, play: np.ndarray,
               own: np.ndarray, cfg, reasons) -> None:
    """Review for a die in play (box sides `own`) whose centre lies within `zone_edge_line`
    of its box side of the play zone's edge, where the camera cannot tell in from out."""
    if cfg.zone_edge_line <= 0 or not len(play):
        return
    # Either side of the edge: a die in a no-roll zone is in `play` too, and lies outside.
    near = np.abs(edge_distance(dice.centers[play], zones.play)) < cfg.zone_edge_line * own
    for i in play[near]:
        reasons.append(Reason("on_zone_edge", REVIEW, profile.sections["dispute"], (int(i),),
                              "centre on the edge of the play zone: in or out cannot be told"))


def _count_reasons(profile: GameProfile, n: int, reasons) -> None:
    sec = profile.sections
    if n < profile.expected:
        reasons.append(Reason("die_missing", NO_ROLL, sec["missing"], (),
                              f"{n} of {profile.expected} dice in the zone: a die is off the "
                              "table or out of the shaker"))
    elif n > profile.expected:
        reasons.append(Reason("extra_object", REVIEW, sec["dispute"], (),
                              f"{n} dice found where {profile.expected} were thrown"))


def _die_reasons(dice: Dice, profile: GameProfile, play: np.ndarray, cfg, reasons,
                free: np.ndarray, steep: np.ndarray, wall: np.ndarray) -> None:
    sec = profile.sections
    tilt_line = cfg.tilt_line(profile.cocked_counts)
    for i in play:
        i = int(i)
        if not (np.isfinite(dice.face_probs[i]).all() and np.isfinite(dice.tilt[i])
                and np.isfinite(dice.stacked[i])):
            # No line can judge a NaN (every comparison is False, which would pass the die):
            # a broken model or input, held for a person.
            reasons.append(Reason("reading_invalid", REVIEW, sec["dispute"], (i,),
                                  "the reader gave no number for this die's face, tilt or "
                                  "stacked flag"))
            continue
        probs = np.sort(dice.face_probs[i])[::-1]
        margin = float(dice.up_margin[i])  # NaN crosses no line
        void = margin < cfg.void_margin_deg
        near_edge = void or margin < cfg.edge_review_deg or (
            profile.cocked_counts and dice.tilt[i] >= cfg.tilted_edge_tilt
            and margin < cfg.tilted_edge_review_deg)
        if dice.tilt[i] >= tilt_line or near_edge:
            if free[i] and dice.tilt[i] < cfg.unsupported_line and not near_edge:
                reasons.append(Reason("flag_unsupported", VALID, sec["cocked"], (i,),
                                      f"tilt flag p={dice.tilt[i]:.3f} on a die with no die or "
                                      "wall within reach to lean on: it rests on the floor"))
            elif steep[i] and dice.tilt[i] < cfg.steep_line and not near_edge:
                reasons.append(Reason("flag_far_from_wall", VALID, sec["cocked"], (i,),
                                      f"tilt flag p={dice.tilt[i]:.3f} on a die {wall[i]:.2f} of "
                                      "its sides from the wall and with no die in reach: too "
                                      "far for a shallow lean, and a steep one reads higher"))
            elif not profile.cocked_counts and not near_edge \
                    and dice.tilt[i] < cfg.no_roll_sure_tilt:
                reasons.append(Reason("cocked_doubt", REVIEW, sec["cocked"], (i,),
                                      f"tilt flag p={dice.tilt[i]:.3f}: the die may not lie "
                                      "flat on the bottom of the shaker (a no roll); too "
                                      "weak a sign to call it, a person decides"))
            elif not profile.cocked_counts:
                reasons.append(Reason("cocked", NO_ROLL, sec["cocked"], (i,),
                                      "die not flat on the bottom of the shaker"))
                continue
            elif not void and probs[0] - probs[1] < cfg.void_margin and (
                    cfg.void_faces_review
                    or 0 < cfg.void_faces_margin <= margin):  # NaN: never
                reasons.append(Reason("void_doubt", REVIEW, sec["dispute"], (i,),
                                      f"cocked die read as {int(dice.face[i])} at "
                                      f"p={probs[0]:.2f} and another face at {probs[1]:.2f}: "
                                      "it may rest on more than one side (void) or be "
                                      "misread; a person decides"))
                continue
            elif void or probs[0] - probs[1] < cfg.void_margin:
                read = f"up margin {margin:.0f} deg" if void else \
                    f"best faces p={probs[0]:.2f} and {probs[1]:.2f}"
                reasons.append(Reason("cocked_void", NO_ROLL, sec["void"], (i,),
                                      f"cocked die resting on more than one side: void ({read})"))
                continue
            elif near_edge:
                reasons.append(Reason("cocked_near_edge", REVIEW, sec["dispute"], (i,),
                                      f"cocked die with an up margin of {margin:.0f} deg (0 on "
                                      "an edge): it may rest on more than one side (void) or "
                                      f"count as {int(dice.face[i])}"))
            elif dice.tilt[i] >= cfg.counts_record_line:
                reasons.append(Reason("cocked_counts", VALID, sec["cocked"], (i,),
                                      f"cocked die (tilt p={dice.tilt[i]:.2f}) counts as "
                                      f"{int(dice.face[i])}, the face most nearly up"))
        if dice.confidence[i] < cfg.min_confidence:
            if _agreeing(dice, i, profile, cfg):
                reasons.append(Reason("low_confidence_agreed", VALID, sec["dispute"], (i,),
                                      f"face {int(dice.face[i])} read at "
                                      f"p={dice.confidence[i]:.3f}, the pip layout agrees"))
            else:
                reasons.append(Reason("low_confidence", REVIEW, sec["dispute"], (i,),
                                      f"face {int(dice.face[i])} read at "
                                      f"p={dice.confidence[i]:.3f}"))
        if dice.pip_face[i] != dice.face[i]:
            reasons.append(Reason("readings_disagree", REVIEW, sec["dispute"], (i,),
                                  f"classifier reads {int(dice.face[i])}, pips count "
                                  f"{int(dice.pip_face[i]) or 'unreadable'}"))


def _agreeing(dice: Dice, i: int, profile: GameProfile, cfg: VerdictConfig) -> bool:
    """A face under the confidence line that still counts (rule 46, `agreeing_confidence`)."""
    return bool(cfg.agreeing_confidence > 0 and profile.expected <= cfg.agreeing_max_dice
                and dice.face[i] != 1 and dice.pip_face[i] == dice.face[i]
                and dice.confidence[i] >= cfg.agreeing_confidence)
