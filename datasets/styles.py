"""Die styles: size, edge rounding, material and colours.

Casino dice are 19 mm (3/4 inch) cubes of translucent cellulose acetate (about 1.3 g/cm3)
with razor-sharp or barely rounded edges and flush white pips. The other styles are the
common opaque 16 mm and 12 mm dice with rounded corners and drilled pips, so the reader
also sees dice it will meet in the held-out real set (DESIGN.md, Targets).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BGR = tuple[int, int, int]


@dataclass(frozen=True)
class DieStyle:
    """One kind of die.

    Attributes:
        name: stable identifier written into the labels.
        size_mm: edge length in millimetres, 8-30.
        rounding: edge radius as a fraction of the edge, 0 (sharp) to 0.25.
        body_bgr: body colour, BGR 0-255.
        pip_bgr: pip colour, BGR 0-255.
        translucency: 0 opaque to 1 clear; light passing through brightens thin parts.
        pip_radius: pip radius as a fraction of the edge, 0.04-0.12.
        pip_spread: outer pip offset as a fraction of the half edge, 0.3-0.75.
        density_g_cm3: material density for the physics.
        friction: Coulomb friction coefficient against felt.
        restitution: bounciness, 0-1.
        gloss: specular strength 0-1 (polished acetate is glossy).
        casino: True for casino-grade dice.
    """

    name: str
    size_mm: float
    rounding: float
    body_bgr: BGR
    pip_bgr: BGR
    translucency: float = 0.0
    pip_radius: float = 0.085
    pip_spread: float = 0.55
    density_g_cm3: float = 1.3
    friction: float = 0.5
    restitution: float = 0.4
    gloss: float = 0.5
    casino: bool = False

    def __post_init__(self) -> None:
        checks = [
            ("size_mm", 8.0 <= self.size_mm <= 30.0),
            ("rounding", 0.0 <= self.rounding <= 0.25),
            ("translucency", 0.0 <= self.translucency <= 1.0),
            ("pip_radius", 0.04 <= self.pip_radius <= 0.12),
            ("pip_spread", 0.3 <= self.pip_spread <= 0.75),
            ("density_g_cm3", 0.5 <= self.density_g_cm3 <= 3.0),
            ("restitution", 0.0 <= self.restitution <= 1.0),
            ("gloss", 0.0 <= self.gloss <= 1.0),
        ]
        for field, ok in checks:
            if not ok:
                raise ValueError(
                    f"DieStyle {self.name!r}: {field}={getattr(self, field)} out of bounds"
                )

    @property
    def mass_g(self) -> float:
        """Mass in grams from the density and the cube volume."""
        return self.density_g_cm3 * (self.size_mm / 10.0) ** 3


def _casino(name: str, body: BGR, rounding: float = 0.0) -> DieStyle:
    return DieStyle(
        name,
        19.0,
        rounding,
        body,
        (245, 245, 245),
        translucency=0.7,
        pip_radius=0.075,
        pip_spread=0.56,
        friction=0.5,
        restitution=0.45,
        gloss=0.8,
        casino=True,
    )


STYLES: dict[str, DieStyle] = {
    s.name: s
    for s in (
        _casino("casino-red-19", (30, 20, 200)),
        _casino("casino-red-19-rounded", (35, 25, 190), rounding=0.03),
        _casino("casino-green-19", (70, 140, 20)),
        _casino("casino-blue-19", (180, 70, 20)),
        _casino("casino-purple-19", (130, 30, 110)),
        DieStyle(
            "white-16",
            16.0,
            0.14,
            (232, 236, 238),
            (25, 25, 25),
            pip_radius=0.095,
            density_g_cm3=1.2,
            gloss=0.3,
        ),
        DieStyle(
            "ivory-16-red-one",
            16.0,
            0.12,
            (200, 228, 240),
            (30, 30, 40),
            pip_radius=0.1,
            density_g_cm3=1.2,
            gloss=0.35,
        ),
        DieStyle(
            "black-16",
            16.0,
            0.14,
            (30, 28, 28),
            (240, 240, 240),
            pip_radius=0.095,
            density_g_cm3=1.2,
            gloss=0.45,
        ),
        DieStyle(
            "yellow-16",
            16.0,
            0.15,
            (40, 200, 235),
            (30, 30, 30),
            pip_radius=0.1,
            density_g_cm3=1.2,
            gloss=0.3,
        ),
        DieStyle(
            "blue-16",
            16.0,
            0.15,
            (160, 80, 30),
            (245, 245, 245),
            pip_radius=0.1,
            density_g_cm3=1.2,
            gloss=0.3,
        ),
        DieStyle(
            "green-16-translucent",
            16.0,
            0.1,
            (60, 150, 30),
            (240, 240, 240),
            translucency=0.5,
            pip_radius=0.09,
            density_g_cm3=1.2,
            gloss=0.6,
        ),
        DieStyle(
            "white-12",
            12.0,
            0.18,
            (225, 230, 232),
            (20, 20, 20),
            pip_radius=0.1,
            pip_spread=0.5,
            density_g_cm3=1.2,
            gloss=0.25,
        ),
        DieStyle(
            "red-opaque-16",
            16.0,
            0.13,
            (40, 40, 190),
            (245, 245, 245),
            pip_radius=0.095,
            density_g_cm3=1.2,
            gloss=0.4,
        ),
    )
}

CASINO_STYLES = [s for s in STYLES.values() if s.casino]
OTHER_STYLES = [s for s in STYLES.values() if not s.casino]

# Styles no training set has drawn (`sample_styles` never picks them unless asked): the
# held-out real set is "of dice styles not seen here" (DESIGN.md, Targets), so the reader is
# also judged on synthetic dice of colours, sizes and pip layouts it has never met. Each
# differs from every style above in its body or its pip colour (a test checks it), most in
# size or pip layout too. Some are near a hue turn of a seen style (orange with black pips,
# of yellow-16), which the training's colour augmentation covers; the coloured pips (gold,
# red) are what no training style or augmentation gives.
UNSEEN_STYLES: dict[str, DieStyle] = {
    s.name: s
    for s in (
        DieStyle("orange-18-black", 18.0, 0.08, (20, 120, 240), (20, 20, 20),
                 pip_radius=0.08, gloss=0.4),
        DieStyle("white-19-red-pips", 19.0, 0.02, (238, 240, 242), (40, 30, 190),
                 pip_radius=0.07, pip_spread=0.6, gloss=0.5),
        DieStyle("black-16-gold", 16.0, 0.14, (25, 22, 22), (40, 170, 215),
                 pip_radius=0.09, gloss=0.5),
        DieStyle("smoke-19-translucent", 19.0, 0.0, (70, 70, 75), (245, 245, 245),
                 translucency=0.6, pip_radius=0.07, pip_spread=0.58, gloss=0.8),
        DieStyle("wood-20-rounded", 20.0, 0.22, (80, 140, 190), (20, 40, 70),
                 pip_radius=0.11, pip_spread=0.48, density_g_cm3=0.7, gloss=0.15),
        DieStyle("pink-14-white", 14.0, 0.16, (180, 120, 240), (250, 250, 250),
                 pip_radius=0.1, pip_spread=0.52, density_g_cm3=1.2, gloss=0.3),
        DieStyle("navy-22-small-pips", 22.0, 0.1, (90, 30, 20), (235, 235, 235),
                 pip_radius=0.055, pip_spread=0.68, density_g_cm3=1.2, gloss=0.45),
        DieStyle("yellow-19-translucent", 19.0, 0.0, (40, 210, 240), (250, 250, 250),
                 translucency=0.7, pip_radius=0.075, pip_spread=0.56, gloss=0.8, casino=True),
    )
}


FAMILIES = ("seen", "unseen", "random", "dark")
# A procedural style whose body and pip colours both lie this close (largest channel
# difference, BGR 0-255) to a held-out style's is drawn again, so training on the random
# family leaves the held-out styles a judge of dice not trained on.
HELD_OUT_MARGIN = 60.0
# A procedural die's pips and body lie at least this far apart in mean brightness (0-255), as
# a die's pips must to be read at all.
PIP_CONTRAST = 60.0
# A dark procedural die: every body channel at most this (BGR 0-255), its pips at least
# `DARK_PIP_CONTRAST` brighter in mean. A uniform colour is this dark about one time in
# 48, and the runtime without a game found and read the seen black die
# (black-16) in the shaker 92.8 % right and black with gold pips 81.3 % (session 49).
DARK_BODY_MAX = 70.0
DARK_PIP_CONTRAST = 90.0


def _colour(rng: np.random.Generator) -> np.ndarray:
    return rng.uniform(0, 255, 3)


def _near_held_out(body: np.ndarray, pip: np.ndarray) -> bool:
    return any(np.abs(body - u.body_bgr).max() < HELD_OUT_MARGIN
               and np.abs(pip - u.pip_bgr).max() < HELD_OUT_MARGIN
               for u in UNSEEN_STYLES.values())


def random_style(rng: np.random.Generator) -> DieStyle:
    """A procedural die: any body colour, pips of any colour at least `PIP_CONTRAST` apart in
    mean brightness from it, any size 12-22 mm, rounding, translucency and pip layout. Every
    named style has white or black pips; real dice also come with gold, red or green ones
    (models/reader.md, session 30)."""
    while True:
        body, pip = _colour(rng), _colour(rng)
        if abs(body.mean() - pip.mean()) >= PIP_CONTRAST and not _near_held_out(body, pip):
            break
    clear = rng.random() < 0.3
    return DieStyle(
        "random", float(rng.uniform(12, 22)), float(rng.uniform(0, 0.2)),
        tuple(int(v) for v in body), tuple(int(v) for v in pip),
        translucency=float(rng.uniform(0.3, 0.8)) if clear else 0.0,
        pip_radius=float(rng.uniform(0.055, 0.11)), pip_spread=float(rng.uniform(0.45, 0.68)),
        density_g_cm3=1.2, gloss=float(rng.uniform(0.15, 0.8)))


def dark_style(rng: np.random.Generator) -> DieStyle:
    """A procedural dark die: a near-black body of any tint with bright pips of any colour
    `_near_held_out` allows. Gold, orange and yellow pips on black and near-white ones (the
    smoke die's) stay held out, so black with gold pips still judges a die never trained on;
    what is learnt is a dark die whose pips are the brightest thing in it."""
    while True:
        body = rng.uniform(0, DARK_BODY_MAX, 3)
        pip = _colour(rng)
        if pip.mean() - body.mean() >= DARK_PIP_CONTRAST and not _near_held_out(body, pip):
            break
    return DieStyle(
        "dark", float(rng.uniform(12, 22)), float(rng.uniform(0, 0.2)),
        tuple(int(v) for v in body), tuple(int(v) for v in pip),
        translucency=float(rng.uniform(0.3, 0.6)) if rng.random() < 0.1 else 0.0,
        pip_radius=float(rng.uniform(0.06, 0.11)), pip_spread=float(rng.uniform(0.45, 0.68)),
        density_g_cm3=1.2, gloss=float(rng.uniform(0.2, 0.8)))


def sample_styles(
    rng: np.random.Generator, count: int, casino_share: float = 0.65, family: str = "seen"
) -> list[DieStyle]:
    """Picks the dice for one scene: usually one matched set, sometimes mixed styles.

    Args:
        rng: random generator of the scene.
        count: number of dice, >= 1.
        casino_share: probability that the set is casino dice, 0-1.
        family: "seen", the named training styles; "unseen", `UNSEEN_STYLES` only, every
            style alike (a judging set); "random", half the scenes a procedural style
            (`random_style`, a training set for dice of any colour), half as "seen"; "dark",
            half the scenes a procedural dark die (`dark_style`), half as "seen".

    Returns:
        `count` styles; casino red dominates because it is what the tables use.
    """
    if count < 1:
        raise ValueError(f"count must be >= 1, got {count}")
    if family not in FAMILIES:
        raise ValueError(f"style family {family!r}: one of {FAMILIES}")
    if family == "unseen":
        pool = list(UNSEEN_STYLES.values())
        if rng.random() < 0.15:
            return [pool[i] for i in rng.integers(len(pool), size=count)]
        return [pool[int(rng.integers(len(pool)))]] * count
    if family == "random" and rng.random() < 0.5:
        return [random_style(rng)] * count
    if family == "dark" and rng.random() < 0.5:
        return [dark_style(rng)] * count
    if rng.random() < casino_share:
        red = STYLES["casino-red-19"] if rng.random() < 0.7 else STYLES["casino-red-19-rounded"]
        base = red if rng.random() < 0.7 else CASINO_STYLES[rng.integers(len(CASINO_STYLES))]
    else:
        base = OTHER_STYLES[rng.integers(len(OTHER_STYLES))]
    if rng.random() < 0.15:
        pool = list(STYLES.values())
        return [pool[i] for i in rng.integers(len(pool), size=count)]
    return [base] * count
