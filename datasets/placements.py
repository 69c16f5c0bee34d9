"""Throwing the dice and forcing the rare rest poses.

Natural throws rarely leave a die on another die, cocked, or out of the zone, yet those are
exactly the no-roll cases (623a.8(b), 623a.9(b), 668a.3(g)(h), 675a.4(b)(c)). After the
natural throw settles, each forced placement teleports one die into a starting pose that
leads there (on top of another die, leaning on a wall, a chip stack or a die, outside the
zone) and the physics settles it again. The labels are always read back from the physics,
never from the intent, so a forced die that slides off is labelled as it ends up.
"""

from __future__ import annotations

import numpy as np

from dicecall.datasets.dice import cube_corners, quat_to_matrix
from dicecall.datasets.layouts import CHIP_DIAMETER_MM, Layout
from dicecall.datasets.physics import RAIL_WIDTH_MM, Sim

#: Probability per scene of each forced placement; tuned so each case is >= 10-15 %.
FORCE_PROBABILITY = {"stack": 0.22, "touch": 0.1, "lean": 0.3, "out": 0.2}


def matrix_to_quat(r: np.ndarray) -> np.ndarray:
    """Rotation matrix (3, 3) to quaternion xyzw (4,), Shepperd's method."""
    t = np.trace(r)
    if t > 0:
        s = 2.0 * np.sqrt(t + 1.0)
        q = [(r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s, s / 4]
    else:
        i = int(np.argmax(np.diag(r)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * np.sqrt(1.0 + r[i, i] - r[j, j] - r[k, k])
        q = [0.0, 0.0, 0.0, (r[k, j] - r[j, k]) / s]
        q[i], q[j], q[k] = s / 4, (r[j, i] + r[i, j]) / s, (r[k, i] + r[i, k]) / s
    q = np.array(q)
    return q / np.linalg.norm(q)


def _axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    a = axis / np.linalg.norm(axis)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * (k @ k)


def flat_rotation(rng: np.random.Generator, yaw: float | None = None) -> np.ndarray:
    """A random rotation (3, 3) that leaves one random face exactly up, then a yaw."""
    axes = rng.permutation(3)
    r = np.zeros((3, 3))
    r[np.arange(3), axes] = rng.choice([-1.0, 1.0], size=3)
    if np.linalg.det(r) < 0:
        r[0] *= -1
    yaw = rng.uniform(0, 2 * np.pi) if yaw is None else yaw
    return _axis_angle(np.array([0.0, 0.0, 1.0]), yaw) @ r


def random_quat(rng: np.random.Generator) -> np.ndarray:
    """A uniformly random quaternion xyzw, shape (4,)."""
    q = rng.standard_normal(4)
    return q / np.linalg.norm(q)


def throw(sim: Sim, layout: Layout, rng: np.random.Generator) -> None:
    """Gives every die of `sim` a start pose and velocity for the scene's kind of throw."""
    n = len(sim.dice)
    for i in range(n):
        s = sim.styles[i].size_mm
        if layout.scene == "shaker":
            # Shaken with the lid on, then set down: the dice tumble inside the cup.
            a, rad = rng.uniform(0, 2 * np.pi), rng.uniform(0, layout.radius_mm - s)
            pos = [rad * np.cos(a), rad * np.sin(a), layout.floor_mm + s * (1.0 + 1.3 * i)]
            lin = [*rng.uniform(-300, 300, 2), 0.0]
        elif layout.scene == "throwbox":
            row, col = divmod(i, 4)
            pos = [
                -layout.half_x_mm + 40 + row * 1.5 * s,
                (col - 1.5) * 1.5 * s + rng.uniform(-20, 20),
                rng.uniform(40, 100),
            ]
            lin = [rng.uniform(1200, 2600), rng.uniform(-300, 300), rng.uniform(-300, 0)]
        else:
            pos = [
                layout.half_x_mm - rng.uniform(220, 380),
                rng.uniform(-150, 150) + i * 1.6 * s,
                rng.uniform(40, 120),
            ]
            lin = [rng.uniform(900, 2200), rng.uniform(-400, 400), rng.uniform(-200, 100)]
        sim.set_pose(i, pos, random_quat(rng))
        sim.set_velocity(sim.dice[i], lin, rng.uniform(-25, 25, 3))


def _extent(sim: Sim, j: int, u: np.ndarray) -> float:
    """How far die j reaches from its centre along horizontal direction u, mm."""
    _, q = sim.pose(j)
    corners = cube_corners(sim.styles[j].size_mm) @ quat_to_matrix(q).T
    return float(np.max(corners @ u))


def floor_z(layout: Layout) -> float:
    """z of the surface the dice rest on in the zone, mm."""
    return layout.floor_mm if layout.scene != "craps" else 0.0


def _lean_target(sim: Sim, layout: Layout, i: int, rng: np.random.Generator):
    """Picks what die i leans on.

    Returns:
        (kind, edge point xy in mm (2,), edge height above the floor in mm, direction u (3,)
        from die i towards the target).
    """
    a = rng.uniform(0, 2 * np.pi)
    u = np.array([np.cos(a), np.sin(a), 0.0])
    others = [j for j in range(len(sim.dice)) if j != i]
    chips = layout.chips
    kinds = (["die"] if others else []) + ["wall", "wall"] + (["chips"] * 3 if chips else [])
    kind = kinds[int(rng.integers(len(kinds)))]
    if kind == "die":
        j = others[int(rng.integers(len(others)))]
        pj, _ = sim.pose(j)
        top = pj[2] + _extent(sim, j, np.array([0.0, 0.0, 1.0])) - floor_z(layout)
        return kind, pj[:2] - u[:2] * _extent(sim, j, -u), top, u
    if kind == "chips":
        st = chips[int(rng.integers(len(chips)))]
        return kind, np.array([st.x_mm, st.y_mm]) - u[:2] * CHIP_DIAMETER_MM / 2, st.height_mm, u
    c = layout.chamfer_mm
    if layout.scene == "shaker":
        return kind, u[:2] * (layout.radius_mm - c), c, u
    # A wall of the throw box, or the craps back wall at +x.
    side = 0 if layout.scene == "craps" else int(rng.integers(4))
    u = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0]][side], dtype=float)
    along = (
        np.array([-u[1], u[0]]) * rng.uniform(-0.7, 0.7) * min(layout.half_x_mm, layout.half_y_mm)
    )
    wall = np.array([layout.half_x_mm * u[0], layout.half_y_mm * u[1]]) - u[:2] * c
    return kind, wall + along, c, u


