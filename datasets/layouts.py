"""Scene geometry of the three tables, in millimetres, world z up, table surface at z = 0.

- shaker: the open Props & Hops shaker (668a.3(g)), a cylinder standing on the table,
  seen from above with the lid off; its interior floor is the zone.
- throwbox: the High Roll Dice throw box set into the table (675a.1), a rectangular well
  whose floor lies below the table surface; its floor is the zone.
- craps: a stretch of craps layout bounded by the rails, with player chip stacks and the
  bank chips (623a.8(c)(3): a die at rest on the bank chips is a no roll).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

SCENES = ("shaker", "throwbox", "craps")
ZONES = ("shaker", "throw_box", "table", "off", "on_chips")
CHIP_DIAMETER_MM = 39.0
CHIP_THICKNESS_MM = 3.3


@dataclass(frozen=True)
class ChipStack:
    """A stack of casino chips standing on the felt.

    Attributes:
        x_mm, y_mm: centre on the table, mm.
        count: number of chips, 1-30.
        colour_bgr: chip body colour.
        bank: True for the bank chips in front of the boxperson.
    """

    x_mm: float
    y_mm: float
    count: int
    colour_bgr: tuple[int, int, int]
    bank: bool = False

    @property
    def height_mm(self) -> float:
        """Height of the stack, mm."""
        return self.count * CHIP_THICKNESS_MM


@dataclass
class Layout:
    """Geometry of one scene; unused dimensions are zero.

    Attributes:
        scene: one of SCENES.
        radius_mm: shaker inner radius.
        wall_mm: shaker wall thickness.
        floor_mm: height of the zone floor: shaker base thickness (> 0) or minus the
            throw box depth (< 0); 0 for craps.
        height_mm: shaker wall height above its floor, or craps rail height.
        half_x_mm, half_y_mm: half sizes of the throw box opening or of the craps felt.
        chamfer_mm: size of the 45-degree fillet where the zone floor meets its walls (the
            cup's rounded inner corner, the box's padding, the rail's rubber); dice ride up
            on it and come to rest cocked.
        chips: chip stacks (craps only).
    """

    scene: str
    radius_mm: float = 0.0
    wall_mm: float = 0.0
    floor_mm: float = 0.0
    height_mm: float = 0.0
    half_x_mm: float = 0.0
    half_y_mm: float = 0.0
    chamfer_mm: float = 0.0
    chips: list[ChipStack] = field(default_factory=list)

    @property
    def rim_mm(self) -> float:
        """z of the shaker rim, mm."""
        return self.floor_mm + self.height_mm

    def zone_of(self, xyz: np.ndarray, on_chips: ChipStack | None = None) -> str:
        """Names the zone a resting die is in.

        Args:
            xyz: the die centre in mm, shape (3,).
            on_chips: the chip stack the die rests on, if any.

        Returns:
            One of ZONES.
        """
        x, y, z = (float(v) for v in xyz)
        if on_chips is not None:
            return "on_chips"
        if self.scene == "shaker":
            inside = np.hypot(x, y) < self.radius_mm and z < self.rim_mm
            return "shaker" if inside else ("table" if z < self.rim_mm else "off")
        if self.scene == "throwbox":
            inside = abs(x) < self.half_x_mm and abs(y) < self.half_y_mm and z < 0.0
            return "throw_box" if inside else "table"
        on_felt = abs(x) < self.half_x_mm and abs(y) < self.half_y_mm and z < self.height_mm
        return "table" if on_felt else "off"

    def in_zone(self, zone: str, on_chips: ChipStack | None = None) -> bool:
        """True when a die in `zone` counts for the game (668a.3(g), 675a.4(b), 623a.8)."""
        if self.scene == "shaker":
            return zone == "shaker"
        if self.scene == "throwbox":
            return zone == "throw_box"
        # 623a.8(d): touching or resting on player chips is no cause for a no roll;
        # 623a.8(c)(3): resting on the bank chips is.
        return zone == "table" or (
            zone == "on_chips" and on_chips is not None and not on_chips.bank
        )


CHIP_COLOURS = [
    (40, 40, 200),
    (200, 90, 30),
    (40, 140, 40),
    (30, 30, 30),
    (235, 235, 235),
    (150, 50, 140),
    (30, 160, 230),
]


def _sample_chips(rng: np.random.Generator, hx: float, hy: float) -> list[ChipStack]:
    stacks: list[ChipStack] = []
    # Bank chips: a row of tall stacks along the rail opposite the back wall.
    x0 = rng.uniform(-hx * 0.6, hx * 0.1)
    for k in range(int(rng.integers(3, 7))):
        colour = CHIP_COLOURS[int(rng.integers(len(CHIP_COLOURS)))]
        stacks.append(
            ChipStack(
                x0 + k * (CHIP_DIAMETER_MM + 1.0),
                -hy + 30.0,
                int(rng.integers(8, 21)),
                colour,
                bank=True,
            )
        )
    for _ in range(int(rng.integers(2, 9))):
        x, y = rng.uniform(-hx + 60, hx - 60), rng.uniform(-hy + 80, hy - 40)
        if any(np.hypot(x - s.x_mm, y - s.y_mm) < CHIP_DIAMETER_MM + 2 for s in stacks):
            continue
        colour = CHIP_COLOURS[int(rng.integers(len(CHIP_COLOURS)))]
        stacks.append(ChipStack(x, y, int(rng.integers(1, 13)), colour))
    return stacks


def sample_layout(scene: str, rng: np.random.Generator) -> Layout:
    """Draws the geometry of one scene.

    Args:
        scene: one of SCENES.
        rng: random generator of the scene.

    Returns:
        A Layout with dimensions in mm.
    """
    if scene == "shaker":
        return Layout(
            scene,
            radius_mm=rng.uniform(45, 60),
            wall_mm=rng.uniform(3, 7),
            floor_mm=rng.uniform(8, 15),
            height_mm=rng.uniform(60, 95),
            chamfer_mm=rng.uniform(4, 10),
        )
    if scene == "throwbox":
        return Layout(
            scene,
            floor_mm=-rng.uniform(40, 80),
            half_x_mm=rng.uniform(180, 240),
            half_y_mm=rng.uniform(120, 160),
            chamfer_mm=rng.uniform(5, 12),
        )
    if scene == "craps":
        hx, hy = rng.uniform(350, 500), rng.uniform(250, 330)
        return Layout(
            scene,
            height_mm=rng.uniform(80, 120),
            half_x_mm=hx,
            half_y_mm=hy,
            chamfer_mm=rng.uniform(6, 12),
            chips=_sample_chips(rng, hx, hy),
        )
    raise ValueError(f"scene must be one of {SCENES}, got {scene!r}")
