"""`dicecall datasets ...`: generate, stats, contact-sheet, export, import.

pybullet and OpenCV are imported inside the commands so `dicecall --help` stays fast.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from dicecall.outpaths import writable_dir, writable_file

group = typer.Typer(
    name="datasets", help="Synthetic dice scenes and dataset formats.", no_args_is_help=True
)


def _fail(exc: Exception) -> typer.Exit:
    typer.echo(f"error: {exc}", err=True)
    return typer.Exit(code=2)


def _records(src: Path, fmt: str):
    from dicecall.datasets.formats import load_coco, load_yolo
    from dicecall.datasets.schema import load_folder

    return {"json": load_folder, "yolo": load_yolo, "coco": load_coco}[fmt](src)


@group.command()
def generate(
    scene: Annotated[str, typer.Option(help="shaker, throwbox or craps")],
    count: Annotated[int, typer.Option(help="number of images")],
    out: Annotated[Path, typer.Option(help="output folder", callback=writable_dir)],
    seed: Annotated[
        int, typer.Option(help="master seed; scene i uses a seed derived from (seed, i)")
    ] = 0,
    width: Annotated[int, typer.Option(help="image width, pixels")] = 640,
    height: Annotated[int, typer.Option(help="image height, pixels")] = 480,
    workers: Annotated[int, typer.Option(help="processes; 0 = all cores")] = 0,
    rare: Annotated[
        float, typer.Option(help="multiplier of the forced stacked/cocked/touching/out poses")
    ] = 1.0,
    stack_offset: Annotated[
        float, typer.Option(help="largest offset of a die dropped on another, x its side "
                                 "(0.15: the die on top hides the one beneath)")
    ] = 0.15,
    force: Annotated[
        list[str] | None, typer.Option(help="NAME=P: probability per scene of one forced "
                                             "placement (stack, touch, lean, out) in place "
                                             "of its natural one; repeat")
    ] = None,
    styles: Annotated[
        str, typer.Option(help="seen: the training styles; unseen: held-out styles no "
                               "training set draws, to judge the reader on new dice; random: "
                               "procedural styles of any colour beside the seen ones, to "
                               "train on; dark: procedural near-black dice with bright "
                               "pips beside the seen ones, to train on")
    ] = "seen",
    lamps: Annotated[
        float, typer.Option(help="also render each scene under three lamps at this "
                                 "elevation, degrees, one at a time, and with every lamp "
                                 "off (NAME.lamp0-3.jpg; 0: none)")
    ] = 0.0,
    polarised: Annotated[
        bool, typer.Option(help="crossed polarisers: no highlights in the lamps' frames")
    ] = False,
) -> None:
    """Throws dice with pybullet, renders them and writes NAME.jpg + NAME.json pairs."""
    from pydantic import ValidationError

    from dicecall.datasets.generate import GenerateConfig
    from dicecall.datasets.generate import generate as run

    try:
        forced = {}
        for item in force or []:
            name, sep, prob = item.partition("=")
            if not sep:
                raise ValueError(f"--force {item!r}: write NAME=P, e.g. lean=1")
            forced[name.strip()] = float(prob)
        cfg = GenerateConfig(
            scene=scene,
            count=count,
            seed=seed,
            out=out,
            width=width,
            height=height,
            workers=workers,
            rare=rare,
            stack_offset=stack_offset,
            force=forced,
            styles=styles,
            lamps=lamps,
            polarised=polarised,
        )
    except (ValidationError, ValueError) as exc:
        raise _fail(exc) from exc
    names = run(cfg)
    typer.echo(f"wrote {len(names)} images to {out}")


@group.command()
def stats(
    src: Annotated[Path, typer.Argument(help="dataset folder")],
    fmt: Annotated[str, typer.Option("--format", help="json (ours), yolo or coco")] = "json",
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of a table")] = False,
) -> None:
    """Counts dice per face, tilt band, stacked, zone and style."""
    from dicecall.datasets.schema import DatasetError
    from dicecall.datasets.stats import compute, format_table

    try:
        result = compute([rec for _, rec in _records(src, fmt)])
    except (DatasetError, KeyError) as exc:
        raise _fail(exc) from exc
    typer.echo(json.dumps(result, indent=1) if as_json else format_table(result))


@group.command("contact-sheet")
def contact_sheet(
    src: Annotated[Path, typer.Argument(help="dataset folder")],
    out: Annotated[Path, typer.Option("-o", "--out", help="output PNG or JPEG",
                                      callback=writable_file)],
    fmt: Annotated[str, typer.Option("--format", help="json (ours), yolo or coco")] = "json",
    count: Annotated[int, typer.Option(help="number of images")] = 9,
    cols: Annotated[int, typer.Option(help="tiles per row")] = 3,
    tile_width: Annotated[int, typer.Option(help="tile width, pixels")] = 320,
) -> None:
    """Draws a grid of images with their labels for a person to check."""
    from dicecall.datasets.schema import DatasetError
    from dicecall.datasets.sheet import contact_sheet as draw

    try:
        path = draw(_records(src, fmt), out, cols=cols, tile_width=tile_width, limit=count)
    except (DatasetError, ValueError) as exc:
        raise _fail(exc) from exc
    typer.echo(f"wrote {path}")


@group.command()
def export(
    src: Annotated[Path, typer.Argument(help="our dataset folder")],
    dst: Annotated[Path, typer.Argument(help="output folder", callback=writable_dir)],
    fmt: Annotated[str, typer.Option("--format", help="yolo or coco")],
    min_visible: Annotated[
        float, typer.Option(help="skip dice less visible than this fraction")
    ] = 0.3,
) -> None:
    """Exports our JSON dataset to YOLO (images/ + labels/) or COCO (annotations.json)."""
    from dicecall.datasets.formats import export_coco, export_yolo
    from dicecall.datasets.schema import DatasetError

    fns = {"yolo": export_yolo, "coco": export_coco}
    try:
        if fmt not in fns:
            raise DatasetError(f"--format must be yolo or coco, got {fmt!r}")
        n = fns[fmt](src, dst, min_visible)
    except DatasetError as exc:
        raise _fail(exc) from exc
    typer.echo(f"exported {n} images to {dst} ({fmt})")


@group.command("import")
def import_(
    src: Annotated[Path, typer.Argument(help="YOLO or COCO folder")],
    dst: Annotated[Path, typer.Argument(help="output folder in our JSON schema",
                                        callback=writable_dir)],
    fmt: Annotated[str, typer.Option("--format", help="yolo or coco")],
) -> None:
    """Imports a YOLO or COCO folder (e.g. the real-dev photos) into our JSON schema."""
    from dicecall.datasets.formats import import_folder
    from dicecall.datasets.schema import DatasetError

    try:
        n = import_folder(fmt, src, dst)
    except DatasetError as exc:
        raise _fail(exc) from exc
    typer.echo(f"imported {n} images into {dst}")


@group.command()
def sequence(
    out: Annotated[Path, typer.Option(help="output folder; each bundle gets a subfolder",
                                      callback=writable_dir)],
    bundle: Annotated[
        list[str] | None, typer.Option(help="craps, props-and-hops or high-roll (repeatable)")
    ] = None,
    seed: Annotated[int, typer.Option(help="seed of the light and of the throw search")] = 7,
    fps: Annotated[float, typer.Option(min=2.0, max=60.0, help="frames per second")] = 10.0,
    quality: Annotated[int, typer.Option(min=30, max=100, help="JPEG quality at rest")] = 80,
) -> None:
    """Films whole throws (empty table, tumbling, at rest, collected) as replay bundles.

    Each bundle folder gets frames.csv (file,t_ms), the JPEG frames, zones.json (the table
    calibration) and truth.json (every throw's plan, labels and ideal verdict).
    """
    from dicecall.datasets.bundle import BUNDLES, Timing, make_bundle

    names = bundle or list(BUNDLES)
    unknown = [n for n in names if n not in BUNDLES]
    if unknown:
        raise _fail(ValueError(f"unknown bundle {unknown}; choose from {', '.join(BUNDLES)}"))
    for name in names:
        truth = make_bundle(name, out / name, seed, Timing(fps=fps, quality=quality),
                            log=typer.echo)
        typer.echo(f"{name}: {truth['frames']} frames, {truth['files']} files, "
                   f"{truth['jpeg_bytes'] / 1e6:.2f} MB in {out / name}")


def register(app: typer.Typer) -> None:
    """Adds the `datasets` group to the main `dicecall` app."""
    app.add_typer(group, name="datasets")
