"""`dicecall models ...`: train, export, evaluate and time the dice reader's two models.

torch is imported inside the training and export commands only; `evaluate` and `bench`
run on onnxruntime, like the edge does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from dicecall.models.checks import (
    crops_dirs,
    detector_file,
    detector_model,
    labelled_dirs,
    model_file,
    onnx_model,
    reader_file,
    reader_model,
    scene_dirs,
)
from dicecall.outpaths import writable_dir, writable_file

MODELS_DIR = Path(__file__).resolve().parent


def _valid_dirs(data: list[Path], valid: list[Path] | None) -> list[Path]:
    """Explicit --valid folders, else each YOLO `.../train` folder's sibling `valid`."""
    if valid:
        return valid
    return [d.parent / "valid" for d in data if d.name == "train" and (d.parent / "valid").is_dir()]


def _named(path: Path | None) -> str | None:
    """A model file named on the command line, as the recipe keeps it."""
    if path is None or str(path).lower() == "none":
        return None if path is None else "none"
    return str(path.resolve())


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def _load(folders: list[Path]) -> list:
    """The samples of labelled folders; a folder that yields none is refused by name (its
    JSON files may all be notes, not scenes)."""
    from dicecall.models.data import load_folder

    samples = []
    for folder in folders:
        try:
            got = load_folder(folder)
        except (OSError, ValueError) as exc:
            raise _fail(str(exc)) from None
        if not got:
            raise _fail(f"{folder}: no labelled images")
        samples += got
    return samples


def _recipe_guard(out: Path, recipe: dict, resume: bool) -> None:
    """One run a stage folder (`RUN/detector`, `RUN/reader`; two commands may train the two
    stages of one RUN). `--resume` continues a stage only with the recipe it began with
    (`recipe.json`): the data order, the augmentation and the learning-rate schedule all
    come from it, so a resume with other data, seed, epochs or options would silently train
    a different run from the middle of this one. A new run never writes over a begun one."""
    stage = recipe["stage"]
    dirs = ["detector", "reader"] if stage == "both" else \
        ["detector"] if stage == "detector" else ["reader"]
    for folder in (out / d for d in dirs):
        path, begun = folder / "recipe.json", (folder / "last.pt").is_file()
        if resume and path.is_file():
            was = json.loads(path.read_text())
            diff = sorted(k for k in recipe.keys() | was.keys() if recipe.get(k) != was.get(k))
            if diff:
                raise ValueError(
                    f"--resume {folder}: the run began with another recipe ("
                    + "; ".join(f"{k}: {was.get(k)!r} then, {recipe.get(k)!r} now"
                                for k in diff)
                    + "); resume with its own command, or train into another --out")
        elif begun and not resume:
            raise ValueError(f"{folder} already holds a run (last.pt): --resume to continue "
                             "it, or train into another --out")
        elif begun:  # begun before its recipe was kept (session 39): resumed unchecked
            typer.echo(f"warning: {folder} has no recipe.json; resuming without checking "
                       "the recipe", err=True)
        else:
            folder.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(recipe, indent=1) + "\n")


