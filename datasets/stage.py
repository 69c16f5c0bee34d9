"""A fixed table for frame sequences: one layout, camera, light and dice set for every frame.

`make_scene` draws a new camera per image around where the dice came to rest. A replayed
sequence needs the opposite: the camera, the lamp, the felt and its grain stay put while the
dice move, so that only the dice (and a hand or the shaker lid) change between frames, as
the edge's motion gate expects of a camera on an arm above the table. Every random choice of
the background is re-drawn from the same seed for each frame, which makes the empty table
pixel-identical from frame to frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from dicecall.datasets.camera import Camera, look_down_rotation
from dicecall.datasets.effects import canvas_margin, distort
from dicecall.datasets.layouts import ChipStack, Layout
from dicecall.datasets.painter import Painter
from dicecall.datasets.physics import RAIL_WIDTH_MM
from dicecall.datasets.render import DieLook, Look, circle
from dicecall.datasets.scene import DRAW
from dicecall.datasets.styles import STYLES, DieStyle
from dicecall.datasets.textures import FELTS_BGR, grain, sample_light, surface

CAMERA_HEIGHT_MM = 550.0
SKIN_BGR = (120, 150, 200)


@dataclass
class Stage:
    """Everything about a table that stays fixed during a sequence.

    Attributes:
        kind: "shaker", "throwbox" or "craps".
        layout: geometry in mm.
        camera: the fixed camera.
        view_mm: (x0, y0, x1, y1) of the table area the camera frames, mm.
        held_mm: High Roll holding area (x0, y0, x1, y1) on the felt (675a.4(e)), or None.
        styles: the dice set, one style per die.
        colours: (body BGR, pip BGR, pip radius) per die, fixed for the sequence.
    """

    kind: str
    layout: Layout
    camera: Camera
    view_mm: tuple[float, float, float, float]
    held_mm: tuple[float, float, float, float] | None
    styles: list[DieStyle]
    colours: list[tuple[np.ndarray, np.ndarray, float]]
    look: Look
    light: object
    seed: int
    margin: int = 0
    maps: tuple = field(default=(), repr=False)

    @property
    def surface_z(self) -> float:
        return self.layout.floor_mm if self.kind != "craps" else 0.0


def _layout(kind: str) -> tuple[Layout, tuple, tuple | None]:
    """Fixed geometry per kind, sized so a 19 mm die is about 30 px wide at 640x480."""
    if kind == "shaker":
        lay = Layout("shaker", radius_mm=52.0, wall_mm=5.0, floor_mm=12.0, height_mm=80.0,
                     chamfer_mm=6.0)
        return lay, (-150.0, -112.0, 150.0, 112.0), None
    if kind == "throwbox":
        lay = Layout("throwbox", floor_mm=-50.0, half_x_mm=150.0, half_y_mm=95.0,
                     chamfer_mm=8.0)
        # 675a.4(e): the matched dice go to a box on the throw box layout, here a strip on
        # the felt along the far side of the box.
        return lay, (-170.0, -115.0, 170.0, 160.0), (-120.0, 108.0, 120.0, 150.0)
    hx, hy = 190.0, 135.0
    red, black, green = (40, 40, 200), (30, 30, 30), (40, 140, 40)
    chips = [ChipStack(-120.0 + k * 40.0, -hy + 30.0, 12 + 3 * (k % 2), c, bank=True)
             for k, c in enumerate((red, black, green, red))]
    chips += [ChipStack(60.0, 65.0, 3, red), ChipStack(-140.0, 85.0, 5, green)]
    lay = Layout("craps", height_mm=100.0, half_x_mm=hx, half_y_mm=hy, chamfer_mm=8.0,
                 chips=chips)
    pad = RAIL_WIDTH_MM
    return lay, (-hx - 20.0, -hy - pad, hx + pad, hy + pad), None


def make_stage(kind: str, dice: int, seed: int, width: int = 640, height: int = 480) -> Stage:
    """Builds the fixed table of a sequence.

    Args:
        kind: "shaker", "throwbox" or "craps".
        dice: number of dice in the set (2, or 10 / 6 for High Roll).
        seed: picks the light; everything else is fixed per kind.
        width, height: frame size in pixels.
    """
    layout, view, held = _layout(kind)
    rng = np.random.default_rng(seed)
    x0, y0, x1, y1 = view
    z = layout.floor_mm if kind != "craps" else 0.0
    dist_to = CAMERA_HEIGHT_MM - z
    f = min(width / (x1 - x0), height / (y1 - y0)) * dist_to
    k = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1.0]])
    # Straight down but for a slight lean: image x runs along the table's x axis.
    rot = look_down_rotation(0.0, np.radians(0.5), 0.3)
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2, CAMERA_HEIGHT_MM])
    cam = Camera(k, np.array([-0.04, 0.01, 0.0, 0.0, 0.0]), rot, centre, width, height)
    felt = FELTS_BGR["green"] if kind != "throwbox" else FELTS_BGR["blue"]
    floor = FELTS_BGR["green"] if kind == "craps" else FELTS_BGR["grey"]
    look = Look(felt, floor, (30, 30, 30), (235, 235, 235))
    light = sample_light(rng, centre - np.array([0, 0, CAMERA_HEIGHT_MM]))
    light.softness, light.shadow = 0.3, 0.45
    style = STYLES["casino-red-19"]
    colours = [(np.asarray(style.body_bgr, float), np.asarray(style.pip_bgr, float),
                style.pip_radius)] * dice
    margin, mx, my = canvas_margin(cam)
    return Stage(kind, layout, cam, view, held, [style] * dice, colours, look, light, seed,
                 margin, (mx, my))


def render(stage: Stage, poses: list[tuple[np.ndarray, np.ndarray]], styles=None,
           overlay=None) -> tuple[np.ndarray, np.ndarray]:
    """One frame of the stage with dice at `poses`.

    Args:
        stage: the fixed table.
        poses: (centre (3,) mm, rotation (3, 3)) per die in view.
        styles: the style of each pose (default: the stage's set, in order).
        overlay: optional callable(image) drawing a hand, stick or lid in place.

    Returns:
        (BGR frame (H, W, 3) uint8, id map (H, W) uint8 with die i as i + 1).
    """
    rng = np.random.default_rng(stage.seed)
    p = Painter(stage.camera, stage.margin, stage.light)
    p.canvas[:] = surface(p.ids.shape, stage.look.felt, rng)
    styles = styles or stage.styles
    looks = [DieLook(pos, rot, st, body, pip, pr)
             for (pos, rot), st, (body, pip, pr) in zip(poses, styles, stage.colours,
                                                       strict=False)]
    DRAW[stage.kind](p, stage.layout, stage.look, looks, rng)
    if stage.held_mm is not None:
        _held_box(p, stage)
    img, ids = distort(stage.maps, p.canvas, p.ids)
    if overlay is not None:
        overlay(img)
    return _finish(img, stage.seed), ids


def _held_box(p: Painter, stage: Stage) -> None:
    """Outlines the High Roll holding box on the felt (drawn under nothing: dice sit on it)."""
    x0, y0, x1, y1 = stage.held_mm
    pts = np.array([[x0, y0, 0.2], [x1, y0, 0.2], [x1, y1, 0.2], [x0, y1, 0.2]])
    poly = np.round(p.px(pts) * 16).astype(np.int32)
    cv2.polylines(p.canvas, [poly], True, stage.look.print_bgr, 2, cv2.LINE_AA, 4)


def _finish(img: np.ndarray, seed: int) -> np.ndarray:
    """Fixed vignetting and sensor grain, the same pattern in every frame of the sequence."""
    h, w = img.shape[:2]
    yy, xx = np.ogrid[:h, :w]
    r2 = ((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2
    out = img.astype(np.float32) * (1.0 - 0.08 * r2).astype(np.float32)[..., None]
    out += grain((h, w), np.random.default_rng(seed + 1))[..., None] * 1.5
    # The lens and the ISP's denoiser soften the felt's grain; this also keeps the bundled
    # JPEGs small (a third smaller at the same quality).
    return cv2.GaussianBlur(cv2.convertScaleAbs(out), (0, 0), 0.7)


def arm(img: np.ndarray, tip: tuple[float, float], edge: str, width: float,
        colour=SKIN_BGR, thing: float | None = None) -> None:
    """Draws a dealer's arm (or the stick) from a frame edge to `tip`, pixels, in place.

    Args:
        thing: radius of a disc held at the tip (a palm or the shaker lid), pixels.
    """
    h, w = img.shape[:2]
    start = {"bottom": (tip[0], h + width), "right": (w + width, tip[1]),
             "top": (tip[0], -width), "left": (-width, tip[1])}[edge]
    a = tuple(round(v) for v in start)
    b = tuple(round(v) for v in tip)
    cv2.line(img, a, b, colour, int(width), cv2.LINE_AA)
    if thing:
        cv2.circle(img, b, int(thing), colour, -1, cv2.LINE_AA)


def lid(img: np.ndarray, stage: Stage, offset_px=(0.0, 0.0)) -> None:
    """Draws the Props & Hops shaker lid on the cup, with the dealer's arm holding it."""
    lay = stage.layout
    ring = stage.camera.project(circle(lay.radius_mm + lay.wall_mm + 3, lay.rim_mm + 8, 48))
    ring = ring + np.asarray(offset_px)
    cv2.fillPoly(img, [np.round(ring * 16).astype(np.int32)], (70, 70, 70), cv2.LINE_AA, 4)
    c = ring.mean(axis=0)
    arm(img, (c[0], c[1]), "bottom", 0.45 * float(np.ptp(ring[:, 0])), thing=None)
