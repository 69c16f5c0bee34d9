"""`dicecall calibrate model` and `simulate`: the reader's temperature and thresholds."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def model(
    dataset: Annotated[Path | None, typer.Argument(
        help="labelled set: synthetic JSON folder, YOLO folder, COCO export "
             "(annotations.json + images/) or crops folder")] = None,
    samples: Annotated[Path | None, typer.Option(help="reuse a samples .npz instead")] = None,
    save_samples: Annotated[Path | None, typer.Option(help="write the samples .npz")] = None,
    out: Annotated[Path, typer.Option(help="model profile JSON")] = Path("profile.json"),
    report_dir: Annotated[Path | None, typer.Option(help="folder for the report PNGs")] = None,
    target: Annotated[float, typer.Option(help="error rate allowed among auto-accepted",
                                          min=1e-7, max=0.5)] = 1e-4,
    confidence: Annotated[float, typer.Option(help="one-sided bound level", min=0.5,
                                              max=0.9999)] = 0.95,
    max_false_flag: Annotated[float, typer.Option(help="largest false cocked/stacked flag "
                                                       "rate", min=0.0, max=0.5)] = 0.005,
    limit: Annotated[int | None, typer.Option(help="read at most this many images")] = None,
    threads: Annotated[int, typer.Option(help="onnxruntime threads", min=1, max=16)] = 2,
    game: Annotated[str | None, typer.Option(
        help="read DATASET as a table of this game reads it (its detector and reader: Craps "
             "and High Roll with detector.thrown.onnx and reader.thrown.onnx, Props & Hops with "
             "detector.shaker.onnx and reader.shaker.onnx; the profile then fits that reader; "
             "without a game, detector.onnx and reader.onnx; vision/config.py `for_game`)")] = None,
    min_cocked_recall: Annotated[float, typer.Option(
        help="lower the tilt line until it flags this share of the fit half's cocked dice "
             "(0: no floor). 0.97 is what the default line flags on the tuning suite "
             "(calibration/model.py MIN_COCKED_RECALL); it protects only if the footage's "
             "cocked dice lean as shallowly as those the table must catch",
        min=0.0, max=1.0)] = 0.0,
) -> None:
    """Temperature and thresholds, fitted on half the images and checked on the other half.

    The auto-accept threshold (min_confidence) keeps the error rate of accepted reads under
    --target with a one-sided Clopper-Pearson bound. Accepted reads are those the verdict
    accepts: confidence at the threshold and a pip count that agrees with the face (samples
    without pip readings fall back to all reads, a stricter threshold). Tilt and stacked
    thresholds maximise recall with at most --max-false-flag false flags, never above the
    verdict's defaults, and with --min-cocked-recall the tilt line is lowered further if it
    flags fewer than that share of the cocked dice.
    """
    from dicecall.vision.config import ReaderConfig, for_table

    from . import CalibrationError
    from .cli import fail
    from .model import calibrate_samples, summary_lines
    from .profile import file_sha256
    from .scores import Samples

    try:
        cfg = for_table(ReaderConfig(threads=threads, warmup=0), game)
    except ValueError as exc:
        raise typer.BadParameter(f"--{exc}") from exc
    from .files import check_writable

    try:
        check_writable(out)
        if save_samples is not None:
            check_writable(save_samples, "--save-samples")
        if (dataset is None) == (samples is None):
            raise CalibrationError("give a labelled DATASET folder or --samples, not both")
        sha = det_sha = views = None
        if samples is not None:
            data, source = Samples.load(samples), str(samples)
            # Saved from a labelled set, the file names the models that read it (since
            # session 39): the profile binds to them as if fitted on the set itself.
            meta = Samples.meta(samples)
            sha, det_sha = meta.get("reader_sha256"), meta.get("detector_sha256")
            views = meta.get("views")
        else:
            from dicecall.vision.reader import DiceReader

            from .collect import collect

            if not dataset.is_dir():
                raise CalibrationError(f"{dataset}: not a folder")
            data, counts = collect(DiceReader(cfg), dataset, limit)
            source, sha, views = str(dataset), file_sha256(cfg.reader), cfg.views
            det_sha = file_sha256(cfg.detector)
            typer.echo(", ".join(f"{k} {v}" for k, v in counts.items()))
        if save_samples is not None:
            data.save(save_samples, **{k: v for k, v in (("reader_sha256", sha),
                                                         ("detector_sha256", det_sha),
                                                         ("views", views)) if v is not None})
        cal = calibrate_samples(data, source, target, confidence, max_false_flag,
                                reader_sha256=sha, views=views, detector_sha256=det_sha,
                                min_cocked_recall=min_cocked_recall or None)
        cal.profile.save(out)
    except (CalibrationError, FileNotFoundError) as exc:
        raise fail(exc) from exc
    for line in summary_lines(cal):
        typer.echo(line)
    typer.echo(f"profile -> {out}")
    if report_dir is not None:
        from .report import write_report

        for p in write_report(cal, report_dir):
            typer.echo(f"report -> {p}")


def simulate(
    out: Annotated[Path, typer.Option(help="samples .npz to write")],
    n: Annotated[int, typer.Option(help="dice", min=100, max=5_000_000)] = 200_000,
    temperature: Annotated[float, typer.Option(help="true temperature", min=0.1,
                                               max=10.0)] = 1.8,
    seed: Annotated[int, typer.Option(help="random seed")] = 0,
    pip_error: Annotated[float | None, typer.Option(
        help="also simulate pip readings, this share misread (default: none, as in samples "
             "saved before pip readings were recorded)", min=0.0, max=1.0)] = None,
) -> None:
    """Synthetic per-die scores with a known temperature, to try `model --samples`."""
    from . import CalibrationError
    from .cli import fail
    from .files import check_writable
    from .scores import synthetic_samples

    try:
        check_writable(out)
        synthetic_samples(n, temperature, seed, pip_error=pip_error).save(
            out, temperature=temperature, seed=seed)
    except CalibrationError as exc:
        raise fail(exc) from exc
    pips = "" if pip_error is None else f", pips misread {pip_error:g}"
    typer.echo(f"{n} synthetic dice (temperature {temperature}, seed {seed}{pips}) -> {out}")