def train(
    data: Annotated[
        list[Path], typer.Option("--data", help="Training folder, YOLO or our JSON; repeat.",
                                 callback=labelled_dirs)
    ],
    out: Annotated[Path, typer.Option("--out", help="Run folder: checkpoints, logs.",
                                      callback=writable_dir)],
    seed: Annotated[
        int, typer.Option("--seed", help="Seeds weights, data order and augmentation.")
    ] = 0,
    epochs: Annotated[int, typer.Option("--epochs", help="Epochs of the detector.")] = 36,
    reader_epochs: Annotated[
        int, typer.Option("--reader-epochs", help="Epochs of the reader.")
    ] = 45,
    valid: Annotated[
        list[Path] | None, typer.Option("--valid", help="Validation folders; repeat.",
                                        callback=labelled_dirs)
    ] = None,
    stage: Annotated[str, typer.Option(
        "--stage", help="detector, reader, both; margin: the reader's up-margin branch alone, "
                        "on the reader named by --init (models/margin_train.py); flags: its "
                        "tilt, stacked and margin layers fine-tuned on that reader "
                        "(models/flags_train.py); faces: its face (on its own last stages) "
                        "and pip branch fine-tuned on that reader (models/faces_train.py); "
                        "distill: a cheaper reader trained to give that reader's outputs "
                        "(--student; models/distill_train.py).")
    ] = "both",
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue from last.pt of each stage.")
    ] = False,
    threads: Annotated[int, typer.Option("--threads", help="torch intra-op threads.")] = 2,
    mine_with: Annotated[
        Path | None,
        typer.Option("--mine-with", help="Detector ONNX whose false peaks are the reader's "
                     "negatives (default: the committed detector); 'none' for no negatives.",
                     callback=detector_file),
    ] = None,
    screen_with: Annotated[
        Path | None,
        typer.Option("--screen-with", help="Reader ONNX whose confident, pip-agreeing reads of "
                     "mined places keep them out of the negatives (default: the committed "
                     "reader; models/reader.md names the one each committed reader used).",
                     callback=reader_file),
    ] = None,
    init: Annotated[
        Path | None,
        typer.Option("--init", help="--stage margin, flags, faces or distill: the reader ONNX "
                     "it trains on or copies "
                     "(default: the committed reader.onnx); --stage reader: a reader ONNX to "
                     "fine-tune whole instead of training from the seed; --stage detector: "
                     "a detector ONNX to fine-tune.", callback=model_file),
    ] = None,
    synth_per_real: Annotated[
        float, typer.Option("--synth-per-real", help="Synthetic samples per real one in an epoch, "
                            "a fresh draw each epoch: plain synthetic dice per real die "
                            "(reader), synthetic scenes per real photo (detector).",
                            min=0.5, max=20.0),
    ] = 2.0,
    det_width: Annotated[
        int, typer.Option("--det-width", help="The detector's first-stage channels when it "
                          "trains from the seed (24 committed; 32 took about 15 % longer a "
                          "step here, models/detector.md session 33).", min=8, max=96),
    ] = 24,
    own_flag_stem: Annotated[
        bool, typer.Option("--own-flag-stem", help="--stage flags: the flags get their own "
                           "copy of the face's first two stages and train it too "
                           "(models/flags_train.py).")] = False,
    slight_repeat: Annotated[
        int, typer.Option("--slight-repeat", min=0, max=20,
                          help="--stage flags: each cocked die leaning under about 12 degrees "
                               "(up margin 66 or more) appears this many more times an epoch")
    ] = 0,
    face_stages: Annotated[
        int, typer.Option("--face-stages", min=1, max=2,
                          help="--stage faces: the face's own copy of the reader's last 1 or 2 "
                               "stages, trained with it (models/faces_train.py)")] = 1,
    duotone: Annotated[
        float, typer.Option("--duotone", min=0.0, max=1.0,
                            help="--stage faces or detector: share of crops or views "
                                 "recoloured in two random colours, for dice of colours no "
                                 "training style has (models/augment.py two_colours)")] = 0.0,
    soften: Annotated[
        float, typer.Option("--soften", min=0.0, max=4.0,
                            help="--stage faces: blur the training crops the runtime would "
                                 "cut at more than 2x downscale by this sigma, as "
                                 "ReaderConfig.soften_sigma blurs them at run time")] = 0.0,
    student: Annotated[
        str, typer.Option("--student", help="--stage distill: slim (slim.py, from the seed) or "
                          "pruned (the teacher's own layers cut to a quarter of the cost a "
                          "crop, prune.py)")] = "slim",
    select: Annotated[
        str, typer.Option("--select", help="--stage flags: the best epoch by the flags' mean "
                          "AUC (auc) or by the share of flat shaker dice flagged at full "
                          "recall of the slightly leaning ones (slight)")] = "auc",
) -> None:
    """Trains the detector and/or the reader, validating and checkpointing every epoch."""
    from dicecall.models.trainloop import setup_torch

    if stage not in ("detector", "reader", "both", "margin", "flags", "faces", "distill"):
        raise typer.BadParameter(f"--stage {stage}: detector, reader, both, margin, flags, "
                                 "faces or distill")
    if soften > 0 and stage != "faces":
        raise typer.BadParameter(f"--soften is for --stage faces, not {stage}")
    if student not in ("slim", "pruned"):
        raise typer.BadParameter(f"--student {student}: slim or pruned")
    if student != "slim" and stage != "distill":
        raise typer.BadParameter(f"--student is for --stage distill, not {stage}")
    if duotone > 0 and stage not in ("faces", "detector"):
        raise typer.BadParameter(f"--duotone is for --stage faces or detector, not {stage}")
    recipe = {
        "data": [str(p.resolve()) for p in data],
        "valid": [str(p.resolve()) for p in _valid_dirs(data, valid)],
        "init": _named(init), "mine_with": _named(mine_with), "screen_with": _named(screen_with),
        "stage": stage, "seed": seed, "epochs": epochs, "reader_epochs": reader_epochs,
        "threads": threads, "synth_per_real": synth_per_real, "det_width": det_width,
        "own_flag_stem": own_flag_stem, "slight_repeat": slight_repeat,
        "face_stages": face_stages, "duotone": duotone, "select": select,
        "student": student,
        # Only when set, so a run begun before the option resumes under its own recipe.
        **({"soften": soften} if soften else {})}
    # The data first: a folder that yields nothing is refused before a run folder is begun.
    train_set, valid_set = _load(data), _load(_valid_dirs(data, valid))
    try:
        _recipe_guard(out, recipe, resume)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    setup_torch(threads)
    typer.echo(f"train {len(train_set)} images, valid {len(valid_set)} images")
    if stage in ("detector", "both"):
        from dicecall.models.det_train import FINETUNE_LR, train_detector

        if init is not None and stage == "both":
            raise typer.BadParameter("--init with --stage both: name the stage it is for")
        if init is not None and det_width != 24:
            raise typer.BadParameter("--det-width with --init: a fine-tune keeps the width "
                                     "of the detector it starts from")
        tune = {"width": det_width} if init is None else {"init": init, "lr": FINETUNE_LR}
        train_detector(train_set, valid_set, out / "detector", epochs, seed, resume,
                       synth_per_real=synth_per_real, duotone=duotone, **tune)
    negatives = None
    if stage in ("reader", "both", "distill"):
        from dicecall.models.negatives import looks_like_d6, mine, onnx_detector

        if mine_with is None or str(mine_with).lower() != "none":
            detect = onnx_detector(mine_with or MODELS_DIR / "detector.onnx")
            # Unlabelled d6s on real photos are left out by a reader's judgement; which reader
            # is part of the recipe, so a retrain can name the one its model was trained with.
            d6 = looks_like_d6(screen_with or MODELS_DIR / "reader.onnx")
            negatives = (mine(train_set, detect, seed, d6), mine(valid_set, detect, seed + 1, d6))
            typer.echo(f"negatives: train {sum(map(len, negatives[0]))}, "
                       f"valid {sum(map(len, negatives[1]))}")
    if stage in ("reader", "both"):
        from dicecall.models.read_train import train_reader

        if init is None:
            train_reader(train_set, valid_set, out / "reader", reader_epochs, seed, resume,
                         negatives=negatives, synth_per_real=synth_per_real)
        else:
            from dicecall.models.read_train import FINETUNE_LR

            train_reader(train_set, valid_set, out / "reader", reader_epochs, seed, resume,
                         lr=FINETUNE_LR, negatives=negatives, synth_per_real=synth_per_real,
                         init=init)
    if stage == "margin":
        from dicecall.models.margin_train import train_margin

        train_margin(train_set, valid_set, init or MODELS_DIR / "reader.onnx", out / "reader",
                     reader_epochs, seed, resume)
    if stage == "flags":
        from dicecall.models.flags_train import train_flags

        train_flags(train_set, valid_set, init or MODELS_DIR / "reader.onnx", out / "reader",
                    reader_epochs, seed, resume, own_stem=own_flag_stem,
                    slight_repeat=slight_repeat, select=select)
    if stage == "faces":
        from dicecall.models.faces_train import train_faces

        train_faces(train_set, valid_set, init or MODELS_DIR / "reader.onnx", out / "reader",
                    reader_epochs, seed, resume, stages=face_stages, duotone=duotone,
                    soften=soften)
    if stage == "distill":
        from dicecall.models.distill_train import train_distill

        train_distill(train_set, valid_set, init or MODELS_DIR / "reader.onnx", out / "reader",
                      reader_epochs, seed, resume, negatives=negatives,
                      student_kind=student)


