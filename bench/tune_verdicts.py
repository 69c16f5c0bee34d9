"""Threshold grid for the verdict's flags on a tuning suite, read once (issue 6).

Reads every scene of DIR/{shaker,throwbox,craps} once per (detector, die-or-not) threshold
pair with the committed models (or `--models DIR`), then calls the verdict with every
(tilt, stacked) threshold pair on those same reads, and prints the unsafe and valid rates
`bench_verdicts.py` reports.
Use scenes of other seeds than the suite's (docs/verdicts.md used seeds 9200-9202):

    python bench/tune_verdicts.py --data TUNE --tilt 0.1,0.2,0.3 --stacked 0.15,0.25 \
        --no-roll-tilt 0.05,0.1 --support 1.2,1.5 --void-deg 10,15,20 --reach 0.8,1.2 \
        --det 0.25,0.35 \
        --die 0.5 --views 1,4,8 --min-conf 0.97,0.98 --reads reads.pkl

`--reads FILE` keeps the reads: a later run with the same file, models and reader settings
sweeps the verdict's lines without reading the scenes again.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import pickle
from pathlib import Path

from bench_verdicts import SCENES, GameReaders, rates, truth, with_models, zones_of

from dicecall.datasets.schema import load_folder
from dicecall.vision.config import ReaderConfig
from dicecall.vision.images import load_image
from dicecall.vision.preprocess import record_view
from dicecall.vision.profiles import profile
from dicecall.vision.verdict import VALID, VerdictConfig, verdict


def _floats(text: str) -> list[float]:
    return [float(t) for t in text.split(",")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="folder with the three scene sets")
    ap.add_argument("--tilt", type=_floats, default=[0.1, 0.2, 0.3, 0.5])
    ap.add_argument("--stacked", type=_floats, default=[0.25, 0.3, 0.5])
    ap.add_argument("--no-roll-tilt", type=_floats,
                    default=[VerdictConfig().no_roll_tilt_threshold],
                    help="tilt line where a cocked die is a no roll (Props & Hops)")
    ap.add_argument("--support", type=_floats, default=[VerdictConfig().support_reach],
                    help="Props & Hops: reach, in die sides, of a die or wall that can hold "
                         "a die up")
    ap.add_argument("--void-deg", type=_floats, default=[VerdictConfig().void_margin_deg],
                    help="up margin, degrees, under which a die rests on an edge (void)")
    ap.add_argument("--edge-deg", type=_floats, default=[VerdictConfig().edge_review_deg],
                    help="up margin, degrees, under which a cocked die goes to review")
    ap.add_argument("--reach", type=_floats, default=[VerdictConfig().stack_reach],
                    help="die-on-die: the die beneath within this x the flagged die's side")
    ap.add_argument("--tilted-edge-deg", type=_floats,
                    default=[VerdictConfig().tilted_edge_review_deg],
                    help="review line of the up margin for a die read tilted (rule 14; 0 off)")
    ap.add_argument("--tilted-edge-tilt", type=float, default=VerdictConfig().tilted_edge_tilt,
                    help="the tilt at which a die is held to --tilted-edge-deg")
    ap.add_argument("--min-conf", type=_floats, default=[VerdictConfig().min_confidence],
                    help="face probability needed to accept a reading")
    ap.add_argument("--shallow-reach", type=_floats, default=[VerdictConfig().shallow_reach],
                    help="Props & Hops: a die with no die in reach and the wall beyond this "
                         "x its side can lean on it only steeply (rule 20)")
    ap.add_argument("--steep-line", type=_floats, default=[VerdictConfig().steep_line],
                    help="Props & Hops: tilt line between --shallow-reach and the support "
                         "reach (0 off)")
    ap.add_argument("--call-stands", type=_floats, default=[VerdictConfig().call_stands_floor],
                    help="High Roll: VerdictConfig.call_stands_floor (0: off; rules 34-36, "
                         "docs/verdicts.md)")
    ap.add_argument("--no-roll-sure", type=_floats,
                    default=[VerdictConfig().no_roll_sure_tilt],
                    help="Props & Hops: a tilt flag under this is held for review, not called "
                         "a no roll (0: every flag a no roll; rule 43, docs/verdicts.md)")
    ap.add_argument("--agreeing", type=_floats, default=[VerdictConfig().agreeing_confidence],
                    help="VerdictConfig.agreeing_confidence: a face under the confidence line "
                         "counts when the pips agree (0: off; rule 46, docs/verdicts.md)")
    ap.add_argument("--agreeing-alone", type=lambda t: [bool(int(v)) for v in t.split(",")],
                    default=[VerdictConfig().agreeing_alone],
                    help="VerdictConfig.agreeing_alone, 0 and/or 1: in larger rolls the "
                         "agreeing floor applies to a die boxed clear of every other (rule 62)")
    ap.add_argument("--inside", type=_floats, default=[VerdictConfig().inside_line],
                    help="VerdictConfig.inside_line: a die whose box shares this much of the "
                         "smaller box with another die's goes to review (0: off; rule 63, "
                         "docs/verdicts.md); a grid column, `inside`")
    ap.add_argument("--small-one", type=_floats, default=[VerdictConfig().small_one_line],
                    help="VerdictConfig.small_one_line: a die read as a 1 boxed under this x "
                         "the others' median side goes to review (0: off; rule 64, "
                         "docs/verdicts.md); a grid column, `one`")
    ap.add_argument("--void-faces-margin", type=_floats,
                    default=[VerdictConfig().void_faces_margin],
                    help="VerdictConfig.void_faces_margin: a face-only void whose up margin "
                         "reads this or more is a review (0: off; rule 47, docs/verdicts.md)")
    ap.add_argument("--void-faces-review", type=lambda t: [bool(int(v)) for v in t.split(",")],
                    default=[VerdictConfig().void_faces_review],
                    help="1: a void read from the two best faces alone is held for review; "
                         "0: a no roll (rule 44, docs/verdicts.md); e.g. 0,1")
    ap.add_argument("--verdict", action="append", default=[], metavar="FIELD=V[,V...]",
                    help="any other VerdictConfig line and the values to sweep, e.g. "
                         "edge_counts=0,1 (repeatable; printed at the row's end)")
    ap.add_argument("--game", choices=("craps", "props-and-hops", "high-roll"), default=None,
                    help="tally only this game's rolls (High Roll: both of its variants)")
    ap.add_argument("--det", type=_floats, default=[ReaderConfig().det_threshold])
    ap.add_argument("--die", type=_floats, default=[ReaderConfig().die_threshold])
    ap.add_argument("--views", type=lambda t: [int(v) for v in t.split(",")],
                    default=[ReaderConfig().views], help="views per crop (vision/views.py)")
    ap.add_argument("--first-views", type=int, default=ReaderConfig().first_views,
                    help="views of every crop read first, the rest only for a die in doubt "
                         "(ReaderConfig.first_views; >= views: every die in all)")
    ap.add_argument("--zoom", type=_floats, default=[ReaderConfig().zoom_below],
                    help="the detector's second look below this median die side in "
                         "detector pixels, 0 = never (vision/zoom.py)")
    ap.add_argument("--zoom-to", type=float, default=ReaderConfig().zoom_to,
                    help="the second look enlarges the median die at most to this many "
                         "detector pixels")
    ap.add_argument("--zoom-clusters", type=int, default=ReaderConfig().zoom_clusters,
                    help="second looks: one window per cluster of dice, at most this many")
    ap.add_argument("--zoom-prefer-first", action="store_true",
                    help="a die both looks found keeps the first look's box")
    ap.add_argument("--short-look-again", type=float,
                    default=ReaderConfig().short_look_again,
                    help="still short after the closer look, look again until the median kept "
                         "die spans this many detector pixels (default: the runtime's, "
                         "ReaderConfig.short_look_again; 0 never)")
    ap.add_argument("--closer-keeps-stacked", type=int, choices=(0, 1),
                    default=int(ReaderConfig().closer_keeps_stacked),
                    help="1: dice that replace a kept die in the closer look keep at least "
                         "its stacked flag (default: the runtime's, "
                         "ReaderConfig.closer_keeps_stacked; rule 61)")
    ap.add_argument("--no-short-look", action="store_true",
                    help="no closer look at a frame with fewer dice than expected "
                         "(ReaderConfig.short_look; rule 41, docs/verdicts.md)")
    ap.add_argument("--wide-look", type=float, default=0.0,
                    help="look at the frame shrunk this many times when still short of the "
                         "count (ReaderConfig.wide_look, 0 off, as every game reads: "
                         "`for_game`; rules 42 and 55, models/reader.md)")
    ap.add_argument("--faint-det", type=_floats, default=[ReaderConfig().faint_det],
                    help="still short of the count, look at the detector's peaks down to "
                         "this score, 0 = never (ReaderConfig.faint_det, rule 66)")
    ap.add_argument("--faint-die", type=_floats, default=[ReaderConfig().faint_die],
                    help="die-or-not probability a faint-look die needs "
                         "(ReaderConfig.faint_die)")
    ap.add_argument("--short-die", type=_floats, default=[ReaderConfig().short_die],
                    help="still short after the faint look, fill the count from places the "
                         "die-or-not head reads at least this, held for review, 0 = never "
                         "(ReaderConfig.short_die, rule 73)")
    ap.add_argument("--sure-margin", type=float, default=ReaderConfig().sure_margin,
                    help="a die whose first view reads an up margin under this is read in "
                         "every view (the cascade's margin doubt)")
    ap.add_argument("--sure-tilt", type=float, default=ReaderConfig().sure_tilt,
                    help="a shaker die whose first view reads this tilt or more is read in "
                         "every view (the cascade's tilt doubt; Craps and High Roll ignore it)")
    ap.add_argument("--sure-no-die", type=float, default=ReaderConfig().sure_no_die,
                    help="a first reading under this die-or-not probability is not read "
                         "again (0: every place in doubt is, as before session 23)")
    ap.add_argument("--tilt-scale", type=_floats, default=[ReaderConfig().tilt_crop_scale],
                    help="second, wider crop for the tilt flag, x the box side, 0 = none "
                         "(ReaderConfig.tilt_crop_scale)")
    ap.add_argument("--face-scale", type=_floats, default=[ReaderConfig().face_crop_scale],
                    help="second crop for the face, x the box side, 0 = none "
                         "(ReaderConfig.face_crop_scale)")
    ap.add_argument("--margin-scale", type=_floats, default=[ReaderConfig().margin_crop_scale],
                    help="second crop for the up margin, x the box side, 0 = none "
                         "(ReaderConfig.margin_crop_scale)")
    ap.add_argument("--pip-radius", type=_floats, default=[ReaderConfig().pip_radius],
                    help="count pips within this x the die side of the crop centre "
                         "(ReaderConfig.pip_radius)")
    ap.add_argument("--pip-relative", type=_floats, default=[ReaderConfig().pip_relative],
                    help="a pip also needs this x the crop's strongest peak "
                         "(ReaderConfig.pip_relative; 0 off)")
    ap.add_argument("--pip-reading", type=lambda t: t.split(","),
                    default=[ReaderConfig().pip_reading],
                    help="pip reading(s), comma-separated: peaks, layout "
                         "(ReaderConfig.pip_reading)")
    ap.add_argument("--crop-scale", type=float, default=ReaderConfig().crop_scale,
                    help="reader crop side over the detector's box side (a detector whose "
                         "boxes run smaller or larger than the one the reader was trained "
                         "behind)")
    ap.add_argument("--models", type=Path, default=None,
                    help="folder with detector.onnx and reader.onnx, and for Craps and High Roll "
                         "detector.thrown.onnx and reader.thrown.onnx, for Props & Hops "
                         "detector.shaker.onnx and reader.shaker.onnx, if it has them "
                         "(default: committed)")
    ap.add_argument("--reads", type=Path, default=None,
                    help="pickle of the reads, loaded when it matches, else written")
    ap.add_argument("--scenes", type=lambda t: t.split(","), default=list(SCENES),
                    help="scene folders to read (default: all three); a Props & Hops line "
                         "needs only shaker")
    ap.add_argument("--thrown-temperature", type=float, default=None,
                    help="face temperature of Craps and High Roll's reader (default: the "
                         "runtime's; ReaderConfig.thrown_temperature)")
    ap.add_argument("--uncalibrated", action="store_true",
                    help="read without the scenes' cameras (a table without intrinsics)")
    args = ap.parse_args()
    unknown = sorted(set(args.scenes) - set(SCENES))
    if unknown:
        ap.error(f"--scenes: {', '.join(unknown)} is not one of {', '.join(SCENES)}")
    try:
        others = dict(_other_lines(t) for t in args.verdict)
    except ValueError as e:
        ap.error(f"--verdict: {e}")
    saved = _load(args.reads)
    print(f"{'det':>5} {'die':>5} {'views':>5} {'zoom':>5} {'wide':>5} {'face':>5} {'marg':>5} "
          f"{'pips':>4} "
          f"{'tilt':>5} {'stacked':>7} "
          f"{'ph tilt':>7} {'support':>7} {'void':>5} {'edge':>5} {'reach':>5} {'conf':>5} "
          f"{'tedge':>5} {'shal':>5} {'steep':>5} {'stand':>5} {'unsafe not valid':>17} "
          f"{'of':>5} {'valid called valid':>19} {'of':>5} {'wrong face':>10} {'sure':>5} "
          f"{'fvoid':>5} {'unsafe no roll':>14} {'false no roll':>13} {'agree':>5} {'vfm':>5} "
          f"{'alone':>5} {'inside':>6} {'one':>5}")
    for det, die, views, zoom, wide, face, mscale, pip, rel, reading, fdet, fdie, sdie in \
            itertools.product(args.det, args.die, args.views, args.zoom, args.tilt_scale,
                              args.face_scale, args.margin_scale, args.pip_radius,
                              args.pip_relative, args.pip_reading, args.faint_det,
                              args.faint_die, args.short_die):
        cfg = with_models(ReaderConfig(det_threshold=det, die_threshold=die, views=views,
                                       zoom_below=zoom, tilt_crop_scale=wide,
                                       face_crop_scale=face, margin_crop_scale=mscale,
                                       pip_radius=pip, pip_relative=rel,
                                       pip_reading=reading,
                                       first_views=args.first_views,
                                       crop_scale=args.crop_scale, zoom_to=args.zoom_to,
                                       zoom_clusters=args.zoom_clusters,
                                       zoom_prefer_first=args.zoom_prefer_first,
                                       sure_no_die=args.sure_no_die,
                                       sure_margin=args.sure_margin,
                                       sure_tilt=args.sure_tilt,
                                       short_look=not args.no_short_look,
                                       short_look_again=args.short_look_again,
                                       closer_keeps_stacked=bool(args.closer_keeps_stacked),
                                       wide_look=args.wide_look,
                                       faint_det=fdet, faint_die=fdie, short_die=sdie,
                                       thrown_temperature=args.thrown_temperature),
                          args.models)
        key = (str(args.data.resolve()), _digest(cfg.detector), _digest(cfg.reader), det, die,
               views, cfg.pip_threshold, cfg.pip_radius, cfg.temperature,
               "uncalibrated" if args.uncalibrated else "calibrated", _zoom(cfg), wide, face,
               mscale)
        if cfg.first_views < views:  # keys before the cascade (session 21) end at mscale
            key += (_doubt(cfg),)
        if cfg.crop_scale != ReaderConfig().crop_scale:  # reads kept before session 22 lack it
            key += (("crop_scale", cfg.crop_scale),)
        if cfg.pip_relative:  # reads kept before session 27 lack it
            key += (("pip_relative", cfg.pip_relative),)
        if cfg.pip_reading != "peaks":  # reads kept before session 47 counted peaks
            key += (("pip_reading", cfg.pip_reading),)
        if cfg.thrown_detector is not None:  # Craps and High Roll's own (session 25)
            key += (("thrown", _digest(cfg.thrown_detector)),)
        if cfg.thrown_reader is not None:  # Craps and High Roll's own (session 36)
            key += (("thrown_reader", _digest(cfg.thrown_reader)),)
        for field in ("shaker_detector", "shaker_reader"):  # Props & Hops's own (session 37)
            if getattr(cfg, field) is not None:
                key += ((field, _digest(getattr(cfg, field))),)
        if cfg.thrown_temperature is not None:  # Craps and High Roll's own (session 56)
            key += (("thrown_temperature", cfg.thrown_temperature),)
        if cfg.short_look:  # reads kept before session 45 had no closer look
            key += (("short_look", True),)
        if cfg.short_look_again:  # session 57, rule 60
            key += (("short_look_again", cfg.short_look_again),)
        if cfg.closer_keeps_stacked:  # session 58, rule 61
            key += (("closer_keeps_stacked", True),)
        if cfg.wide_look > 1.0:  # reads kept before session 46 had no wide look
            key += (("wide_look", cfg.wide_look, cfg.wide_die, cfg.wide_apart),)
        if cfg.faint_det:  # reads kept before session 62 had no faint look
            key += (("faint", cfg.faint_det, cfg.faint_die),)
        if cfg.short_die:  # reads kept before session 65 filled no count with doubtful dice
            key += (("short_die", cfg.short_die),)
        if args.scenes != list(SCENES):  # reads of some folders are not a whole suite's
            key += (("scenes", tuple(args.scenes)),)
        if key not in saved:
            readers, reads = GameReaders(cfg), []
            for scene in args.scenes:
                for path, rec in load_folder(args.data / scene):
                    category, faces = truth(rec)
                    view = None if args.uncalibrated else record_view(rec)
                    frame = load_image(path.parent / rec.image)
                    dice = readers.of(rec).read(frame, view, rec.expected_dice)
                    reads.append((scene, rec, category, faces, dice))
            saved[key] = reads
            if args.reads is not None:
                args.reads.write_bytes(pickle.dumps(saved))
        reads = saved[key] if args.game is None else \
            [r for r in saved[key] if game_of(r[1]) == args.game]
        _grid(reads, args.tilt, args.stacked, args.no_roll_tilt, args.support,
              args.void_deg, args.edge_deg, args.reach, args.min_conf,
              args.tilted_edge_deg, args.tilted_edge_tilt, args.shallow_reach,
              args.steep_line, args.call_stands, args.no_roll_sure, args.void_faces_review,
              args.agreeing, args.void_faces_margin, args.agreeing_alone, args.inside,
              args.small_one, others,
              f"{det:>5} {die:>5} {views:>5} {zoom:>5} {wide:>5} {face:>5} {mscale:>5} "
              f"{pip:>4}" + (f" rel {rel}" if rel else "")
              + (f" {reading}" if reading != "peaks" else "")
              + (f" faint {fdet}/{fdie}" if fdet else "")
              + (f" short {sdie}" if sdie else ""))


def _doubt(cfg: ReaderConfig) -> tuple:
    doubt = (cfg.first_views, cfg.sure_face, cfg.sure_tilt, cfg.sure_stacked, cfg.sure_margin,
             cfg.sure_die)
    # reads kept before session 23 read a place surely no die again
    return (*doubt, ("sure_no_die", cfg.sure_no_die)) if cfg.sure_no_die > 0 else doubt


def _zoom(cfg: ReaderConfig) -> tuple:
    looks = (cfg.zoom_below, cfg.zoom_to, cfg.zoom_margin, cfg.zoom_min_gain,
             cfg.zoom_keep_apart)
    # keys before the windows per cluster (session 23) lack them
    looks = looks if cfg.zoom_clusters == 1 else (*looks, cfg.zoom_clusters, cfg.zoom_gap)
    return (*looks, "prefer_first") if cfg.zoom_prefer_first else looks


def game_of(rec) -> str:
    """The column of a scene's game: High Roll's ten- and six-dice variants share one."""
    return "high-roll" if rec.game.startswith("high-roll") else rec.game


def _digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _load(path: Path | None) -> dict:
    """Reads kept by an earlier run (our own pickle, never a file from elsewhere)."""
    return pickle.loads(path.read_bytes()) if path is not None and path.is_file() else {}


def tally(reads: list, cfg: VerdictConfig) -> dict[str, int]:
    """`bench_verdicts.rates` of the verdicts at `cfg` on reads kept by this script."""
    calls = []
    for scene, rec, category, faces, dice in reads:
        v = verdict(dice, profile(rec.game, rec.expected_dice), zones_of(rec, scene), cfg,
                    (rec.width, rec.height))
        calls.append((category, v.status, v.status == VALID and sorted(v.faces) != faces))
    return rates(calls)


def _grid(reads: list, tilts: list[float], stackeds: list[float], ph_tilts: list[float],
          supports: list[float], voids: list[float], edges: list[float], reaches: list[float],
          confs: list[float], tilted_edges: list[float], tilted_tilt: float,
          shallows: list[float], steeps: list[float], stands: list[float],
          sures: list[float], face_voids: list[bool], agreeings: list[float],
          void_margins: list[float], alones: list[bool], insides: list[float],
          ones: list[float], others: dict[str, list], prefix: str) -> None:
    names = list(others)
    for (tilt, stacked, ph, support, void, edge, reach, conf, tedge, shallow, steep, stand,
         sure, face_void, agree, vmargin, alone, inside, one, *rest) in itertools.product(
            tilts, stackeds, ph_tilts, supports, voids, edges, reaches, confs, tilted_edges,
            shallows, steeps, stands, sures, face_voids, agreeings, void_margins, alones,
            insides, ones, *others.values()):
        extra = dict(zip(names, rest, strict=True))
        cfg = VerdictConfig(tilt_threshold=tilt, stacked_threshold=stacked,
                            no_roll_tilt_threshold=ph, support_reach=support,
                            void_margin_deg=void, edge_review_deg=edge, stack_reach=reach,
                            min_confidence=conf, tilted_edge_review_deg=tedge,
                            tilted_edge_tilt=tilted_tilt, shallow_reach=shallow,
                            steep_line=steep, call_stands_floor=stand,
                            no_roll_sure_tilt=sure, void_faces_review=face_void,
                            agreeing_confidence=agree, void_faces_margin=vmargin,
                            agreeing_alone=alone, inside_line=inside,
                            small_one_line=one, **extra)
        n = tally(reads, cfg)
        print(f"{prefix} {tilt:>5} {stacked:>7} {ph:>7} {support:>7} {void:>5} {edge:>5} "
              f"{reach:>5} {conf:>5} {tedge:>5} {shallow:>5} {steep:>5} {stand:>5} "
              f"{100 * n['caught'] / max(n['unsafe'], 1):>16.2f}% "
              f"{n['unsafe']:>5} {100 * n['passed'] / max(n['good'], 1):>18.2f}% {n['good']:>5} "
              f"{n['wrong']:>10} {sure:>5} {int(face_void):>5} {n['unsafe_no_roll']:>14} "
              f"{n['false_no_roll']:>13} {agree:>5} {vmargin:>5} {int(alone):>5} "
              f"{inside:>6} {one:>5}" + "".join(f" {k}={v}" for k, v in extra.items()))


def _other_lines(text: str) -> tuple[str, list]:
    """`FIELD=V[,V...]` of `--verdict`: a VerdictConfig field and its values, each checked
    by the config itself (strict: a bool field takes 0 or 1, a misspelt field is refused)."""
    name, _, values = text.partition("=")
    if name not in VerdictConfig.model_fields or not values:
        raise ValueError(f"{text!r} is not FIELD=V[,V...] of a VerdictConfig field")
    kind = VerdictConfig.model_fields[name].annotation
    parse = {bool: lambda v: {"0": False, "1": True}[v], int: int}.get(kind, float)
    try:
        vals = [getattr(VerdictConfig(**{name: parse(v)}), name) for v in values.split(",")]
    except (KeyError, ValueError) as e:  # pydantic's ValidationError is a ValueError
        raise ValueError(f"{text!r}: {e}") from None
    return name, vals


if __name__ == "__main__":
    main()
