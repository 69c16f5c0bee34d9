"""`dicecall calibrate ...`: camera, zones, exposure, model (see docs/calibration.md).

OpenCV and onnxruntime are imported inside the commands so `dicecall --help` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .cli_model import model, simulate

group = typer.Typer(name="calibrate", no_args_is_help=True,
                    help="Camera intrinsics, table zones, exposure and the reader's thresholds.")
group.command(epilog="Example: dicecall calibrate model data/val --out profile.json "
                     "--report-dir docs/  |  dicecall calibrate model --samples s.npz "
                     "--out profile.json")(model)
group.command(epilog="Example: dicecall calibrate simulate --n 200000 --temperature 1.8 "
                     "--out samples.npz")(simulate)


def fail(exc: Exception) -> typer.Exit:
    typer.echo(f"error: {exc}", err=True)
    return typer.Exit(code=2)


@group.command(epilog="Example: dicecall calibrate camera shots/*.jpg --board charuco "
                      "--cols 9 --rows 6 --square-mm 25 --marker-mm 18 --out camera.json")
def camera(
    images: Annotated[list[Path], typer.Argument(help="photos of the board, one camera mode")],
    out: Annotated[Path, typer.Option(help="intrinsics JSON to write")] = Path("camera.json"),
    board: Annotated[str, typer.Option(help="checkerboard or charuco")] = "charuco",
    cols: Annotated[int, typer.Option(help="squares across")] = 9,
    rows: Annotated[int, typer.Option(help="squares down")] = 6,
    square_mm: Annotated[float, typer.Option(help="square side, mm")] = 25.0,
    marker_mm: Annotated[float, typer.Option(help="ChArUco marker side, mm")] = 18.0,
    dictionary: Annotated[str, typer.Option(help="ChArUco dictionary")] = "DICT_5X5_100",
    name: Annotated[str, typer.Option("--camera", help="camera name saved")] = "default",
    min_views: Annotated[int, typer.Option(help="fewest usable views", min=3)] = 6,
    fix_k3: Annotated[bool, typer.Option(help="hold k3 at 0")] = False,
    max_rms: Annotated[float, typer.Option(help="largest RMS reprojection error accepted, px",
                                           min=0.0)] = 1.0,
) -> None:
    """Intrinsics and distortion from checkerboard or ChArUco photos (RMS and views saved)."""
    from pydantic import ValidationError

    from . import CalibrationError
    from .files import check_writable
    from .intrinsics import calibrate, load_images
    from .targets import BoardSpec

    try:
        check_writable(out)
        spec = BoardSpec(kind=board, cols=cols, rows=rows, square_mm=square_mm,
                         marker_mm=marker_mm, dictionary=dictionary)
        result, per_view = calibrate(load_images(images), spec, name, min_views, fix_k3)
        if not result.rms_px <= max_rms:
            worst = sorted(per_view.items(), key=lambda kv: -kv[1])[:3]
            raise CalibrationError(
                f"RMS reprojection error {result.rms_px:.3f} px is over --max-rms {max_rms:g}: "
                "the photos do not fit one camera (another camera or mode among them, the "
                "focus or zoom changed, a bent board, motion blur). Worst views: "
                + ", ".join(f"{v} {e:.2f} px" for v, e in worst)
                + "; remove them or take the photos again")
        result.save(out)
    except (CalibrationError, ValidationError) as exc:
        raise fail(exc) from exc
    k = result.k_array
    typer.echo(f"{result.views_used} views, RMS {result.rms_px:.3f} px: fx {k[0, 0]:.2f} fy "
               f"{k[1, 1]:.2f} cx {k[0, 2]:.2f} cy {k[1, 2]:.2f}, dist "
               f"{[round(d, 4) for d in result.dist]} -> {out}")
    for view, err in sorted(per_view.items(), key=lambda kv: -kv[1])[:3]:
        typer.echo(f"  worst view {view}: {err:.3f} px")
    for skipped in result.views_rejected:
        typer.echo(f"  skipped {skipped}")


@group.command(epilog="Examples: dicecall calibrate zones --image frame.jpg --layout "
                      "markers.json --zones zones.json --camera camera.json --out table.json"
                      "  |  dicecall calibrate zones --image frame.jpg --points "
                      "'102,88=-560,-330;1180,91=560,-330;1175,700=560,330;99,690=-560,330' "
                      "--zones zones.json --out table.json")
def zones(
    zones_file: Annotated[Path, typer.Option("--zones", help="zones in mm (ZonesFile JSON)")],
    image: Annotated[Path | None, typer.Option(help="frame of the table")] = None,
    layout: Annotated[Path | None, typer.Option(help="ArUco marker layout JSON")] = None,
    points: Annotated[str | None, typer.Option(help="'x,y=X,Y;...' pixel=table mm pairs")] = None,
    camera_file: Annotated[Path | None, typer.Option("--camera", help="intrinsics JSON")] = None,
    min_markers: Annotated[int, typer.Option(help="fewest layout markers to see", min=1)] = 3,
    out: Annotated[Path, typer.Option(help="table calibration JSON")] = Path("table.json"),
    overlay: Annotated[Path | None, typer.Option(help="PNG with the zones drawn")] = None,
    max_rms: Annotated[float, typer.Option(help="largest reprojection RMS of the markers or "
                                                "points accepted, px", min=0.0)] = 2.0,
) -> None:
    """Table plane from ArUco markers or given points; zones in mm -> pixel zones."""
    import cv2

    from dicecall.vision.images import imread

    from . import CalibrationError
    from .camera_model import CameraIntrinsics
    from .files import check_writable, write_atomic
    from .layout import MarkerLayout, ZonesFile, load_json
    from .table import check_reprojection, find_markers, fit_table, parse_points
    from .zones import calibrate_zones, check_play_in_frame, draw_zones, outside_frame

    try:
        check_writable(out)
        if overlay is not None:
            check_writable(overlay, "--overlay")
        if (layout is None) == (points is None):
            raise CalibrationError("give either --layout (markers) or --points")
        intr = CameraIntrinsics.load(camera_file) if camera_file else None
        frame = imread(image) if image else None
        if image and frame is None:
            raise CalibrationError(f"{image}: not a readable image")
        if intr is not None and frame is not None and \
                (intr.width, intr.height) != (frame.shape[1], frame.shape[0]):
            # Intrinsics are in the pixels of their own mode; a scaled mode of the same view
            # is rescaled, any other size (a crop, another sensor mode) is refused.
            try:
                intr = intr.for_size(frame.shape[1], frame.shape[0])
            except CalibrationError as exc:
                raise CalibrationError(f"{image} is {frame.shape[1]}x{frame.shape[0]} but "
                                       f"{camera_file} is of {intr.width}x{intr.height}: "
                                       f"{exc}") from exc
            typer.echo(f"  {camera_file} is {intr.camera} at another size: scaled to "
                       f"{intr.width}x{intr.height}")
        if layout:
            if frame is None:
                raise CalibrationError("--layout needs --image")
            px, mm, ids = find_markers(frame, load_json(MarkerLayout, layout), min_markers)
            pose = fit_table(px, mm, intr, "markers", ids)
        else:
            px, mm = parse_points(points)
            pose = fit_table(px, mm, intr, "points")
        check_reprojection(pose, max_rms)
        table = calibrate_zones(pose, load_json(ZonesFile, zones_file))
        size = (frame.shape[1], frame.shape[0]) if frame is not None else (
            (intr.width, intr.height) if intr is not None else None)
        if size is not None:
            check_play_in_frame(table, *size)
        table.save(out)
    except CalibrationError as exc:
        raise fail(exc) from exc
    typer.echo(f"{pose.source}: {pose.points} points, reprojection RMS {pose.rms_px:.3f} px, "
               f"max {pose.max_px:.3f} px -> {out}")
    for d in table.die_px:
        typer.echo(f"  {d.zone}: die {d.centre_px:.1f} px ({d.min_px:.1f}-{d.max_px:.1f})")
    if size is None:
        typer.echo("  frame size unknown (no --image or --camera): zones not checked against "
                   "the frame's edges")
    for name, edge, d in outside_frame(table, *size) if size else []:
        typer.echo(f"warning: play zone {name} runs {d:.1f} px past the frame's {edge} "
                   f"edge ({size[0]}x{size[1]}): a die there is cut off or unseen; move the "
                   "camera or shrink the zone", err=True)
    if overlay is not None and frame is None:
        typer.echo(f"warning: --overlay {overlay} not drawn: it needs --image", err=True)
    elif overlay is not None:
        ok, png = cv2.imencode(".png", draw_zones(frame, table))
        try:
            if not ok:
                raise CalibrationError(f"{overlay}: the overlay could not be encoded")
            write_atomic(overlay, png.tobytes())
        except CalibrationError as exc:  # the table file is written; say so
            typer.echo(f"error: {exc} (the table file {out} is written)", err=True)
            raise typer.Exit(code=2) from exc


@group.command(epilog="Example: dicecall calibrate exposure card.jpg --gains 1.6,1.9 "
                      "--exposure-us 8000 --gain 1.0 --out controls.json")
def exposure(
    image: Annotated[Path, typer.Argument(help="frame of an 18 % grey card")],
    region: Annotated[str | None, typer.Option(help="card 'x,y,w,h' pixels (default: "
                                                    "largest uniform patch)")] = None,
    gains: Annotated[str, typer.Option(help="ColourGains 'red,blue' of the frame")] = "1,1",
    exposure_us: Annotated[int, typer.Option(help="ExposureTime of the frame, us")] = 10000,
    gain: Annotated[float, typer.Option(help="AnalogueGain of the frame")] = 1.0,
    max_exposure_us: Annotated[int, typer.Option(help="longest exposure allowed, us")] = 20000,
    out: Annotated[Path, typer.Option(help="controls JSON")] = Path("controls.json"),
) -> None:
    """Fixed ColourGains, AnalogueGain and ExposureTime from a grey card."""
    from dicecall.vision.images import imread

    from . import CalibrationError
    from .exposure import calibrate_exposure
    from .files import check_writable, write_atomic

    try:
        check_writable(out)
        frame = imread(image)
        if frame is None:
            raise CalibrationError(f"{image}: not a readable image")
        try:
            reg = tuple(int(v) for v in region.split(",")) if region else None
        except ValueError as exc:
            raise CalibrationError(f"--region must be x,y,w,h in whole pixels, got "
                                   f"{region!r}") from exc
        if reg is not None and len(reg) != 4:
            raise CalibrationError("--region must be x,y,w,h")
        try:
            r, b = (float(v) for v in gains.split(","))
        except ValueError as exc:
            raise CalibrationError(f"--gains must be red,blue, got {gains!r}") from exc
        res = calibrate_exposure(frame, reg, (r, b), exposure_us, gain, max_exposure_us)
        write_atomic(out, res.model_dump_json(indent=2) + "\n")
    except (CalibrationError, ValueError) as exc:
        raise fail(exc) from exc
    c = res.controls
    typer.echo(f"patch {res.region}: ColourGains {c.ColourGains}, ExposureTime "
               f"{c.ExposureTime} us, AnalogueGain {c.AnalogueGain} -> {out}")
    if res.limited:
        typer.echo("warning: the gain limit keeps the card below 18 % grey; add light")


@group.command(epilog="Example: dicecall calibrate lamps off.jpg lamp1.jpg lamp2.jpg "
                      "lamp3.jpg --region 700,400,300,200 --out lamps.json")
def lamps(
    frames: Annotated[list[Path], typer.Argument(help="four frames of the empty shaker, the "
                                                      "exposure fixed: every lamp off, then "
                                                      "lamp 1, 2, 3 alone")],
    region: Annotated[str, typer.Option(help="'x,y,w,h' pixels of the flat, plain floor")],
    azimuth: Annotated[str, typer.Option(help="the lamps' azimuths 'a,b,c', degrees, as "
                                              "mounted")] = "90,210,330",
    elevation: Annotated[str, typer.Option(help="the lamps' elevations 'a,b,c', degrees, "
                                                "as mounted")] = "45,45,45",
    out: Annotated[Path, typer.Option(help="lamp rig JSON (edge `lamps.calibration`)")] = Path(
        "lamps.json"),
) -> None:
    """Each lamp's brightness from its frame of the empty floor: the Props & Hops lamps'
    rig (docs/edge.md, "Lamps")."""
    from dicecall.vision.images import imread
    from dicecall.vision.lamps import LampRig, fit_gains

    from . import CalibrationError
    from .files import check_writable, write_atomic

    def three(text: str, name: str, kind=float) -> tuple:
        try:
            values = tuple(kind(v) for v in text.split(","))
        except ValueError as exc:
            raise CalibrationError(f"--{name} must be numbers a,b,c, got {text!r}") from exc
        if len(values) != (4 if name == "region" else 3):
            raise CalibrationError(f"--{name}: got {len(values)} numbers in {text!r}")
        return values

    try:
        check_writable(out)
        if len(frames) != 4:
            raise CalibrationError(f"four frames (lamps off, lamp 1, 2, 3), got {len(frames)}")
        images = [imread(f) for f in frames]  # a frame with every lamp off may be dark
        for f, image in zip(frames, images, strict=True):
            if image is None:
                raise CalibrationError(f"{f}: not a readable image")
        rig = LampRig(azimuth_deg=three(azimuth, "azimuth"),
                      elevation_deg=three(elevation, "elevation"))
        gains = fit_gains(images, three(region, "region", int), rig)
        rig = rig.model_copy(update={"gains": gains})
        LampRig.model_validate(rig.model_dump())  # the gains within their bounds
        write_atomic(out, rig.model_dump_json(indent=2) + "\n")
    except (CalibrationError, ValueError) as exc:
        raise fail(exc) from exc
    typer.echo(f"lamp gains {', '.join(f'{g:.3f}' for g in gains)} -> {out}")


def register(app: typer.Typer) -> None:
    """Adds the `calibrate` group to the main `dicecall` app."""
    app.add_typer(group, name="calibrate")