def export(
    run: Annotated[Path, typer.Option("--run", help="Run folder of `models train`.")],
    calib: Annotated[list[Path], typer.Option("--calib", help="Calibration folders for INT8.",
                                              callback=labelled_dirs)],
    out: Annotated[Path, typer.Option(
        "--out", help="Where the .onnx files go (named: an export never writes over the "
                      "committed models unless told to, --out models).",
        callback=writable_dir)],
    checkpoint: Annotated[str, typer.Option(
        "--checkpoint", help="best (the run's best epoch) or last (the schedule's end).")] = "best",
) -> None:
    """Exports best.pt of each stage to ONNX (FP32 and INT8) and checks them against torch.

    All or nothing: every file is written to a temporary folder and moved into --out
    together at the end, so a failure or Ctrl-C partway leaves --out as it was."""
    from dicecall.models.export import export_all

    if checkpoint not in ("best", "last"):
        raise typer.BadParameter(f"--checkpoint {checkpoint}: best or last")
    try:
        report = export_all(run, out, calib, checkpoint)
    except (FileNotFoundError, ValueError) as exc:  # no run there, or no calibration images
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    typer.echo(json.dumps(report, indent=1))


def blend(
    start: Annotated[Path, typer.Option(
        "--start", help="The net the fine-tune started from: its checkpoint, or the ONNX "
                        "file given to `train --init`.", exists=True, dir_okay=False)],
    end: Annotated[Path, typer.Option(
        "--end", help="The fine-tune's checkpoint (RUN/detector/last.pt or "
                      "RUN/reader/last.pt).", exists=True, dir_okay=False)],
    out: Annotated[Path, typer.Option(
        "--out", help="A new run folder; the blend is its <stage>/last.pt, for "
                      "`export --checkpoint last`.")],
    alpha: Annotated[float, typer.Option(
        "--alpha", min=0.0, max=1.0, help="Weight of the fine-tune: 0 the start, 1 the "
                                          "fine-tune.")] = 0.5,
) -> None:
    """Blends a fine-tune with its start in weight space (WiSE-FT, models/blend.py): keeps
    most of what the fine-tune learnt and much of what it cost elsewhere."""
    from dicecall.models.blend import blend_run

    try:
        path = blend_run(start, end, alpha, out)
    except ValueError as exc:
        raise _fail(str(exc)) from exc
    typer.echo(f"blend alpha {alpha} written to {path}")


