"""Strict settings of the dice reader (pydantic, extra fields refused)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"

# strict, as edge/config.py: a profile or calibration file giving "0.05" for a number or
# "yes" for a bool is a hand edit gone wrong (JSON has both natively), so it is refused with
# the field's name rather than run on; no inf or nan, which no bound catches.
STRICT = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


def lax(*args, **kwargs):
    """A field validated laxly: files and command lines give a path as a string."""
    return Field(*args, strict=False, **kwargs)


def _array_as_tuple(value: Any) -> Any:
    # A file can spell a tuple only as an array. Strict pydantic takes an array for a tuple
    # in JSON mode (model_validate_json) but refuses a list in python mode, which is how
    # YAML (yaml.safe_load), json.load and model_dump(mode="json") hand data over; a lax
    # tuple would take a set too, in no order. So a list is the tuple it spells, its items
    # still checked strictly ("640" or 640.0 for an int refused), and nothing else is one.
    if isinstance(value, list):
        return tuple(value)
    if isinstance(value, tuple):
        return value
    raise PydanticCustomError("tuple_type", "Input should be a list, written [a, b, ...] "
                              "in a file (got {kind})", {"kind": type(value).__name__})


# `Annotated[tuple[...], FROM_ARRAY]`: a strict tuple field that files can write.
FROM_ARRAY = BeforeValidator(_array_as_tuple)


class ReaderConfig(BaseModel):
    """How frames become `Dice`; defaults match the committed models' cards."""

    model_config = STRICT

    # The files a frame is read with when no game is named (`dicecall predict`, `evaluate`):
    # session 34's wider detector and the reader whose flags were fine-tuned behind its boxes
    # read dice of styles no training set holds best (models/reader.md, session 37, rule 32);
    # since session 53 that reader's face is fine-tuned on scenes rendered at the camera's
    # size, which reads large dice better (rule 54), and no game's lines were judged on it.
    # Each game swaps in the files its verdict lines were judged on (`for_game`).
    detector: Path = lax(MODELS_DIR / "detector.onnx", description="detector ONNX file")
    reader: Path = lax(MODELS_DIR / "reader.onnx", description="crop reader ONNX file")
    # Where a cocked die counts (Craps, High Roll) the dice are thrown onto a table or into
    # a box, and the tilt flag changes no call on its own; there a detector fine-tuned on
    # newer scenes finds more of the touching dice and dice by chips (docs/verdicts.md,
    # session 25, rule 15), and session 34's reader reads them (session 36, rule 31): the
    # `reader` of sessions 37-52, whose faces these games' lines were judged on.
    thrown_detector: Path | None = lax(
        MODELS_DIR / "detector.thrown.onnx",
        description="detector ONNX file for games where a cocked die counts (Craps, High "
                    "Roll); None: `detector`")
    thrown_reader: Path | None = lax(
        MODELS_DIR / "reader.thrown.onnx",
        description="crop reader ONNX file for games where a cocked die counts (Craps, High "
                    "Roll); None: `reader`")
    # In the shaker (Props & Hops) a cocked die is a no roll, and the tilt line was set
    # behind session 3's detector and session 17's reader: behind the wider detector's
    # tighter boxes the flags read leaning dice lower and the line gave back what the other
    # games gained (models/reader.md, sessions 34-35, rules 29-30).
    shaker_detector: Path | None = lax(
        MODELS_DIR / "detector.shaker.onnx",
        description="detector ONNX file for games where a cocked die is a no roll (Props & "
                    "Hops); None: `detector`")
    shaker_reader: Path | None = lax(
        MODELS_DIR / "reader.shaker.onnx",
        description="crop reader ONNX file for games where a cocked die is a no roll (Props "
                    "& Hops); None: `reader`")
    # A face fine-tuned again reads more dice right but less surely (models/reader.md, rule
    # 58), so the temperature the lines were fitted with belongs to the file it was fitted
    # on: where a cocked die counts, the games read `thrown_reader` with this one. A table's
    # own calibrated `temperature` (`dicecall calibrate model`) wins over it.
    thrown_temperature: float | None = Field(
        None, gt=0.0, le=10.0,
        description="face logit temperature of `thrown_reader` (Craps, High Roll); None: "
                    "`temperature`")
    det_size: int = Field(320, ge=64, le=1280, multiple_of=32,
                          description="detector input side in pixels (model card)")
    crop_size: int = Field(64, ge=16, le=256, description="reader crop side in pixels")
    crop_scale: float = Field(1.5, gt=1.0, le=3.0,
                              description="crop side as a multiple of the die's box side")
    # Second crops of each die (session 16, docs/verdicts.md "Session 16"): the detector's
    # box on a cocked die is often too small or off its centre, and the 1.5 crop then cuts
    # part of the die away. Each reading named below can be averaged with that of a second
    # crop (logits for the face and the tilt, degrees for the up margin). The tilt at 2.1
    # ranked cocked dice better (AUC 0.895 -> 0.915 in the shaker on a tuning suite), but no
    # second crop passed the rule fixed for it on untouched verdict suites, so all are off
    # (0) and the runtime reads one crop, as before. They stay for the benches
    # (`tune_verdicts.py --tilt-scale / --face-scale / --margin-scale`) and a later reader.
    tilt_crop_scale: float = Field(0.0, ge=0.0, le=3.0,
                                   description="second, wider crop for the tilt flag, as a "
                                               "multiple of the box side (0: none)")
    face_crop_scale: float = Field(0.0, ge=0.0, le=3.0,
                                   description="second crop for the face, as a multiple of "
                                               "the box side (0: none)")
    margin_crop_scale: float = Field(0.0, ge=0.0, le=3.0,
                                     description="second crop for the up margin, as a "
                                                 "multiple of the box side (0: none)")
    det_threshold: float = Field(0.2, gt=0.0, lt=1.0,
                                 description="minimum detector score to keep a die")
    die_threshold: float = Field(0.6, ge=0.0, lt=1.0,
                                 description="minimum reader die-or-not probability to keep a "
                                             "detection (0 keeps all; models/reader.md)")
    max_dice: int = Field(100, ge=1, le=500, description="most dice kept per frame")
    # 0.4 / 0.5 since session 10 (0.5 / 0.45 before): with session 10's reader the count
    # matched the face on 97.9 % of the synthetic validation sets' flat dice instead of
    # 95.5 %, and on the tuning, held-out and first fresh verdict suites pooled it let as few
    # unsafe rolls through (15 of 3,351) while passing 56.4 % of good rolls instead of 54.1 %
    # (docs/verdicts.md). With session 9's reader a wider radius had cost unsafe rolls.
    pip_threshold: float = Field(0.4, gt=0.0, lt=1.0,
                                 description="pip heatmap peak needed to count a pip "
                                             "(pip_reading 'peaks')")
    pip_radius: float = Field(0.5, gt=0.0, le=1.0,
                              description="count pips within this x the die side of the crop "
                                          "centre (a neighbour's pips lie further out)")
    # A neighbour's pips, or a side face's, leave faint peaks that still cross the absolute
    # line on a small, blurred die; a line relative to the crop's strongest pip drops them
    # when the die's own pips are clear. Off: in the verdict it moved good rolls valid by
    # under half a point on the tuning suite (docs/verdicts.md, session 27).
    pip_relative: float = Field(0.0, ge=0.0, lt=1.0,
                                description="also need this x the crop's strongest peak within "
                                            "the radius to count a pip (0: off; pip_reading "
                                            "'peaks')")
    # "layout" fits the six pip layouts to the heatmap (`vision.pip_layout`) instead of
    # counting its peaks over `pip_threshold`: a weak pip among strong ones is absent, a map
    # whose pips are all faint still reads. Since session 47 (rule 45, models/reader.md):
    # on its untouched suite good Craps and High Roll rolls valid 79.57 -> 81.64 %, no
    # unsafe roll through and no wrong face either way.
    pip_reading: Literal["peaks", "layout"] = Field(
        "layout", description="pip reading: 'peaks' counts heatmap peaks over pip_threshold, "
                             "'layout' fits the six pip layouts to the heatmap")
    near_peaks: float = Field(0.5, ge=0.0, le=2.0,
                              description="drop a peak closer than this x a stronger die's "
                                          "min(w, h): the same die (models/detector.md)")
    # The zoomed second look (vision/zoom.py): 0 turns it off.
    zoom_below: float = Field(24.0, ge=0.0, le=320.0,
                              description="look again, enlarged, when the median die found is "
                                          "narrower than this many detector pixels (0: never)")
    zoom_to: float = Field(28.0, gt=0.0, le=320.0,
                           description="enlarge at most until the median die spans this many "
                                       "detector pixels")
    zoom_margin: float = Field(1.5, ge=0.0, le=10.0,
                               description="the second look reaches this many die sides past "
                                           "the outermost dice")
    zoom_min_gain: float = Field(1.25, ge=1.0, le=10.0,
                                 description="look again only if it enlarges the dice this much")
    zoom_clusters: int = Field(1, ge=1, le=8,
                               description="second looks: one window per cluster of dice, "
                                           "strongest first, at most this many (1: one "
                                           "window around every die)")
    zoom_gap: float = Field(3.0, gt=0.0, le=50.0,
                            description="dice closer than this many median die sides are "
                                        "one cluster")
    zoom_prefer_first: bool = Field(False, description="a die both looks found keeps the "
                                                       "first look's box (else the surer look's)")
    # A look closer when the frame holds fewer dice than the game expects (`DiceReader.closer`;
    # docs/verdicts.md, session 45, rule 41): the first look's window spans every peak, chips
    # too, and a pair of touching dice in it stays one peak; a die that merged so makes a good
    # roll a no roll (`die_missing`).
    short_look: bool = Field(True, description="when fewer dice than the game expects are "
                                               "kept, look again, enlarged, around those kept")
    # A lone kept die may be one of a touching pair, or the pair boxed as one: enlarged until
    # it spans `zoom_to`, the pair can still look like one die to the detector, and a box
    # holding both already spans about that, so the closer look declines (`zoom_min_gain`;
    # docs/verdicts.md, session 57, rule 60). Enlarging more at once loses dice the
    # closer look finds now (a lone die at twice the size), so it is a second look, taken
    # only when the first leaves the frame short with one die kept. 56 since rule 60 met
    # its judge (FRESH87, both sizes).
    short_look_again: float = Field(56.0, ge=0.0, le=320.0,
                                    description="still short after the closer look with one "
                                                "die kept, look once more, enlarged until it "
                                                "spans this many detector pixels (0: never)")
    # A kept die the closer look (or the look again) splits into two is read again from the
    # two new boxes, each cut tight around one die; a die on a die boxed as one had its
    # stacked flag read from the pair, and the split top die can lose it (bench craps set,
    # `craps_0000008`: 0.90 -> 0.24; docs/verdicts.md, session 58, rule 61). On since rule 61
    # met its judge (FRESH88, both sizes: 3 more dice on dice called off, nothing else moved).
    closer_keeps_stacked: bool = Field(True, description="dice that replace a kept die in "
                                                          "the closer look keep at least its "
                                                          "stacked flag")
    # A look at the frame shrunk, where a place the detector found was dropped by the reader
    # or the frame is still short of its count (`DiceReader.wider`): a dark die with bright
    # pips, or one far larger than the detector's training dice, is found as its pips, and
    # the reader drops each pip (models/reader.md, session 46, rule 42). On without a game
    # since session 53 (rule 55: at the camera's and a photo's sizes it read 0.20-0.23
    # points more held-out dice right, none fewer, and epanemu 3 more); every game reads
    # without it (`for_game`), as rule 42 left it (0.19 points at 640x480, 0.2 asked).
    wide_look: float = Field(2.0, ge=0.0, le=8.0,
                             description="look again at the frame shrunk this many times "
                                         "where the reader dropped a detection (<= 1: never)")
    # A table knows its roll's count and looks wide only when short of it; `predict` and
    # `evaluate` on a folder of photos know no count, and a dropped place is their only sign.
    wide_on_drops: bool = Field(True, description="without a count, look wide where the "
                                                  "reader dropped a place the detector found")
    wide_apart: float = Field(0.1, ge=0.0, le=1.0,
                              description="a wide-look die is added only where it shares no "
                                          "more than this of the smaller box with a kept die")
    wide_die: float = Field(0.99, ge=0.0, lt=1.0,
                            description="die-or-not probability a wide-look die needs")
    # A look at the detector's fainter peaks, when a table's frame is still short of its
    # count after every other look (`DiceReader.fainter`; docs/verdicts.md, session 62,
    # rule 66): a die the detector scored under `det_threshold` (a black die showing a 1 on a
    # dark cloth, one leaning on the chips, one of a touching cluster) makes a good roll
    # `die_missing`, a no roll. On 10 of 12 such rolls of the spent FRESH94 the die-or-not
    # head read a missed die's place 0.57-1.00, and every place holding no die 0.08 or less.
    # Only where the frame is short, only up to the count, and only where the head is sure
    # (`faint_die`); the verdict holds a die scored under `det_threshold` for a person
    # (`die_faint`). 0.05 since rule 66 met its judge (FRESH95: good rolls called off
    # 45 -> 38 at 640x480 and 33 -> 30 at 1920x1440, none valid fewer, no unsafe roll or
    # wrong face more).
    faint_det: float = Field(0.05, ge=0.0, lt=1.0,
                             description="still short of the count after the other looks, "
                                         "look at the detector's peaks down to this score "
                                         "(0: never)")
    faint_die: float = Field(0.9, ge=0.0, lt=1.0,
                             description="die-or-not probability a faint-look die needs")
    # Rule 73 (session 65, docs/verdicts.md): still short after the faint look, the places
    # it read under `faint_die` fill the count where the head reads them at least this, the
    # surest first: on the spent FRESH99 the dice the detector found and the head dropped
    # (a touching pair boxed as one, a black die boxed around one pip, a die half hidden)
    # read 0.10-0.45, and a good roll short of one was called off for want of it. Each
    # carries its `Dice.die_prob`, under the line, and the verdict holds it for a person
    # (`VerdictConfig.doubtful_die`); it never settles a roll. Needs the faint look on.
    # Off: rule 73 was not met on the untouched FRESH100 (seeds 19801-19803): it kept one
    # good roll at each size from being called off, and turned 42 unsafe rolls the camera
    # called off into reviews (6 for each good roll was the most the rule allowed).
    short_die: float = Field(0.0, ge=0.0, lt=1.0,
                             description="still short of the count after the faint look, add "
                                         "places the die-or-not head reads at least this, "
                                         "held for review (0: never)")
    zoom_keep_apart: float = Field(0.75, ge=0.0, le=5.0,
                                   description="a first-look die stays when no second-look die "
                                               "is nearer than this x its side")
    # The tiled look (vision/tiles.py): off in the runtime, whose frames are the table's
    # calibrated view (its verdict lines were tuned on untiled reads); `predict` and
    # `evaluate` turn it on for photos of any size.
    tile_zoom: float = Field(0.0, ge=0.0, le=16.0,
                             description="also read a frame in overlapping square tiles this "
                                         "many times smaller than its long side, for dice too "
                                         "small in it (0: never)")
    # 2: the detector was trained at 0.6-2.2 times the letterbox scale (models/detector.md),
    # so a 640 px photo's 214 px tiles (enlarged 1.5 times) find dice of 15 px it misses
    # whole (models/reader.md, "The tiled look", rule 38; 1 until session 41).
    tile_enlarge: float = Field(2.0, ge=1.0, le=4.0,
                                description="a tile may be enlarged up to this many times to "
                                            "the detector's size (1: no tile under det_size)")
    tile_overlap: float = Field(0.25, ge=0.0, le=0.75,
                                description="share of a tile's side its neighbours overlap")
    # 24: at 10 the whole frame kept loose boxes of small dice that the tiles read better
    # (bench_tiles' 3x3 mosaics 69.6 % read right against 78.8 %, scratch runs, session 40).
    # The choice between the whole frame's reading and the tiles' (tiles.choose).
    tile_gain: int = Field(4, ge=1, le=100,
                           description="the tiled reading wins with at least this many more "
                                       "sure dice (p >= 0.9, pips agreeing)")
    tile_gain_share: float = Field(0.2, ge=0.0, le=10.0,
                                   description="... and at least this share more")
    tile_gain_enlarged: int = Field(1, ge=1, le=100,
                                    description="tile_gain for tiles enlarged to det_size")
    tile_small_below: float = Field(16.0, gt=0.0, le=320.0,
                                    description="enlarged tiles are read only when the whole "
                                                "frame's dice span under this many detector "
                                                "pixels (median), or it read none")
    tile_size_ratio: float = Field(0.5, ge=0.0, le=1.0,
                                   description="a die only enlarged tiles saw stays when at "
                                               "least this share of the sure dice's side "
                                               "(tiles.tiled_keep)")
    tile_split: float = Field(24.0, gt=0.0, le=320.0,
                              description="dice spanning this many detector pixels in the "
                                          "whole-frame look are its; smaller ones the tiles'")
    # The reader was trained with label smoothing 0.05, so at temperature 1 its top
    # probability stays near 0.96 and no read passes a 0.98 acceptance threshold; 0.79 is
    # the NLL fit on its validation dice (models/reader.md). `dicecall calibrate model`
    # refits it per table.
    temperature: float = Field(0.79, gt=0.0, le=10.0,
                               description="face logit temperature from calibration")
    views: int = Field(4, ge=1, le=8,
                       description="views of each crop read and averaged: quarter turns, then "
                                   "mirrored (vision/views.py); 1 reads each crop once")
    # One view first, the rest of `views` only for a die whose first reading is in doubt
    # (docs/verdicts.md, session 21, rule 11): the other views change the call only for a
    # die near one of the verdict's lines, and most dice are not. A die in doubt gets the
    # same reading as when every die is read in `views` views. `first_views` >= `views`
    # reads every die in all of them, as the runtime did until session 21. Kept on two
    # untouched suites (seeds 13700-13802): the same unsafe rolls let through in every game,
    # 67.03 % of good rolls valid against 64.95 %, 2.14 views a die on the tuning suites.
    first_views: int = Field(1, ge=1, le=8,
                             description="views of every crop read first; the rest of `views` "
                                         "only for a die in doubt (>= views: every die in all)")
    sure_face: float = Field(0.98, ge=0.0, le=1.0,
                             description="a first reading under this face probability (after "
                                         "the temperature) is in doubt; so is one whose pip "
                                         "count disagrees with its face")
    # In Props & Hops a die passes if its first view reads under both this and the no-roll
    # line, or its four-view average reads under the line; so the two are one choice. 0.015
    # with the line 0.035 since session 28 (rule 19, docs/verdicts.md): on its untouched
    # suite no more unsafe rolls let through than 0.03 with 0.025, and more good ones
    # passed. 0.03 in sessions 21-27.
    sure_tilt: float = Field(0.015, ge=0.0, le=1.0,
                             description="a first reading with this tilt or more is in doubt; "
                                         "1 where a cocked die counts (`for_game`)")
    sure_stacked: float = Field(0.5, ge=0.0, le=1.0,
                                description="a first reading with this stacked probability "
                                            "or more is in doubt")
    sure_margin: float = Field(42.0, ge=0.0, le=90.0,
                               description="a first reading with an up margin under this many "
                                           "degrees is in doubt")
    sure_die: float = Field(0.8, ge=0.0, le=1.0,
                            description="a first reading with a die-or-not probability under "
                                        "this is in doubt")
    # The detector's wide net (peaks from 0.2) catches chips and felt marks; in Craps nearly
    # half the crops are such places, read at a die-or-not probability under 0.05 in one
    # view, and each cost three more views to be dropped all the same (session 23).
    sure_no_die: float = Field(0.05, ge=0.0, le=1.0,
                               description="a first reading with a die-or-not probability "
                                           "under this is surely no die: not read again")
    # Rule 52 (models/reader.md, session 51): held-out die styles rendered at 1920x1440 read
    # worse than the same scenes at 640x480, most of all dice with small pips, because a
    # crop cut at several times downscale is sharper than any the reader trained on. 1.5
    # read 0.89 points more of them right there (UNSEEN-X), 1.63 at 4032x3024. Off in the
    # games (`for_game`) unless set: their lines were judged on 640x480 suites without it.
    soften_sigma: float = Field(1.5, ge=0.0, le=5.0,
                                description="Gaussian sigma (crop pixels) blurring a crop cut "
                                            "at more than 2x downscale (preprocess."
                                            "SOFTEN_BELOW); 0: off")
    threads: int = Field(2, ge=1, le=16, description="onnxruntime intra-op threads")
    warmup: int = Field(2, ge=0, le=20, description="warm-up runs when the session opens")

    @model_validator(mode="after")
    def _second_crops_differ(self) -> ReaderConfig:
        if 0 < self.tilt_crop_scale <= self.crop_scale:
            raise ValueError(f"tilt_crop_scale {self.tilt_crop_scale} must be 0 (off) or wider "
                             f"than crop_scale {self.crop_scale}")
        if 0 < self.margin_crop_scale <= self.crop_scale:
            raise ValueError(f"margin_crop_scale {self.margin_crop_scale} must be 0 (off) or "
                             f"wider than crop_scale {self.crop_scale}")
        if 0 < self.face_crop_scale <= 1.0 or self.face_crop_scale == self.crop_scale:
            raise ValueError(f"face_crop_scale {self.face_crop_scale} must be 0 (off) or another "
                             f"crop than crop_scale {self.crop_scale}, wider than the box")
        return self


