"""The roll verdict: every row of the rules table of DESIGN.md, for each game.

Pure: `verdict(dice, profile, zones, config) -> RollVerdict`. The strictest finding wins:
no roll, then needs review, then valid. Every finding is a `Reason` with a machine-readable
code, the section of the game's chapter, and the dice it concerns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import call_stands
from .dice import Dice
from .profiles import GameProfile, Zones, edge_distance, inside
from .verdict_config import VerdictConfig
from .zoom import box_overlap

__all__ = ["NO_ROLL", "REVIEW", "VALID", "Reason", "RollVerdict", "VerdictConfig",
           "agreeing_faces", "thrown", "verdict"]

VALID, NO_ROLL, REVIEW = "valid", "no_roll", "needs_review"
_RANK = {VALID: 0, REVIEW: 1, NO_ROLL: 2}


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


def _past_the_edge(dice: Dice, zones: Zones, profile: GameProfile, own: np.ndarray,
                   cfg: VerdictConfig) -> np.ndarray:
    """(N,) bool: with `edge_counts`, dice whose centre lies outside the play zone within
    `zone_edge_line` x their box side `own` of its edge (not in the held area while dice
    are held): in or out cannot be told, so they count in play and `_zone_edge` holds them."""
    if not cfg.edge_counts or cfg.zone_edge_line <= 0 or not len(dice):
        return np.zeros(len(dice), bool)
    d = edge_distance(dice.centers, zones.play)
    out = (d < 0) & (-d < cfg.zone_edge_line * own)
    if profile.extra_roll and zones.held:
        out &= ~inside(dice.centers, zones.held)
    return out


def _stable_order(dice: Dice, idx: np.ndarray) -> np.ndarray:
    """Left to right, then top to bottom, in bands of one die height so near ties are stable."""
    if len(idx) == 0:
        return idx
    size = float(np.median(dice.boxes[idx, 2] - dice.boxes[idx, 0])) or 1.0
    x = np.round(dice.centers[idx, 0] / size)
    return idx[np.lexsort((dice.centers[idx, 1], x))]


def verdict(dice: Dice, profile: GameProfile, zones: Zones,
            config: VerdictConfig | None = None,
            frame: tuple[int, int] | None = None) -> RollVerdict:
    """Calls one frame of settled dice.

    Args:
        dice: every die the reader found, in frame pixels.
        profile: the game's rules and the number of dice expected.
        zones: calibrated polygons in the same pixels.
        config: thresholds.
        frame: the frame's (width, height): with it, a die the frame's edge may cut is held
            (`VerdictConfig.frame_cut_line`); None judges no die by the frame's edge.
    """
    cfg = config or VerdictConfig()
    reasons: list[Reason] = []
    _zone_reasons(dice, profile, zones, reasons)
    # The holding boxes lie on the throw box layout (675a.4(e)): on a first throw a die that
    # stops on one is in the box like any other; only on the Extra Roll does it hold a die
    # that was not thrown.
    own = _box_sides(dice.boxes)
    play = np.flatnonzero(thrown(dice, zones, holding=profile.extra_roll)
                          | _past_the_edge(dice, zones, profile, own, cfg))
    _count_reasons(profile, len(play), reasons)
    side, nearest = _neighbours(dice, own)
    if zones.die_px is not None and cfg.die_side_floor > 0:
        side = np.maximum(side, cfg.die_side_floor * zones.die_px)
    apart, wall = _support_gaps(dice, profile, zones, play, side, nearest)
    free = (apart > cfg.support_reach) & (wall > cfg.support_reach)
    _stacked_reasons(dice, profile, play, cfg, reasons, side, nearest, free)
    steep = (apart > cfg.support_reach) & (wall > cfg.shallow_reach) & ~free
    _die_reasons(dice, profile, play, cfg, reasons, free, steep, wall)
    _partly_hidden(profile, play, own[play], cfg, reasons,
                   _at_frame_edge(dice.boxes[play], frame), dice.face[play])
    _zone_edge(dice, profile, zones, play, own[play], cfg, reasons)
    _boxed_inside(dice, profile, play, cfg, reasons)
    _faint(dice, profile, play, cfg, reasons)
    _doubtful(dice, profile, play, cfg, reasons)
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
    The larger side only lengthens the reach, so fewer flags are set aside: the safe side.
    Both can be short; `verdict` then floors the side at the calibrated die's (rule 71)."""
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