def quantize(
    calib: Annotated[list[Path], typer.Option("--calib", help="Calibration folders for INT8.",
                                              callback=labelled_dirs)],
    model: Annotated[Path, typer.Option("--model", help="FP32 detector or reader ONNX.",
                                        callback=model_file)] = MODELS_DIR / "reader.onnx",
    detector: Annotated[Path, typer.Option(
        "--detector", help="Detector whose false peaks join the calibration crops.",
        callback=detector_file)] = MODELS_DIR / "detector.onnx",
    out: Annotated[Path, typer.Option("--out", help="INT8 file to write.",
                                      callback=writable_file)] = (
        MODELS_DIR / "reader.int8.onnx"),
) -> None:
    """Re-makes an INT8 variant from its FP32 ONNX, calibrated as `export` does.

    The file is written beside --out under a temporary name and renamed onto it when
    complete: a failure or Ctrl-C partway leaves --out as it was."""
    from dicecall.models.export import requantize

    typer.echo(json.dumps(requantize(model, out, calib, detector), indent=1))


def evaluate(
    data: Annotated[list[Path], typer.Option("--data", help="YOLO folders to score; repeat.",
                                             callback=labelled_dirs)],
    crops: Annotated[
        list[Path] | None, typer.Option("--crops", help="Single-die crop folders {1..6}/.",
                                        callback=crops_dirs)
    ] = None,
    detector: Annotated[Path, typer.Option("--detector", callback=detector_model)] = (
        MODELS_DIR / "detector.onnx"),
    reader: Annotated[Path, typer.Option("--reader", callback=reader_model)] = (
        MODELS_DIR / "reader.onnx"),
    threshold: Annotated[
        float | None, typer.Option("--threshold", help="Detector peak threshold "
                                   "[default: the runtime's, vision/config.py].")
    ] = None,
    failures: Annotated[
        Path | None, typer.Option("--failures", help="Write failure list JSON here.",
                                  callback=writable_file)
    ] = None,
    oracle: Annotated[
        bool, typer.Option("--oracle", help="Reader only, on the labelled boxes.")
    ] = False,
    pip_threshold: Annotated[
        float | None, typer.Option("--pip-threshold", help="Pip heatmap peak threshold "
                                   "[default: the runtime's].")
    ] = None,
    views: Annotated[
        int | None, typer.Option("--views", min=1, max=8, help="Turned views of each crop, "
                                 "averaged (vision/views.py) [default: the runtime's].")
    ] = None,
) -> None:
    """Scores the ONNX pair on labelled folders by centre matching (DESIGN.md).

    The thresholds and views default to the runtime's, so the figures are those `dicecall
    predict` and the benches give; before session 7 the thresholds were 0.35 and 0.3 here
    against 0.2 and 0.5 there, and before session 9 this read one view against four.
    """
    from dicecall.models.data import load_folder
    from dicecall.models.evaluate import DET_THRESHOLD, PIP_THRESHOLD, score_samples
    from dicecall.models.pipeline import OnnxPipeline, score_crops_folder, score_flags
    from dicecall.vision.config import ReaderConfig

    pipe = OnnxPipeline(detector, reader,
                        DET_THRESHOLD if threshold is None else threshold,
                        pip_threshold=PIP_THRESHOLD if pip_threshold is None else pip_threshold,
                        views=ReaderConfig().views if views is None else views,
                        pip_reading=ReaderConfig().pip_reading)
    fails = {}
    for d in data:
        sc = score_samples(load_folder(d), pipe.predict_oracle if oracle else pipe.predict)
        row = {"data": str(d), "oracle": oracle, **sc.summary()}
        typer.echo(json.dumps({**row, "confusion": sc.confusion.tolist()}))
        fails[str(d)] = sc.failures
        if oracle:
            typer.echo(json.dumps({"flags": str(d), **score_flags(pipe, load_folder(d))}))
    for c in crops or []:
        typer.echo(json.dumps({"crops": str(c), **score_crops_folder(pipe, c)}))
    if failures:
        failures.write_text(json.dumps(fails, indent=1))


