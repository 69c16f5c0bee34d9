"""`dicecall predict` and `dicecall evaluate`."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from dicecall.outpaths import writable_file

# Photos of any size and framing (bench/bench_tiles.py, models/reader.md "The tiled look");
# a table's calibrated frames are read without tiles, as its verdict lines were tuned.
PHOTO_TILE_ZOOM = 3.0
THREADS = typer.Option(help="onnxruntime intra-op threads", min=1, max=16)
VIEWS = typer.Option(help="turned views of each die's crop read and averaged (1-8): one for "
                     "every die, all of them for a die in doubt", min=1,
                     max=8)
GAME = typer.Option(help="read as a table of this game reads (its detector, its reader and "
                    "what puts a die in doubt: vision/config.py `for_game`); default: no "
                    "game, detector.onnx and reader.onnx, the files that read dice of new "
                    "styles best (models/reader.md, sessions 37 and 53)")


TILES = typer.Option(help="also read a large photo in overlapping tiles this many times "
                     "smaller than its long side, for dice too small in it for one look "
                     "(vision/tiles.py; 0: never). A table's frames are read without")


def _reader(threads: int, views: int, game: str | None, tile_zoom: float = 0.0):
    """The reader the command uses; `game` (`profiles.GAMES`) reads as that game's table."""
    from .config import ReaderConfig, for_table
    from .reader import DiceReader

    try:
        cfg = ReaderConfig(threads=threads, views=views, tile_zoom=tile_zoom)
        return DiceReader(for_table(cfg, game))
    except ValueError as exc:
        raise typer.BadParameter(f"--{exc}") from exc


def predict(
    images: Annotated[list[Path], typer.Argument(help="Image files to read")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per image")] = False,
    threads: Annotated[int, THREADS] = 2,
    views: Annotated[int, VIEWS] = 4,
    game: Annotated[str | None, GAME] = None,
    tile_zoom: Annotated[float, TILES] = PHOTO_TILE_ZOOM,
) -> None:
    """Find every die and read its top face (contract: DESIGN.md, Judging the reader)."""
    from .images import ImageError, load_image

    reader = _reader(threads, views, game, tile_zoom)
    failed = 0
    for path in images:
        try:
            frame = load_image(path)
            t0 = time.perf_counter()
            dice = reader.read(frame)
            ms = (time.perf_counter() - t0) * 1000
        except Exception as exc:  # one image's failure must not end the batch
            failed += 1
            message = str(exc) if isinstance(exc, ImageError) else f"{path}: {exc!r}"
            # The contract's keys, so a scorer reading "dice" finds none, not a KeyError.
            _emit(as_json, {"image": str(path), "width": None, "height": None, "ms": None,
                            "dice": [], "error": message}, f"{path}: error: {message}")
            continue
        h, w = frame.shape[:2]
        record = {"image": str(path), "width": w, "height": h, "ms": round(ms, 2),
                  "dice": dice.to_json()}
        faces = " ".join(str(d["face"]) + ("?" if d["tilted"] or d["stacked"] else "")
                         for d in record["dice"])
        _emit(as_json, record, f"{path}: {len(dice)} dice [{faces}] in {ms:.1f} ms")
    if failed == len(images):
        raise typer.Exit(1)


def _emit(as_json: bool, record: dict, text: str) -> None:
    typer.echo(json.dumps(record) if as_json else text)


def evaluate(
    folder: Annotated[Path, typer.Argument(help="YOLO folder, crops folder (1/..6/) or "
                                                 "synthetic JSON folder")],
    confusion: Annotated[Path | None, typer.Option(help="Write the confusion matrix PNG",
                                                   callback=writable_file)] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
    threads: Annotated[int, THREADS] = 2,
    views: Annotated[int, VIEWS] = 4,
    game: Annotated[str | None, GAME] = None,
    tile_zoom: Annotated[float, TILES] = PHOTO_TILE_ZOOM,
) -> None:
    """Score the reader: dice found, face right, false detections per image, confusion."""
    from .evaluate import evaluate_folder
    from .scoring import confusion_png

    if not folder.is_dir():
        raise typer.BadParameter(f"{folder} is not a folder")
    reader = _reader(threads, views, game, tile_zoom)
    try:
        result = evaluate_folder(reader, folder)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    if confusion:
        confusion_png(result.score.confusion, str(confusion), folder.name)
    report = {"folder": str(folder), **result.as_dict()}
    if as_json:
        typer.echo(json.dumps(report))
        return
    for key, value in report.items():
        if isinstance(value, dict):  # by_band, by_kind, by_style: one line each
            typer.echo(f"{key:>22}:")
            for name, counts in value.items():
                typer.echo(f"{name:>24}: " + ", ".join(
                    f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}"
                    for k, v in counts.items()))
        elif key != "confusion":
            typer.echo(f"{key:>22}: {value:.4f}" if isinstance(value, float)
                       else f"{key:>22}: {value}")
    typer.echo("confusion (rows truth 1-6, columns read 1-6):")
    for row in report["confusion"]:
        typer.echo("   " + " ".join(f"{v:5d}" for v in row))
    sys.stdout.flush()


def register(app: typer.Typer) -> None:
    app.command("predict")(predict)
    app.command("evaluate")(evaluate)