def _at_frame_edge(boxes: np.ndarray, frame: tuple[int, int] | None) -> np.ndarray:
    """(N,) bool: the box reaches within a pixel of the frame's edge, or past it (the
    detector boxes a cut die around what shows, and may run it out of the frame)."""
    if frame is None:
        return np.zeros(len(boxes), bool)
    w, h = frame
    return ((boxes[:, 0] <= 1) | (boxes[:, 1] <= 1) | (boxes[:, 2] >= w - 1)
            | (boxes[:, 3] >= h - 1))


def _partly_hidden(profile: GameProfile, play: np.ndarray, own: np.ndarray, cfg,
                   reasons, at_edge: np.ndarray, faces: np.ndarray) -> None:
    """Review for a die in play (box sides `own`, read `faces`) boxed under
    `partly_hidden_line` x the median side of the other dice in play, under `frame_cut_line`
    x it where its box reaches the frame's edge (`at_edge`), or read as a 1 under
    `small_one_line` x it: the camera may see only part of it, and read only the pips in
    view (a lone pip is all that shows of a die mostly hidden, rule 64)."""
    if len(play) < 2:
        return
    for k, i in enumerate(play):
        usual = float(np.median(np.delete(own, k)))
        cut = at_edge[k] and own[k] < cfg.frame_cut_line * usual
        one = faces[k] == 1 and own[k] < cfg.small_one_line * usual
        if cut or one or own[k] < cfg.partly_hidden_line * usual:
            where = ("at the frame's edge, which may cut it" if cut
                     else "read as a 1: a lone pip may be all that shows of it" if one
                     and own[k] >= cfg.partly_hidden_line * usual
                     else "it may be partly out of view")
            reasons.append(Reason("die_partly_hidden", REVIEW, profile.sections["dispute"],
                                  (int(i),), f"boxed at {own[k]:.0f} px where the other dice "
                                  f"are {usual:.0f} px: {where}"))


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


def _faint(dice: Dice, profile: GameProfile, play: np.ndarray, cfg, reasons) -> None:
    """Review for a die in play the detector scored under `faint_score`: a die of the
    reader's faint look, which only fills a count the frame was short of (rule 66)."""
    for i in play[dice.det_score[play] < cfg.faint_score]:
        reasons.append(Reason("die_faint", REVIEW, profile.sections["dispute"], (int(i),),
                              f"the detector scored it {dice.det_score[i]:.2f}: found only "
                              "by the faint look, a die the camera barely sees"))


def _doubtful(dice: Dice, profile: GameProfile, play: np.ndarray, cfg, reasons) -> None:
    """Review for a die in play whose die-or-not probability reads under `doubtful_die`: a
    place the reader added only to fill a count it was short of (rule 73)."""
    for i in play[dice.die_prob[play] < cfg.doubtful_die]:  # NaN (not read): never
        reasons.append(Reason("die_doubtful", REVIEW, profile.sections["dispute"], (int(i),),
                              f"read as a die at p={dice.die_prob[i]:.2f}: added only to fill "
                              "the count, the camera is not sure it is a die"))