def sweep(
    data: Annotated[list[Path], typer.Option("--data", help="Folders to sweep on; repeat.",
                                             callback=labelled_dirs)],
    detector: Annotated[Path, typer.Option("--detector", callback=detector_model)] = (
        MODELS_DIR / "detector.onnx"),
    reader: Annotated[
        Path | None,
        typer.Option("--reader", help="Also sweep this reader's die-or-not threshold.",
                     callback=reader_model),
    ] = None,
    views: Annotated[
        int | None, typer.Option("--views", min=1, max=8, help="Turned views of each crop, "
                                 "averaged (vision/views.py) [default: the runtime's].")
    ] = None,
) -> None:
    """Threshold sweep: found rate and false detections per image, per folder; with a
    reader, every detector x die-or-not threshold pair and the rate of dice read right,
    reading each crop in the runtime's views unless told otherwise."""
    from dicecall.models.data import load_folder
    from dicecall.models.evaluate import sweep_thresholds
    from dicecall.models.pipeline import OnnxPipeline
    from dicecall.vision.config import ReaderConfig
    from dicecall.vision.reader import die_probability

    pipe = OnnxPipeline(detector, reader or detector, threshold=0.1,
                        views=ReaderConfig().views if views is None else views)
    grid = [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7]

    def read(frame, dice):
        out = pipe.read(frame, dice)
        return out["face_logits"].argmax(1) + 1, die_probability(out)

    die_grid = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9) if reader else (0.0,)
    for d in data:
        for row in sweep_thresholds(load_folder(d), pipe.detect, grid,
                                    read if reader else None, die_grid):
            typer.echo(json.dumps({"data": str(d), **row}))


