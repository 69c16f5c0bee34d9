"""Procedural textures and lighting parameters for the renderer.

Textures are made in image space from smoothed noise: felt is a fine grain over a slow
variation, so there is no need for texture files or UV mapping.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

FELTS_BGR = {
    "green": (40, 105, 30),
    "blue": (120, 60, 15),
    "red": (35, 30, 130),
    "black": (28, 28, 28),
    "grey": (90, 90, 88),
    "burgundy": (40, 25, 90),
    "white": (215, 218, 220),
}
SHAKER_WALLS_BGR = [(25, 25, 25), (30, 45, 70), (150, 150, 150), (60, 60, 120), (90, 70, 40)]


@dataclass
class Light:
    """Scene lighting.

    Attributes:
        direction: unit vector towards a distant key light, shape (3,).
        position_mm: the lamp position for glare, shape (3,), mm.
        colour: BGR gain of the light, shape (3,), around 1.
        ambient: ambient fraction, 0-1.
        diffuse: diffuse gain, 0-1.5.
        shadow: shadow darkness, 0-1.
        softness: shadow blur as a fraction of the die size, 0-1.
        specular: gain of the highlights, 1; 0 for a lamp behind a polariser crossed with
            one on the lens, which takes its highlights out (`datasets.lamps`).
    """

    direction: np.ndarray
    position_mm: np.ndarray
    colour: np.ndarray
    ambient: float
    diffuse: float
    shadow: float
    softness: float
    specular: float = 1.0


def sample_light(rng: np.random.Generator, centre_mm: np.ndarray) -> Light:
    """Draws a key light above the table: direction, colour temperature, intensity."""
    elev = np.radians(rng.uniform(35, 88))
    az = rng.uniform(0, 2 * np.pi)
    d = np.array([np.cos(elev) * np.cos(az), np.cos(elev) * np.sin(az), np.sin(elev)])
    warm = rng.uniform(-1, 1)
    colour = np.array([1.0 - 0.12 * warm, 1.0, 1.0 + 0.12 * warm]) * rng.uniform(0.75, 1.2)
    return Light(
        d,
        np.asarray(centre_mm) + d * rng.uniform(800, 2000),
        colour,
        rng.uniform(0.3, 0.55),
        rng.uniform(0.5, 0.85),
        rng.uniform(0.35, 0.7),
        rng.uniform(0.15, 0.8),
    )


def noise(shape: tuple[int, int], scale_px: float, rng: np.random.Generator) -> np.ndarray:
    """Smooth noise of unit-ish amplitude, shape `shape` (H, W), float32.

    Args:
        shape: (height, width) in pixels.
        scale_px: feature size in pixels, >= 1.
        rng: random generator.
    """
    h, w = shape
    small = (max(2, int(h / scale_px) + 2), max(2, int(w / scale_px) + 2))
    base = rng.standard_normal(small).astype(np.float32)
    return cv2.resize(base, (w, h), interpolation=cv2.INTER_CUBIC)


_TILE = 512


@lru_cache(maxsize=1)
def _grain_tile() -> np.ndarray:
    # Drawing fresh per-pixel normals for every frame costs more than the rest of the
    # texture; a fixed tile cut at a random offset looks the same and stays seeded.
    return np.random.default_rng(20240607).standard_normal((_TILE, _TILE)).astype(np.float32)


def grain(shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """Per-pixel unit normal noise, shape (H, W) float32, cut from a cached tile."""
    h, w = shape
    oy, ox = rng.integers(0, _TILE, 2)
    # A slice of the tile repeated k times holds the same wrapped values as modular indexing,
    # as a view instead of a gathered copy.
    return _repeated_tile(-(-(max(h, w) + _TILE) // _TILE))[oy:oy + h, ox:ox + w]


@lru_cache(maxsize=4)
def _repeated_tile(k: int) -> np.ndarray:
    return np.tile(_grain_tile(), (k, k))


def surface(
    shape: tuple[int, int],
    bgr,
    rng: np.random.Generator,
    grain_amp: float = 0.06,
    mottle: float = 0.08,
) -> np.ndarray:
    """A felt-like surface: colour with a slow mottle and a per-pixel grain.

    Returns:
        uint8 image, shape (H, W, 3).
    """
    h, w = shape
    shade = noise(shape, max(h, w) / 5, rng) * mottle
    shade += noise(shape, 12, rng) * (0.5 * mottle)
    shade += grain(shape, rng) * grain_amp
    shade += 1.0
    img = cv2.merge([shade * float(c) for c in bgr])
    return cv2.convertScaleAbs(img)


def shade_colour(
    albedo, normal: np.ndarray, light: Light, view: np.ndarray, gloss: float, transmit: float = 0.0
) -> np.ndarray:
    """Lambert plus Blinn-Phong colour of a flat surface, BGR float (3,), 0-255+.

    Args:
        albedo: BGR 0-255.
        normal, view: unit surface normal and unit direction to the camera, shape (3,).
        light: scene light.
        gloss: specular strength 0-1.
        transmit: translucency 0-1; light passing through keeps the face bright whatever
            its normal.
    """
    a = np.asarray(albedo, dtype=np.float64)
    lam = max(0.0, float(normal @ light.direction))
    half = light.direction + view
    half /= np.linalg.norm(half)
    spec = light.specular * gloss * 90.0 * max(0.0, float(normal @ half)) ** 40
    lit = light.ambient + light.diffuse * lam + 0.35 * transmit
    return a * light.colour * lit + spec
