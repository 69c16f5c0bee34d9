"""One synthetic scene end to end: geometry, throw, settle, camera, render, labels.

`make_scene(kind, seed, ...)` depends only on its arguments, so the generator can hand
scenes to any number of worker processes and still produce the same dataset.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import cv2
import numpy as np

from dicecall.datasets.camera import sample_camera
from dicecall.datasets.dice import quat_to_matrix
from dicecall.datasets.effects import canvas_margin, distort, encode_jpeg, finish
from dicecall.datasets.labels import die_label
from dicecall.datasets.layouts import CHIP_DIAMETER_MM, Layout, sample_layout
from dicecall.datasets.painter import Painter
from dicecall.datasets.physics import Sim, build_layout
from dicecall.datasets.placements import STACK_OFFSET, floor_z, force, throw
from dicecall.datasets.render import (
    DieLook,
    Look,
    circle,
    draw_shaker,
    draw_throwbox,
    rect,
)
from dicecall.datasets.render_craps import draw_craps
from dicecall.datasets.schema import SceneRecord
from dicecall.datasets.styles import sample_styles
from dicecall.datasets.textures import (
    FELTS_BGR,
    SHAKER_WALLS_BGR,
    Light,
    sample_light,
    surface,
)

GAME_OF_SCENE = {"shaker": "props-and-hops", "craps": "craps", "throwbox": "high-roll-dice"}
DRAW = {"shaker": draw_shaker, "throwbox": draw_throwbox, "craps": draw_craps}


def scene_seed(seed: int, index: int) -> int:
    """Seed of scene `index` of a dataset with master `seed`, independent of worker count."""
    return int(np.random.SeedSequence([int(seed), int(index)]).generate_state(1)[0])


def _game(kind: str, rng: np.random.Generator) -> tuple[str, int, str]:
    """(game, dice thrown, roll) for a scene; High Roll has ten or six dice and the Extra Roll."""
    if kind != "throwbox":
        return GAME_OF_SCENE[kind], 2, "first"
    game, total = ("high-roll-dice-6", 6) if rng.random() < 0.3 else ("high-roll-dice", 10)
    if rng.random() < 0.25:
        # 675a.3(g): the Extra Roll rethrows only the dice collected, fewer than all.
        return game, int(rng.integers(1, min(8, total - 1) + 1)), "extra"
    return game, total, "first"


def _zones(layout: Layout, cam) -> dict[str, list[list[float]]]:
    """Zone polygons in image pixels (distorted), densely sampled so edges may bend."""

    def poly(pts):
        return np.round(cam.project(pts), 1).tolist()

    def dense_rect(hx, hy, z):
        c = rect(hx, hy, z)
        t = np.linspace(0, 1, 16, endpoint=False)[:, None]
        return np.vstack([c[k] + t * (c[(k + 1) % 4] - c[k]) for k in range(4)])

    if layout.scene == "shaker":
        return {
            "shaker": poly(circle(layout.radius_mm, layout.floor_mm, 48)),
            "shaker_rim": poly(circle(layout.radius_mm, layout.rim_mm, 48)),
        }
    if layout.scene == "throwbox":
        return {
            "throw_box": poly(dense_rect(layout.half_x_mm, layout.half_y_mm, 0.0)),
            "throw_box_floor": poly(
                dense_rect(layout.half_x_mm, layout.half_y_mm, layout.floor_mm)
            ),
        }
    zones = {"table": poly(dense_rect(layout.half_x_mm, layout.half_y_mm, 0.0))}
    bank = [s for s in layout.chips if s.bank]
    if bank:
        # One outline around every bank stack, felt to top, as a calibrator draws the bank
        # (623a.8(c)(3)). The stacks' outlines strung one after another made a polygon that
        # crossed itself, and a die resting on a stack could test as outside it.
        pts = np.vstack(
            [circle(CHIP_DIAMETER_MM / 2, z, 16, s.x_mm, s.y_mm) for s in bank
             for z in (0.0, s.height_mm)]
        )
        hull = cv2.convexHull(np.asarray(cam.project(pts), np.float32)).reshape(-1, 2)
        # Rounded in float64: float32 would write 748.5999755859375 for 748.6.
        zones["bank_chips"] = np.round(hull.astype(np.float64), 1).tolist()
    return zones


def _looks(states, styles, rng: np.random.Generator) -> list[DieLook]:
    looks = []
    for st, style in zip(states, styles, strict=True):
        body = np.clip(np.asarray(style.body_bgr) * rng.normal(1.0, 0.06, 3), 0, 255)
        pip = np.clip(np.asarray(style.pip_bgr) * rng.normal(1.0, 0.04, 3), 0, 255)
        looks.append(
            DieLook(
                st.position_mm,
                quat_to_matrix(st.quat_xyzw),
                style,
                body,
                pip,
                style.pip_radius * rng.uniform(0.85, 1.15),
            )
        )
    return looks


def _look(kind: str, rng: np.random.Generator) -> Look:
    names = list(FELTS_BGR)
    felt = FELTS_BGR[names[int(rng.integers(5))]]  # green, blue, red, black, grey for tables
    floor = FELTS_BGR[names[int(rng.integers(len(names)))]] if kind != "craps" else felt
    wall = SHAKER_WALLS_BGR[int(rng.integers(len(SHAKER_WALLS_BGR)))]
    jitter = rng.normal(1.0, 0.08, 3)
    return Look(
        tuple(np.clip(np.asarray(felt) * jitter, 0, 255)),
        floor,
        wall,
        (235, 235, 235) if rng.random() < 0.8 else (60, 200, 230),
    )


def simulate(sim: Sim, kind: str, rng: np.random.Generator, rare: float = 1.0,
             stack_offset: float = STACK_OFFSET, force_probability: dict | None = None,
             styles: str = "seen"):
    """Builds the table, throws and settles the dice, applies forced placements; `styles`:
    the family the dice are drawn from (`styles.sample_styles`).

    Returns:
        (layout, game, roll, styles, forced placement names, rest states).
    """
    layout = sample_layout(kind, rng)
    game, n, roll = _game(kind, rng)
    styles = sample_styles(rng, n, family=styles)
    sim.reset()
    build_layout(sim, layout)
    for st in styles:
        sim.add_die(st, [0.0, 0.0, 500.0], [0, 0, 0, 1])
    throw(sim, layout, rng)
    sim.settle(4.0)
    forced = force(sim, layout, rng, rare, stack_offset, force_probability)
    if forced:
        sim.settle(3.0)
    return layout, game, roll, styles, forced, sim.states()


def make_scene(
    sim: Sim, kind: str, seed: int, width: int = 640, height: int = 480, rare: float = 1.0,
    stack_offset: float = STACK_OFFSET, force_probability: dict | None = None,
    styles: str = "seen",
) -> tuple[bytes, SceneRecord]:
    """Simulates, renders and labels one scene.

    Args:
        sim: the process's pybullet connection.
        kind: "shaker", "throwbox" or "craps".
        seed: the scene seed (see `scene_seed`).
        width, height: image size in pixels.
        rare: multiplier of the forced placement probabilities (`placements.force`).
        stack_offset: largest offset of a die dropped on another, x its side.
        force_probability: forced placements' probabilities replacing their natural ones
            (`placements.force`).
        styles: the family of the dice: "seen" (training), "unseen" (held out, for judging)
            "random" (procedural styles with the seen ones) or "dark" (procedural dark dice
            with the seen ones; `styles.sample_styles`).

    Returns:
        (JPEG bytes, record with `image` left empty for the caller to name).
    """
    jpeg, rec, _ = make_scene_lit(sim, kind, seed, width, height, rare, stack_offset,
                                  force_probability, styles)
    return jpeg, rec


def make_scene_lit(
    sim: Sim, kind: str, seed: int, width: int = 640, height: int = 480, rare: float = 1.0,
    stack_offset: float = STACK_OFFSET, force_probability: dict | None = None,
    styles: str = "seen", lights: Sequence[Callable[[Light], Light]] = (),
) -> tuple[bytes, SceneRecord, list[bytes]]:
    """`make_scene`, and the same scene rendered again under each of `lights` (each a
    function of the scene's drawn light, `datasets.lamps.lamp_lights`): the same dice,
    camera, felt, exposure and blur, each pass with sensor noise of its own.

    Returns:
        (JPEG bytes, record, one JPEG per light), the first two as `make_scene`'s.
    """
    rng = np.random.default_rng(seed)
    layout, game, roll, styles, forced, states = simulate(sim, kind, rng, rare, stack_offset,
                                                          force_probability, styles)
    pos = np.array([s.position_mm for s in states])
    size = max(st.size_mm for st in styles)
    in_view = pos[np.linalg.norm(pos[:, :2] - pos[:, :2].mean(axis=0), axis=1) < 400]
    if len(in_view) == 0:  # two dice flew to opposite ends of the table: frame them both
        in_view = pos
    spread = float(np.ptp(in_view[:, :2], axis=0).max()) + 3 * size
    target = np.array([*in_view[:, :2].mean(axis=0) + rng.normal(0, size, 2), floor_z(layout)])
    cam, cam_h = sample_camera(rng, target, floor_z(layout), spread, size, width, height)
    light = sample_light(rng, target)
    drawn = rng.bit_generator.state  # every light paints the rest of the scene alike

    def paint(light: Light, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        margin, mx, my = canvas_margin(cam)
        painter = Painter(cam, margin, light)
        look = _look(kind, rng)
        painter.canvas[:] = surface(painter.ids.shape, look.felt, rng)
        DRAW[kind](painter, layout, look, _looks(states, styles, rng), rng)
        return distort((mx, my), painter.canvas, painter.ids)

    img, ids = paint(light, rng)
    jpeg = encode_jpeg(finish(img, rng), rng)
    lit = []
    for k, relight in enumerate(lights):
        again = np.random.default_rng()
        again.bit_generator.state = drawn
        frame, _ = paint(relight(light), again)
        noise = np.random.default_rng([int(seed), k + 1])
        lit.append(encode_jpeg(finish(frame, again, noise_rng=noise), again))
    dice = [die_label(i, st, styles[i], layout, cam, ids) for i, st in enumerate(states)]
    rec = SceneRecord(
        image="",
        width=width,
        height=height,
        game=game,
        scene=kind,
        expected_dice=len(styles),
        dice=dice,
        camera_k=cam.k.tolist(),
        dist=cam.dist.tolist(),
        camera_height_mm=round(cam_h, 1),
        camera_up=cam.rot[:, 2].tolist(),
        zones=_zones(layout, cam),
        seed=int(seed),
        forced=forced,
        source="synthetic",
        roll=roll,
    )
    return jpeg, rec, lit