def bench(
    peer: Annotated[
        Path, typer.Option("--peer", help="Peer model, e.g. yolo11n-320-untrained.onnx.",
                           callback=onnx_model)
    ],
    detector: Annotated[Path, typer.Option("--detector", callback=detector_model)] = (
        MODELS_DIR / "detector.onnx"),
    reader: Annotated[Path, typer.Option("--reader", callback=reader_model)] = (
        MODELS_DIR / "reader.onnx"),
    runs: Annotated[int, typer.Option("--runs")] = 200,
    dice: Annotated[int, typer.Option("--dice", help="Crops per reader call.")] = 2,
) -> None:
    """Times detector + reader against the peer in one interleaved run, 2 threads."""
    from dicecall.models.pipeline import time_models

    typer.echo(json.dumps(time_models(detector, reader, peer, runs, dice), indent=1))


def gallery(
    data: Annotated[list[Path], typer.Option("--data", help="Labelled folders; repeat.",
                                             exists=True, file_okay=False)],
    out: Annotated[Path, typer.Option("--out", help="PNG to write.",
                                      callback=writable_file)] = Path(
        "docs/reader-failures.png"),
    limit: Annotated[int, typer.Option("--limit", help="Views per kind of failure.")] = 10,
) -> None:
    """Tiles the shipped reader's failures (misses, wrong faces, false dice, pip counts that
    disagree) on labelled folders into one PNG."""
    from dicecall.models.gallery import failures, gallery_png
    from dicecall.vision.reader import DiceReader

    try:
        items = failures(DiceReader(), data, limit)
    except ValueError as exc:  # a folder of none of the labelled layouts
        raise _fail(str(exc)) from None
    gallery_png(items, out)
    counts = {k: sum(1 for i in items if i[0] == k) for k in ("MISS", "FACE", "FALSE", "PIPS")}
    typer.echo(json.dumps({"out": str(out), "shown": counts}))


def rebox(
    data: Annotated[list[Path], typer.Option("--data", help="Scene folders (our JSON); repeat.",
                                             callback=scene_dirs)],
    out: Annotated[Path, typer.Option("--out", help="Each folder's copy goes to OUT/NAME.",
                                      callback=writable_dir)],
    game: Annotated[str | None, typer.Option(
        "--game", help="the boxes of this game's detector (vision.config.for_table): Craps "
                       "and High Roll find their dice with detector.thrown.onnx, Props & Hops "
                       "with detector.shaker.onnx; without it, detector.onnx's")] = None,
    detector: Annotated[Path | None, typer.Option(
        "--detector", help="the boxes of this detector file instead of a committed one: a "
                           "candidate whose boxes the flags are to be fine-tuned behind "
                           "before it can replace detector.onnx (models/detector.md, "
                           "session 34)", callback=detector_file)] = None,
) -> None:
    """Copies scene folders with each die's box replaced by the runtime detector's (or the
    `--detector` candidate's), so the flags train on crops cut where the runtime will cut
    them (models/rebox.py)."""
    from dicecall.models.rebox import rebox_folder
    from dicecall.vision.config import ReaderConfig, for_table
    from dicecall.vision.reader import DiceReader

    if detector is not None and game is not None:
        raise typer.BadParameter("--game names a committed detector: not both")
    try:
        config = ReaderConfig() if detector is None else ReaderConfig(detector=detector)
        reader = DiceReader(for_table(config, game))
    except ValueError as e:
        raise typer.BadParameter(str(e)) from e
    for d in data:
        if (out / d.name).resolve() == d.resolve():
            raise typer.BadParameter(f"--out {out}: would overwrite {d}")
        counts = rebox_folder(reader, d, out / d.name)
        typer.echo(json.dumps({"data": str(d), "out": str(out / d.name), **counts}))


def register(app: typer.Typer) -> None:
    """Adds the `models` group to the `dicecall` command."""
    group = typer.Typer(
        help="Train, export, score and time the dice reader's models.", no_args_is_help=True
    )
    for fn in (train, export, blend, quantize, evaluate, sweep, bench, gallery, rebox):
        group.command()(fn)
    app.add_typer(group, name="models")