def lean(sim: Sim, layout: Layout, i: int, rng: np.random.Generator) -> None:
    """Starts die i with one edge on the floor and its bottom face rising onto a target.

    Against a low target (a chip or two, 623a.9(b)'s "resting cocked on a stack of chips",
    or the fillet at the foot of a wall) the bottom face rests on the target's top edge.
    Against a tall one (a die, a tall stack) the die stands like a ladder, its far bottom
    edge on the target's side; below about 30 degrees the felt's friction cannot hold it and
    above 45 degrees its centre of mass falls back, so the tilt is drawn in between.
    """
    _, edge, height, u = _lean_target(sim, layout, i, rng)
    s = sim.styles[i].size_mm
    if height < 0.5 * s:
        reach = rng.uniform(0.65, 0.95) * s
        tilt = np.arcsin(min(height / reach, 0.55))
    else:
        reach, tilt = 0.99 * s, np.radians(rng.uniform(32, 44))
    yaw = np.arctan2(u[1], u[0]) + (0.0 if rng.random() < 0.7 else rng.uniform(-0.5, 0.5))
    # Tilting the up vector away from the target raises the bottom face towards it.
    r = _axis_angle(np.cross([0.0, 0.0, 1.0], u), -tilt) @ flat_rotation(rng, yaw)
    corners = cube_corners(s) @ r.T
    low = corners[np.argsort(corners[:, 2])[:2]].mean(axis=0)  # centre of the lowest edge
    pivot = edge - u[:2] * reach * np.cos(tilt)
    centre = np.array([*(pivot - low[:2]), floor_z(layout) - low[2] + 0.3])
    sim.set_pose(i, centre, matrix_to_quat(r))


STACK_OFFSET = 0.15  # the natural mix's largest offset of a dropped die, x the side below


def stack(sim: Sim, i: int, j: int, rng: np.random.Generator,
          offset_max: float = STACK_OFFSET) -> None:
    """Drops die i flat onto die j from just above it, its centre moved by up to
    `offset_max` of j's side. Near the centre the top die hides the one beneath from a camera
    above; towards 0.5 both show, as a die resting on the edge of another's face."""
    pj, qj = sim.pose(j)
    top = pj[2] + float(np.max((cube_corners(sim.styles[j].size_mm) @ quat_to_matrix(qj).T)[:, 2]))
    offset = rng.uniform(-offset_max, offset_max, 2) * sim.styles[j].size_mm
    pos = [pj[0] + offset[0], pj[1] + offset[1], top + sim.styles[i].size_mm / 2 + 0.5]
    sim.set_pose(i, pos, matrix_to_quat(flat_rotation(rng)))