def for_game(cfg: ReaderConfig, cocked_counts: bool) -> ReaderConfig:
    """`cfg` for a table of a game where a cocked die counts (Craps, High Roll: 623a.9(b),
    675a.4(c)) or is a no roll (Props & Hops, 668a.3(h)), with the files each game's verdict
    lines were judged on: `thrown_detector` and `thrown_reader`, or `shaker_detector` and
    `shaker_reader`, those that are set (docs/verdicts.md, session 25, rule 15;
    models/reader.md, sessions 36-37, rules 31-32). Where a cocked die counts the tilt changes
    the call of a die only through its up margin and its two best faces, which put it in
    doubt themselves, so the tilt alone puts no die in doubt; where it is a no roll it does.
    Crops are not softened (`soften_sigma` 0) and the frame is not looked at shrunk
    (`wide_look` 0) unless `cfg` sets them: rules 52 and 55 judged the reader without a
    game, and no game's lines were chosen with them (models/reader.md)."""
    pairs = ((("detector", cfg.thrown_detector), ("reader", cfg.thrown_reader)) if cocked_counts
             else (("detector", cfg.shaker_detector), ("reader", cfg.shaker_reader)))
    update: dict = {k: v for k, v in pairs if v is not None}
    if cocked_counts:
        update["sure_tilt"] = 1.0
        if cfg.thrown_reader is not None and cfg.thrown_temperature is not None \
                and "temperature" not in cfg.model_fields_set:
            update["temperature"] = cfg.thrown_temperature
    # a table reads a roll against its count (`DiceReader.recount`, the edge)
    update["wide_on_drops"] = False
    if "soften_sigma" not in cfg.model_fields_set:  # rule 52 judged the reader without a game
        update["soften_sigma"] = 0.0
    if "wide_look" not in cfg.model_fields_set:  # so did rule 55
        update["wide_look"] = 0.0
    return cfg.model_copy(update=update)


def for_table(cfg: ReaderConfig, game: str | None) -> ReaderConfig:
    """`cfg` as a table of `game` reads (`for_game` by its profile); `cfg` itself for None.

    Raises:
        ValueError: `game` is not one of `profiles.GAMES`.
    """
    from .profiles import GAMES, profile

    if game is None:
        return cfg
    if game not in GAMES:
        raise ValueError(f"game {game!r}: one of {', '.join(GAMES)}")
    return for_game(cfg, profile(game).cocked_counts)