def _boxed_inside(dice: Dice, profile: GameProfile, play: np.ndarray, cfg, reasons) -> None:
    """Review for each pair of dice, one in play, whose boxes share at least `inside_line`
    of the smaller box's area: from above, dice at rest side by side or leaning share only
    a sliver; more is a die on a die, or one die found twice, and the faces read may not be
    the roll's (rule 63)."""
    if cfg.inside_line <= 0 or len(dice) < 2 or not len(play):
        return
    shared = box_overlap(dice.boxes[play], dice.boxes)
    shared[np.arange(len(play)), play] = 0.0  # a box with itself
    # The share is of the smaller box, so (i, j) and (j, i) are one pair with one share.
    pairs = {tuple(sorted((int(play[k]), int(j)))): float(shared[k, j])
             for k, j in zip(*np.nonzero(shared >= cfg.inside_line), strict=True)}
    for (i, j), share in sorted(pairs.items()):
        reasons.append(Reason("dice_overlap", REVIEW, profile.sections["dispute"], (i, j),
                              f"boxes share {share:.0%} of the smaller one: a die on a die, "
                              "or one die found twice; a person reads the faces"))


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
        lamps = _lamp_reading(dice, i, profile, cfg)  # None without lamps or outside P&H
        flagged = dice.tilt[i] >= tilt_line or near_edge
        if lamps and not flagged:
            # Two independent readings disagree (DESIGN: a person decides): the lamps see a
            # lean the tilt head missed, or shade a flat die wrongly.
            reasons.append(Reason("lamps_tilted", REVIEW, sec["cocked"], (i,),
                                  f"the lamps read the top face {dice.lamp_tilt[i]:.1f} deg "
                                  f"off level, the tilt flag (p={dice.tilt[i]:.3f}) flat: "
                                  "it may not lie flat on the bottom of the shaker"))
        if flagged:
            # A flag the lamps confirm is not freed for want of support: they see the lean.
            if free[i] and dice.tilt[i] < cfg.unsupported_line and not near_edge and not lamps:
                reasons.append(Reason("flag_unsupported", VALID, sec["cocked"], (i,),
                                      f"tilt flag p={dice.tilt[i]:.3f} on a die with no die or "
                                      "wall within reach to lean on: it rests on the floor"))
            elif steep[i] and dice.tilt[i] < cfg.steep_line and not near_edge and not lamps:
                reasons.append(Reason("flag_far_from_wall", VALID, sec["cocked"], (i,),
                                      f"tilt flag p={dice.tilt[i]:.3f} on a die {wall[i]:.2f} of "
                                      "its sides from the wall and with no die in reach: too "
                                      "far for a shallow lean, and a steep one reads higher"))
            elif lamps is False and not near_edge and dice.tilt[i] < cfg.no_roll_sure_tilt:
                reasons.append(Reason("lamps_level", VALID, sec["cocked"], (i,),
                                      f"tilt flag p={dice.tilt[i]:.3f}; the lamps read the top "
                                      f"face {dice.lamp_tilt[i]:.1f} deg off level: flat"))
            elif not profile.cocked_counts and dice.tilt[i] < cfg.no_roll_sure_tilt and (
                    not near_edge or margin >= cfg.no_roll_sure_margin_deg):
                edge = f", up margin {margin:.0f} deg" if near_edge else ""
                reasons.append(Reason("cocked_doubt", REVIEW, sec["cocked"], (i,),
                                      f"tilt flag p={dice.tilt[i]:.3f}{edge}: the die may not "
                                      "lie flat on the bottom of the shaker (a no roll); too "
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
            if _agreeing(dice, i, profile, cfg, play):
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


def _lamp_reading(dice: Dice, i: int, profile: GameProfile, cfg) -> bool | None:
    """Whether the lamps read die `i` cocked (True) or level (False), in a game where a
    cocked die is a no roll; None where they give no reading or are not used."""
    deg = float(dice.lamp_tilt[i])
    if profile.cocked_counts or cfg.lamp_cocked_deg <= 0 or not np.isfinite(deg):
        return None
    return deg >= cfg.lamp_cocked_deg


def agreeing_faces(face: np.ndarray, pip_face: np.ndarray, confidence: np.ndarray,
                   floor: float) -> np.ndarray:
    """(N,) bool: faces rule 46 lets count under the confidence line, whatever the roll's
    size: the pips agree, the face is not a 1 (a lone blob is what a die seen in part, or a
    tiny one, shows) and its probability reaches `floor` (0: none). `calibrate model` tests
    the same reads (calibration/model.py)."""
    face, pip_face = np.asarray(face), np.asarray(pip_face)
    return (floor > 0) & (face != 1) & (pip_face == face) & (np.asarray(confidence) >= floor)


def _agreeing(dice: Dice, i: int, profile: GameProfile, cfg: VerdictConfig,
              play: np.ndarray) -> bool:
    """A face under the confidence line that still counts (rule 46, `agreeing_confidence`;
    in larger rolls, on a die boxed clear of every other, rule 62, `agreeing_alone`, and on
    one touching another at the higher `agreeing_touching`, rule 74), never on a die boxed
    under `agreeing_box_line` of the other dice in play (rule 75)."""
    others = play[play != i]
    if cfg.agreeing_box_line > 0 and len(others):
        # A die partly out of view shows, and the pip layout fits, only the pips in view.
        sides = _box_sides(dice.boxes)
        if sides[i] < cfg.agreeing_box_line * float(np.median(sides[others])):
            return False
    if profile.expected <= cfg.agreeing_max_dice:
        floor = cfg.agreeing_confidence
    elif not _touches(dice.boxes, i):
        floor = cfg.agreeing_confidence if cfg.agreeing_alone else 0.0
    elif cfg.agreeing_touching > 0 and cfg.agreeing_confidence > 0:
        # A touching die in a larger roll (rule 74): a stricter rule 46, off with it (a
        # profile fitted before rule 46 was tested loads with it off) and never under it.
        floor = max(cfg.agreeing_touching, cfg.agreeing_confidence)
    else:
        return False
    return bool(agreeing_faces(dice.face[i], dice.pip_face[i], dice.confidence[i], floor))


def _touches(boxes: np.ndarray, i: int) -> bool:
    """Whether box i shares any pixels with another box."""
    return bool((box_overlap(boxes[i:i + 1], np.delete(boxes, i, axis=0)) > 0).any())
