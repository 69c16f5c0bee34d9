"""Rendered calibration targets with known truth, and recovered-versus-true figures.

    python -m dicecall.calibration.demo render --out /tmp/cal
    dicecall calibrate camera /tmp/cal/board-*.png --out /tmp/cal/camera.json
    dicecall calibrate zones --image /tmp/cal/table.png --layout .../markers-craps.json ...
    python -m dicecall.calibration.demo figures --renders /tmp/cal --out docs
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import cv2
import numpy as np
import typer

from .camera_model import CameraIntrinsics
from .layout import MarkerLayout, load_json
from .plots import BLUE, GREY, RED, Axes, canvas, text
from .targets import (
    BoardSpec,
    add_noise,
    board_photos,
    look_at,
    plane_matrix,
    render_view,
    table_texture,
)
from .zones import TableCalibration, densify, zone_pixels

EXAMPLES = Path(__file__).resolve().parent / "examples"
TRUE_K = np.array([[812.0, 0.0, 486.5], [0.0, 815.0, 352.0], [0.0, 0.0, 1.0]])
TRUE_DIST = np.array([-0.21, 0.09, 0.0006, -0.0004, -0.01])
SIZE = (960, 720)
app = typer.Typer(add_completion=False, no_args_is_help=True)


def board_views(spec: BoardSpec, count: int, seed: int):
    """(name, image) photos of the board from varied, tilted viewpoints."""
    return board_photos(spec, count, seed, TRUE_K, TRUE_DIST, SIZE, (200, 160, 380, 520),
                        (140, 100))


def table_view(layout: MarkerLayout, seed: int):
    """(image, rvec, tvec): the table seen from 1.3 m, slightly off-centre and tilted."""
    tex, origin = table_texture(layout, (-640, 640), (-430, 460), 2.5)
    r, t = look_at((70.0, -180.0, 1300.0), (10.0, 0.0, 0.0), up=(0, 1, 0))
    img = render_view(tex, 2.5, origin, TRUE_K, TRUE_DIST, plane_matrix(r, t, flip_y=True),
                      SIZE, background=30)
    return add_noise(img, 2.0, seed), r, t


@app.command()
def render(out: Annotated[Path, typer.Option(help="folder for the images and truth.json")],
           views: int = 12, seed: int = 0) -> None:
    """Board photos, a table photo with markers, and truth.json."""
    out.mkdir(parents=True, exist_ok=True)
    for name, img in board_views(BoardSpec(), views, seed):
        cv2.imwrite(str(out / name), img)
    img, r, t = table_view(load_json(MarkerLayout, EXAMPLES / "markers-craps.json"), seed)
    cv2.imwrite(str(out / "table.png"), img)
    truth = {"k": TRUE_K.tolist(), "dist": TRUE_DIST.tolist(), "size": SIZE,
             "table_rvec": r.tolist(), "table_tvec": t.tolist()}
    (out / "truth.json").write_text(json.dumps(truth, indent=2))
    typer.echo(f"{views} board photos, table.png and truth.json -> {out}")


def camera_figure(truth: dict, cam: CameraIntrinsics, path: Path) -> None:
    """Recovered minus true intrinsics, and the distortion displacement along the diagonal."""
    img = canvas(1100, 480)
    k, kt = cam.k_array, np.array(truth["k"])
    names = ["fx", "fy", "cx", "cy"]
    diff = [k[0, 0] - kt[0, 0], k[1, 1] - kt[1, 1], k[0, 2] - kt[0, 2], k[1, 2] - kt[1, 2]]
    ax = Axes(img, (90, 60, 380, 330), (-0.5, 3.5), (-3, 3),
              f"recovered - true, px (RMS {cam.rms_px:.3f} px, {cam.views_used} views)", "",
              "px")
    ax.ticks([], range(-3, 4), str, str)
    ax.bars(range(4), diff, 0.6, BLUE)
    for i, (n, d) in enumerate(zip(names, diff, strict=True)):
        text(img, f"{n} {d:+.2f}", (ax.px([i], [0])[0, 0] - 30, 420), 0.5)
    text(img, f"focal tolerance 1 % = {0.01 * kt[0, 0]:.1f} px, principal point 2 px",
         (90, 450), 0.45)
    w, h = truth["size"]
    diag = np.linspace(0, 1, 60)[:, None] * [[w - 1, h - 1]]
    shift = {}
    for label, kk, dd in (("true", kt, np.array(truth["dist"])), ("recovered", k,
                                                                   cam.dist_array)):
        # Forward model (ideal pixel -> distorted pixel): no iterative inversion involved.
        ray = np.column_stack([(diag - kk[:2, 2]) / [kk[0, 0], kk[1, 1]], np.ones(len(diag))])
        moved = cv2.projectPoints(ray, np.zeros(3), np.zeros(3), kk, dd)[0].reshape(-1, 2)
        shift[label] = np.linalg.norm(moved - diag, axis=1)
    r = np.linalg.norm(diag - [w / 2, h / 2], axis=1) * np.sign(diag[:, 0] - w / 2)
    top = float(max(shift["true"].max(), shift["recovered"].max())) * 1.1
    ax2 = Axes(img, (620, 60, 420, 330), (r.min(), r.max()), (0, top),
               "lens distortion along the image diagonal", "signed distance from centre, px",
               "shift, px")
    ax2.ticks(np.linspace(-500, 500, 5), np.linspace(0, top, 5), lambda v: f"{v:.0f}",
              lambda v: f"{v:.0f}")
    ax2.line(r, shift["true"], GREY, 6, "true")
    ax2.line(r, shift["recovered"], RED, 2, "recovered")
    gap = np.abs(shift["true"] - shift["recovered"]).max()
    text(img, f"largest difference {gap:.2f} px", (620, 450), 0.45)
    cv2.imwrite(str(path), img)


def zones_figure(renders: Path, truth: dict, table: TableCalibration, path: Path) -> None:
    """The table photo with the true zones (white) and the recovered zones (colour)."""
    img = cv2.imread(str(renders / "table.png"))
    worst = 0.0
    for spec in table.zones_mm.zones:
        got = np.array(zone_pixels(table.pose, spec))
        mm = densify(spec.polygon_mm, 10.0)  # the same vertices zone_pixels projects
        obj = np.column_stack([mm, np.full(len(mm), spec.z_mm)])
        true = cv2.projectPoints(obj, np.array(truth["table_rvec"]), np.array(truth["table_tvec"]),
                                 np.array(truth["k"]), np.array(truth["dist"]))[0].reshape(-1, 2)
        worst = max(worst, float(np.linalg.norm(true - got, axis=1).max()))
        cv2.polylines(img, [true.round().astype(np.int32).reshape(-1, 1, 2)], True,
                      (255, 255, 255), 5, cv2.LINE_AA)
        colour = (0, 200, 0) if spec.role == "play" else (0, 0, 255)
        cv2.polylines(img, [got.round().astype(np.int32).reshape(-1, 1, 2)], True, colour, 1,
                      cv2.LINE_AA)
    size = {d.zone: d.centre_px for d in table.die_px}
    text(img, f"white: true zones; colour: recovered from {len(table.pose.marker_ids)} markers"
              f" (RMS {table.pose.rms_px:.2f} px); largest zone error {worst:.2f} px", (10, 25),
         0.55, (255, 255, 255), 1)
    text(img, "die 19 mm: " + ", ".join(f"{k} {v:.1f} px" for k, v in size.items()),
         (10, 50), 0.55, (255, 255, 255), 1)
    cv2.imwrite(str(path), img)


@app.command()
def figures(renders: Annotated[Path, typer.Option(help="folder from `render`")],
            camera: Annotated[Path, typer.Option(help="intrinsics JSON recovered")],
            table: Annotated[Path, typer.Option(help="table JSON recovered")],
            out: Annotated[Path, typer.Option(help="folder for the PNGs")]) -> None:
    """Recovered-versus-true figures: calibration-camera.png and calibration-zones.png."""
    truth = json.loads((renders / "truth.json").read_text())
    camera_figure(truth, CameraIntrinsics.load(camera), out / "calibration-camera.png")
    zones_figure(renders, truth, load_json(TableCalibration, table), out / "calibration-zones.png")
    typer.echo(f"-> {out / 'calibration-camera.png'}, {out / 'calibration-zones.png'}")


if __name__ == "__main__":
    app()