def out_of_zone(sim: Sim, layout: Layout, i: int, rng: np.random.Generator) -> None:
    """Puts die i where it does not count: beside the shaker or box, on a rail or bank chips."""
    s = sim.styles[i].size_mm
    a = rng.uniform(0, 2 * np.pi)
    if layout.scene == "shaker":
        rad = layout.radius_mm + layout.wall_mm + s + rng.uniform(2, 60)
        pos = [rad * np.cos(a), rad * np.sin(a), s / 2 + 0.5]
    elif layout.scene == "throwbox":
        side, d = int(rng.integers(4)), s / 2 + rng.uniform(5, 50)
        edge = [
            (layout.half_x_mm + d, rng.uniform(-1, 1) * layout.half_y_mm),
            (-layout.half_x_mm - d, rng.uniform(-1, 1) * layout.half_y_mm),
            (rng.uniform(-1, 1) * layout.half_x_mm, layout.half_y_mm + d),
            (rng.uniform(-1, 1) * layout.half_x_mm, -layout.half_y_mm - d),
        ][side]
        pos = [edge[0], edge[1], s / 2 + 0.5]
    elif rng.random() < 0.5 and any(c.bank for c in layout.chips):
        bank = [c for c in layout.chips if c.bank]
        st = bank[int(rng.integers(len(bank)))]
        pos = [
            st.x_mm + rng.uniform(-4, 4),
            st.y_mm + rng.uniform(-4, 4),
            st.height_mm + s / 2 + 0.5,
        ]
    else:
        y = rng.uniform(-0.8, 0.8) * layout.half_y_mm
        pos = [
            layout.half_x_mm + RAIL_WIDTH_MM / 2 + rng.uniform(-8, 8),
            y,
            layout.height_mm + s / 2 + 0.5,
        ]
    sim.set_pose(i, pos, matrix_to_quat(flat_rotation(rng)))


def touch(sim: Sim, layout: Layout, i: int, j: int, rng: np.random.Generator) -> None:
    """Sets die i flat right beside die j so that the two touch."""
    pj, _ = sim.pose(j)
    a = rng.uniform(0, 2 * np.pi)
    u = np.array([np.cos(a), np.sin(a), 0.0])
    r = flat_rotation(rng, a)
    reach = sim.styles[i].size_mm / 2 + _extent(sim, j, u) + 0.2
    pos = [
        pj[0] + u[0] * reach,
        pj[1] + u[1] * reach,
        floor_z(layout) + sim.styles[i].size_mm / 2 + 0.3,
    ]
    sim.set_pose(i, pos, matrix_to_quat(r))


def force(sim: Sim, layout: Layout, rng: np.random.Generator, rare: float = 1.0,
          stack_offset: float = STACK_OFFSET, probability: dict | None = None) -> list[str]:
    """Applies a random set of forced placements, each to a different die.

    `rare` multiplies every FORCE_PROBABILITY (capped at 1): training sets for the tilt and
    die-on-die heads need more of these poses than the suites that score the verdicts.
    `stack_offset` is `stack`'s largest offset. `probability` replaces the named entries of
    FORCE_PROBABILITY; the others keep theirs.

    Returns:
        Names of the placements applied, e.g. ["stack:1on0", "lean:0"], for the record.
    """
    n, done, free = len(sim.dice), [], list(rng.permutation(len(sim.dice)))
    for name, prob in {**FORCE_PROBABILITY, **(probability or {})}.items():
        pairwise = name in ("stack", "touch")
        if rng.random() >= min(1.0, prob * rare) or not free or (pairwise and n < 2):
            continue
        i = int(free.pop())
        if name == "lean":
            lean(sim, layout, i, rng)
            done.append(f"lean:{i}")
        elif name == "out":
            out_of_zone(sim, layout, i, rng)
            done.append(f"out:{i}")
        else:
            j = int([k for k in range(n) if k != i][int(rng.integers(n - 1))])
            if j in free:
                free.remove(j)
            (stack(sim, i, j, rng, stack_offset) if name == "stack"
             else touch(sim, layout, i, j, rng))
            done.append(f"{name}:{i}:{j}")
    return done
