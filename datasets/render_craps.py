"""Renders the craps layout: printed lines, the rails, chip stacks and the dice among them.

Chips and dice are drawn far to near from the camera (painter's algorithm); the rails come
first since nothing on the felt can hide behind their inner side from a camera above it.
"""

from __future__ import annotations

import cv2
import numpy as np

from dicecall.datasets.layouts import CHIP_DIAMETER_MM, Layout
from dicecall.datasets.painter import Painter
from dicecall.datasets.physics import RAIL_WIDTH_MM
from dicecall.datasets.render import (
    DieLook,
    Look,
    _darken,
    _dice,
    _die_casters,
    _quads,
    _shadow_px,
    circle,
    rect,
)
from dicecall.datasets.textures import Light, shade_colour


def _chips(p: Painter, stack, light: Light) -> None:
    """One chip stack: lit side with a line between chips, then the top with its inlay."""
    r, h = CHIP_DIAMETER_MM / 2, stack.height_mm
    _quads(
        p,
        circle(r, h, 24, stack.x_mm, stack.y_mm),
        circle(r, 0, 24, stack.x_mm, stack.y_mm),
        False,
        stack.colour_bgr,
        light,
    )
    dark = tuple(0.5 * np.asarray(stack.colour_bgr))
    lines = [
        np.round(p.px(circle(r, k * h / stack.count, 24, stack.x_mm, stack.y_mm)) * 16).astype(
            np.int32
        )
        for k in range(1, stack.count)
    ]
    cv2.polylines(p.canvas, lines, True, dark, 1, cv2.LINE_AA, 4)
    up, view = np.array([0, 0, 1.0]), p.view_dir(np.array([stack.x_mm, stack.y_mm, h]))
    p.fill(
        circle(r, h, 32, stack.x_mm, stack.y_mm),
        shade_colour(stack.colour_bgr, up, light, view, 0.2),
    )
    p.fill(
        circle(r * 0.7, h, 32, stack.x_mm, stack.y_mm),
        shade_colour((225, 225, 225), up, light, view, 0.2),
    )
    p.fill(
        circle(r * 0.6, h, 32, stack.x_mm, stack.y_mm),
        shade_colour(stack.colour_bgr, up, light, view, 0.2),
    )


def draw_craps(
    p: Painter, layout: Layout, look: Look, looks: list[DieLook], rng: np.random.Generator
) -> None:
    """A stretch of craps layout: printed lines, rails, chip stacks and the dice."""
    hx, hy, rh = layout.half_x_mm, layout.half_y_mm, layout.height_mm
    for y in rng.uniform(-hy, hy, 3):
        pts = np.array([[-hx, y, 0.1], [hx, y, 0.1]])
        cv2.polylines(
            p.canvas,
            [np.round(p.px(pts) * 16).astype(np.int32)],
            False,
            look.print_bgr,
            3,
            cv2.LINE_AA,
            4,
        )
    arc = circle(rng.uniform(150, 400), 0.1, 96, rng.uniform(-hx, hx), -hy)
    cv2.polylines(
        p.canvas,
        [np.round(p.px(arc) * 16).astype(np.int32)],
        True,
        look.print_bgr,
        3,
        cv2.LINE_AA,
        4,
    )
    casters = _die_casters(looks, list(range(len(looks))))
    casters += [
        (
            np.vstack(
                [circle(CHIP_DIAMETER_MM / 2, z, 16, s.x_mm, s.y_mm) for z in (0, s.height_mm)]
            ),
            1.0,
        )
        for s in layout.chips
    ]
    _darken(p, p.canvas, p.shadow_mask(casters, 0.0), _shadow_px(p, looks))
    rw = RAIL_WIDTH_MM
    inner_ring, outer_ring = rect(hx, hy, rh), rect(hx + rw, hy + rw, rh)
    _quads(p, inner_ring, rect(hx, hy, 0.0), True, look.wall, p.light)
    for k in range(4):
        quad = np.array(
            [inner_ring[k], inner_ring[(k + 1) % 4], outer_ring[(k + 1) % 4], outer_ring[k]]
        )
        p.fill(
            quad, shade_colour(look.wall, np.array([0, 0, 1.0]), p.light, p.view_dir(quad[0]), 0.4)
        )
    items = [
        ("chip", k, np.array([s.x_mm, s.y_mm, s.height_mm / 2])) for k, s in enumerate(layout.chips)
    ]
    items += [("die", i, d.pos) for i, d in enumerate(looks)]
    items.sort(key=lambda it: -np.linalg.norm(it[2] - p.camera.centre_mm))
    for kind, k, _ in items:
        if kind == "chip":
            _chips(p, layout.chips[k], p.light)
        else:
            _dice(p, looks, [k])
