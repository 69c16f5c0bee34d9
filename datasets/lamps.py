"""The lights of a scene rendered again under the lamps the camera switches (`vision.lamps`).

Each scene keeps its own draws (dice, felt, camera, exposure, blur); only the light changes:
a dim ambient alone (every lamp off), then the ambient and one white lamp from each of the
rig's three directions. Each frame has its own sensor noise. The lamps are dim enough that
a white die (235) stays under 255 with the ambient. With `polarised`, the lamps' frames have
no highlights, as crossed polarisers on the lamps and the lens take them out (a highlight
keeps the lamp's polarisation).

The renderer shades each face flat (Lambert plus a Blinn-Phong highlight, a constant for
translucency): no rounded edges or drilled pips, no light scattered inside a translucent
die, none off the shaker's wall, and each lamp lights every die from one direction. So a
figure read from these frames bounds what lamps could give; a table's own footage says what
they do give (`docs/verdicts.md`, "Lamps the camera switches").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from dicecall.datasets.textures import Light
from dicecall.vision.lamps import LampRig

# The lamps' gain and the light that is not theirs (the same in all four frames): the edge
# sets the lamp frames' exposure so that no die clips, and a lamp close over the shaker
# outshines the room three times. At session 50's 0.6 and 0.25, a red translucent die's red
# channel clipped in 12 % of the flat dice of seed 5603 (`vision.lamps.CLIPPED`).
LAMP_DIFFUSE = 0.45
LAMP_AMBIENT = 0.15


def lamp_lights(rig: LampRig, polarised: bool) -> list[Callable[[Light], Light]]:
    """Four functions from the scene's drawn light to each lamp frame's: every lamp off,
    then lamp 1, 2 and 3 alone, in `rig`'s order. The drawn light's shadows and glare stay
    (its position and softness), so the frames differ only where the lamps do."""
    dirs = rig.directions()
    passes = [(dirs[0], 0.0)] + [(d, LAMP_DIFFUSE) for d in dirs]

    def one(direction: np.ndarray, diffuse: float) -> Callable[[Light], Light]:
        return lambda drawn: dataclasses.replace(
            drawn, direction=direction, diffuse=diffuse, ambient=LAMP_AMBIENT,
            colour=np.ones(3), specular=0.0 if polarised else drawn.specular)

    return [one(d, g) for d, g in passes]
