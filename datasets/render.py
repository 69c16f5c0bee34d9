"""Renders a settled scene: table, shaker or throw box or rails, chips, shadows, dice.

Each scene is drawn back to front (painter's algorithm). What lies inside the shaker or the
throw box is drawn on a second canvas and shows only through the projected opening (the
shaker's inner rim, the box's mouth), which gives the correct occlusion by the near wall
without a depth buffer. The canvas is then warped by the lens distortion and degraded like
a real frame (see `effects.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from dicecall.datasets.dice import cube_corners
from dicecall.datasets.layouts import Layout
from dicecall.datasets.painter import Painter
from dicecall.datasets.styles import DieStyle
from dicecall.datasets.textures import Light, shade_colour, surface


@dataclass
class DieLook:
    """How one die is drawn: its pose (centre (3,) mm, rotation (3, 3)), style, colours."""

    pos: np.ndarray
    rot: np.ndarray
    style: DieStyle
    body_bgr: np.ndarray
    pip_bgr: np.ndarray
    pip_radius: float


@dataclass
class Look:
    """Colours of the scene surfaces, BGR."""

    felt: tuple
    floor: tuple
    wall: tuple
    print_bgr: tuple


def circle(r: float, z: float, n: int = 64, cx: float = 0.0, cy: float = 0.0) -> np.ndarray:
    """Points (n, 3) on a horizontal circle, mm."""
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.stack([cx + r * np.cos(a), cy + r * np.sin(a), np.full(n, z)], axis=1)


def rect(hx: float, hy: float, z: float) -> np.ndarray:
    """Corners (4, 3) of a horizontal rectangle centred on the origin, mm."""
    return np.array([[-hx, -hy, z], [hx, -hy, z], [hx, hy, z], [-hx, hy, z]], dtype=float)


def _roi(mask: np.ndarray, pad: int) -> tuple[slice, slice] | None:
    """Bounding slices of the non-zero part of `mask`, grown by `pad` pixels, or None."""
    x, y, w, h = cv2.boundingRect(mask)
    if w == 0 or h == 0:
        return None
    H, W = mask.shape
    return slice(max(0, y - pad), min(H, y + h + pad)), slice(max(0, x - pad), min(W, x + w + pad))


def _darken(p: Painter, image: np.ndarray, mask: np.ndarray, dark_px: float) -> None:
    """Multiplies `image` by (1 - blurred mask), in place; the blur makes the penumbra."""
    k = max(1, int(dark_px)) | 1
    roi = _roi(mask, k)
    if roi is None:
        return
    m = mask[roi]
    if k > 1:
        m = cv2.GaussianBlur(m, (k, k), 0)
    inv = cv2.merge([255 - m] * 3)
    image[roi] = cv2.multiply(image[roi], inv, scale=1.0 / 255.0)


def _quads(
    p: Painter,
    ring_a: np.ndarray,
    ring_b: np.ndarray,
    inward: bool,
    albedo,
    light: Light,
    image: np.ndarray | None = None,
) -> None:
    """Draws the front-facing quads between two matching point rings (a cylinder or box wall)."""
    n = len(ring_a)
    centre = ring_a.mean(axis=0)
    for k in range(n):
        quad = np.array([ring_a[k], ring_a[(k + 1) % n], ring_b[(k + 1) % n], ring_b[k]])
        mid = quad.mean(axis=0)
        normal = np.array([mid[0] - centre[0], mid[1] - centre[1], 0.0])
        normal /= np.linalg.norm(normal) + 1e-9
        if inward:
            normal = -normal
        view = p.view_dir(mid)
        if normal @ view > 0:
            p.fill(quad, shade_colour(albedo, normal, light, view, 0.1), 0, image)


def _dice(p: Painter, looks: list[DieLook], order: list[int]) -> None:
    """Draws dice far to near as seen from the camera."""
    order = sorted(order, key=lambda i: -np.linalg.norm(looks[i].pos - p.camera.centre_mm))
    for i in order:
        d = looks[i]
        p.die(i + 1, d.pos, d.rot, d.style, d.body_bgr, d.pip_bgr, d.pip_radius)


def _die_casters(looks: list[DieLook], idx: list[int]) -> list[tuple[np.ndarray, float]]:
    out = []
    for i in idx:
        d = looks[i]
        corners = d.pos + cube_corners(d.style.size_mm) @ d.rot.T
        out.append((corners, 1.0 - 0.5 * d.style.translucency))
    return out


def _shadow_px(p: Painter, looks: list[DieLook]) -> float:
    """Penumbra width in canvas pixels from the light softness and the die size on screen."""
    if not looks:
        return 3.0
    a, b = p.px(np.array([looks[0].pos, looks[0].pos + np.array([looks[0].style.size_mm, 0, 0])]))
    return 1.0 + p.light.softness * 0.5 * float(np.linalg.norm(b - a))


def _through(p: Painter, inner: Painter, opening_mm: np.ndarray) -> None:
    """Shows the `inner` canvas (the inside of the shaker or box) through the opening."""
    mask = np.zeros(p.ids.shape, np.uint8)
    poly = np.round(p.px(opening_mm) * 16).astype(np.int32)
    cv2.fillPoly(mask, [poly], 255, cv2.LINE_AA, 4)
    roi = _roi(mask, 1)
    if roi is None:
        return
    m = mask[roi]
    a = cv2.merge([m] * 3)
    blend = cv2.add(
        cv2.multiply(inner.canvas[roi], a, scale=1 / 255.0),
        cv2.multiply(p.canvas[roi], 255 - a, scale=1 / 255.0),
    )
    p.canvas[roi] = blend
    p.ids[roi] = np.where(m > 127, inner.ids[roi], p.ids[roi])


def _interior(
    p: Painter,
    inner: Painter,
    floor_mm: np.ndarray,
    top_mm: np.ndarray,
    chamfer_mm: np.ndarray,
    look: Look,
    looks,
    inside,
    rng,
) -> None:
    """Draws a zone's floor, far walls, fillet, shadows and dice on `inner`."""
    mask = np.zeros(inner.ids.shape, np.uint8)
    cv2.fillPoly(mask, [np.round(inner.px(floor_mm) * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    roi = _roi(mask, 1)
    if roi is not None:
        tex = surface(mask[roi].shape, look.floor, rng)
        inner.canvas[roi] = np.where(mask[roi][..., None] > 127, tex, inner.canvas[roi])
    _quads(inner, chamfer_mm, floor_mm, True, np.asarray(look.floor) * 0.9, p.light)
    _quads(inner, top_mm, chamfer_mm, True, look.wall, p.light)
    z = float(floor_mm[0, 2])
    # Light enters through the opening: the floor outside its cast outline is in shadow.
    lit = np.zeros(inner.ids.shape, np.uint8)
    cv2.fillPoly(
        lit,
        [np.round(inner.px(top_mm) * 16).astype(np.int32)],
        int(255 * p.light.shadow),
        cv2.LINE_AA,
        4,
    )
    d = p.light.direction
    cast = top_mm - d * ((top_mm[:, 2] - z) / max(d[2], 0.2))[:, None]
    cv2.fillPoly(lit, [np.round(inner.px(cast) * 16).astype(np.int32)], 0, cv2.LINE_AA, 4)
    shadow = np.maximum(lit, inner.shadow_mask(_die_casters(looks, inside), z))
    _darken(inner, inner.canvas, shadow, _shadow_px(p, looks))
    _dice(inner, looks, inside)


def draw_shaker(
    p: Painter, layout: Layout, look: Look, looks: list[DieLook], rng: np.random.Generator
) -> None:
    """The open Props & Hops shaker standing on the table, seen from above (668a.3(g))."""
    r, w, f, top = layout.radius_mm, layout.wall_mm, layout.floor_mm, layout.rim_mm
    inside = [i for i, d in enumerate(looks) if np.hypot(*d.pos[:2]) < r and d.pos[2] < top]
    outside = [i for i in range(len(looks)) if i not in inside]
    cam = p.camera.centre_mm[:2]
    far = [i for i in outside if np.linalg.norm(looks[i].pos[:2] - cam) > np.linalg.norm(cam)]
    casters = [(np.vstack([circle(r + w, 0, 32), circle(r + w, top, 32)]), 1.0)]
    casters += _die_casters(looks, outside)
    _darken(p, p.canvas, p.shadow_mask(casters, 0.0), _shadow_px(p, looks) * 2)
    _dice(p, looks, far)
    _quads(p, circle(r + w, top), circle(r + w, 0), False, look.wall, p.light)
    ring_out, ring_in = circle(r + w, top), circle(r, top)
    for k in range(len(ring_out)):
        quad = np.array([ring_out[k], ring_out[(k + 1) % 64], ring_in[(k + 1) % 64], ring_in[k]])
        p.fill(
            quad, shade_colour(look.wall, np.array([0, 0, 1.0]), p.light, p.view_dir(quad[0]), 0.3)
        )
    inner = Painter(p.camera, p.margin, p.light)
    c = layout.chamfer_mm
    _interior(
        p, inner, circle(r - c, f), circle(r, top), circle(r, f + c), look, looks, inside, rng
    )
    _through(p, inner, circle(r, top))
    _dice(p, looks, [i for i in outside if i not in far])


def draw_throwbox(
    p: Painter, layout: Layout, look: Look, looks: list[DieLook], rng: np.random.Generator
) -> None:
    """The High Roll Dice throw box set into the table (675a.1)."""
    hx, hy, f, c = layout.half_x_mm, layout.half_y_mm, layout.floor_mm, layout.chamfer_mm
    inside = [
        i for i, d in enumerate(looks) if abs(d.pos[0]) < hx and abs(d.pos[1]) < hy and d.pos[2] < 0
    ]
    outside = [i for i in range(len(looks)) if i not in inside]
    _darken(p, p.canvas, p.shadow_mask(_die_casters(looks, outside), 0.0), _shadow_px(p, looks))
    inner = Painter(p.camera, p.margin, p.light)
    _interior(
        p,
        inner,
        rect(hx - c, hy - c, f),
        rect(hx, hy, 0.0),
        rect(hx, hy, f + c),
        look,
        looks,
        inside,
        rng,
    )
    _through(p, inner, rect(hx, hy, 0.0))
    _dice(p, looks, outside)
