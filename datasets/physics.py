"""Rigid-body simulation of the dice with pybullet (DIRECT mode, no GUI).

Bullet works best with objects of roughly unit size, so the simulation runs in centimetres,
grams and seconds (gravity 981 cm/s^2); everything leaving this module is in millimetres.
pybullet is imported lazily so `dicecall --help` and the format tools do not need it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dicecall.datasets.layouts import CHIP_DIAMETER_MM, Layout
from dicecall.datasets.styles import DieStyle

CM = 0.1  # centimetres per millimetre
RAIL_WIDTH_MM = 60.0
TIME_STEP_S = 1.0 / 240.0


@dataclass
class Contact:
    """One contact point of a die, world millimetres.

    Attributes:
        kind: "die", "floor", "table", "wall", "rail" or "chips".
        index: the other die's index or the chip stack's index, else -1.
        point_mm: contact point on the die, shape (3,).
    """

    kind: str
    index: int
    point_mm: np.ndarray


@dataclass
class DieState:
    """Rest state of one die: centre (mm, shape (3,)), quaternion xyzw (shape (4,)), contacts."""

    position_mm: np.ndarray
    quat_xyzw: np.ndarray
    contacts: list[Contact]


class Sim:
    """One pybullet DIRECT connection, reused scene after scene within a process."""

    def __init__(self) -> None:
        import pybullet

        self.pb = pybullet
        self.cid = pybullet.connect(pybullet.DIRECT)
        self.statics: dict[int, tuple[str, int]] = {}
        self.dice: list[int] = []
        self.styles: list[DieStyle] = []

    def reset(self) -> None:
        """Empties the world; a fresh world keeps the simulation deterministic per seed."""
        pb = self.pb
        pb.resetSimulation(physicsClientId=self.cid)
        pb.setGravity(0, 0, -981.0, physicsClientId=self.cid)
        pb.setPhysicsEngineParameter(
            fixedTimeStep=TIME_STEP_S,
            numSolverIterations=12,
            deterministicOverlappingPairs=1,
            physicsClientId=self.cid,
        )
        self.statics, self.dice, self.styles = {}, [], []

    def add_box(
        self, kind: str, centre_mm, half_mm, yaw: float = 0.0, index: int = -1, pitch: float = 0.0
    ) -> int:
        """Adds a static box; centre and half extents in mm, yaw and pitch in radians."""
        pb = self.pb
        shape = pb.createCollisionShape(
            pb.GEOM_BOX, halfExtents=[h * CM for h in half_mm], physicsClientId=self.cid
        )
        orn = pb.getQuaternionFromEuler([0, pitch, yaw])
        body = pb.createMultiBody(
            0, shape, -1, [c * CM for c in centre_mm], orn, physicsClientId=self.cid
        )
        # Bullet multiplies the two friction coefficients of a contact; 1.0 on the static
        # side makes the die's own coefficient the one that acts.
        pb.changeDynamics(body, -1, lateralFriction=1.0, restitution=0.5, physicsClientId=self.cid)
        self.statics[body] = (kind, index)
        return body

    def add_compound(self, kind: str, parts: list) -> int:
        """Adds one static body made of boxes: (centre mm, half extents mm, euler rad) each."""
        pb = self.pb
        shape = pb.createCollisionShapeArray(
            [pb.GEOM_BOX] * len(parts),
            halfExtents=[[h * CM for h in p[1]] for p in parts],
            collisionFramePositions=[[v * CM for v in p[0]] for p in parts],
            collisionFrameOrientations=[pb.getQuaternionFromEuler(p[2]) for p in parts],
            physicsClientId=self.cid,
        )
        body = pb.createMultiBody(0, shape, -1, [0, 0, 0], physicsClientId=self.cid)
        pb.changeDynamics(body, -1, lateralFriction=1.0, restitution=0.5, physicsClientId=self.cid)
        self.statics[body] = (kind, -1)
        return body

    def add_cylinder(
        self, kind: str, centre_mm, radius_mm: float, height_mm: float, index: int = -1
    ) -> int:
        """Adds a static upright cylinder centred at `centre_mm` (mm)."""
        pb = self.pb
        shape = pb.createCollisionShape(
            pb.GEOM_CYLINDER, radius=radius_mm * CM, height=height_mm * CM, physicsClientId=self.cid
        )
        body = pb.createMultiBody(
            0, shape, -1, [c * CM for c in centre_mm], physicsClientId=self.cid
        )
        pb.changeDynamics(body, -1, lateralFriction=1.0, restitution=0.3, physicsClientId=self.cid)
        self.statics[body] = (kind, index)
        return body

    def add_die(self, style: DieStyle, pos_mm, quat_xyzw) -> int:
        """Adds a dynamic die; sharp dice are boxes, rounded ones convex hulls of a rounded cube."""
        pb = self.pb
        half = style.size_mm * CM / 2.0
        if style.rounding < 0.02:
            shape = pb.createCollisionShape(
                pb.GEOM_BOX, halfExtents=[half] * 3, physicsClientId=self.cid
            )
        else:
            shape = pb.createCollisionShape(
                pb.GEOM_MESH, vertices=_rounded_cube(half, style.rounding), physicsClientId=self.cid
            )
        body = pb.createMultiBody(
            style.mass_g,
            shape,
            -1,
            [c * CM for c in pos_mm],
            list(quat_xyzw),
            physicsClientId=self.cid,
        )
        pb.changeDynamics(
            body,
            -1,
            lateralFriction=style.friction,
            restitution=style.restitution,
            rollingFriction=0.002,
            spinningFriction=0.002,
            linearDamping=0.1,
            angularDamping=0.1,
            physicsClientId=self.cid,
        )
        self.dice.append(body)
        self.styles.append(style)
        return body

    def set_velocity(self, body: int, lin_mm_s, ang_rad_s) -> None:
        """Sets a body's linear (mm/s) and angular (rad/s) velocity."""
        self.pb.resetBaseVelocity(
            body, [v * CM for v in lin_mm_s], list(ang_rad_s), physicsClientId=self.cid
        )

    def set_pose(self, index: int, pos_mm, quat_xyzw) -> None:
        """Teleports die `index` to a pose and stops it."""
        body = self.dice[index]
        self.pb.resetBasePositionAndOrientation(
            body, [c * CM for c in pos_mm], list(quat_xyzw), physicsClientId=self.cid
        )
        self.set_velocity(body, [0, 0, 0], [0, 0, 0])

    def pose(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        """Returns die `index`'s centre (mm, shape (3,)) and quaternion xyzw (shape (4,))."""
        pos, orn = self.pb.getBasePositionAndOrientation(self.dice[index], physicsClientId=self.cid)
        return np.array(pos) / CM, np.array(orn)

    def settle(self, max_s: float, min_s: float = 0.25) -> float:
        """Steps until every die is still (or `max_s` simulated seconds pass).

        Returns:
            The simulated time in seconds.
        """
        pb, chunk, still, t = self.pb, 12, 0, 0.0
        while t < max_s:
            for _ in range(chunk):
                pb.stepSimulation(physicsClientId=self.cid)
            t += chunk * TIME_STEP_S
            moving = False
            for body in self.dice:
                lin, ang = pb.getBaseVelocity(body, physicsClientId=self.cid)
                if np.linalg.norm(lin) > 0.4 or np.linalg.norm(ang) > 0.25:
                    moving = True
                    break
            still = 0 if moving else still + 1
            if still >= 3 and t >= min_s:
                break
        return t

    def states(self) -> list[DieState]:
        """Reads every die's pose and contacts (points closer than 0.5 mm)."""
        pb = self.pb
        pb.performCollisionDetection(physicsClientId=self.cid)
        index_of = {body: i for i, body in enumerate(self.dice)}
        out = []
        for i, body in enumerate(self.dice):
            pos, quat = self.pose(i)
            contacts = []
            for c in pb.getContactPoints(bodyA=body, physicsClientId=self.cid):
                other, point, distance = c[2], c[5], c[8]
                if distance > 0.05:
                    continue
                if other in index_of:
                    kind, idx = "die", index_of[other]
                else:
                    kind, idx = self.statics.get(other, ("floor", -1))
                    if kind == "table" and point[2] < -0.05:
                        # The throw box's walls are the sides of the table slabs around it.
                        kind = "wall"
                contacts.append(Contact(kind, idx, np.array(point) / CM))
            out.append(DieState(pos, quat, contacts))
        return out


@lru_cache(maxsize=64)
def _rounded_cube(half: float, rounding: float) -> list[list[float]]:
    """Vertices of a cube with rounded edges, for a convex hull collision shape.

    Cached: every scene throws the same few die sizes, and building the list per die cost
    more than a tenth of a ten-dice scene. Callers must not mutate the result.
    """
    r = 2 * half * rounding
    core = half - r
    dirs = np.array(
        [
            [a, b, c]
            for a in (0.0, 0.5, 1.0)
            for b in (0.0, 0.5, 1.0)
            for c in (0.0, 0.5, 1.0)
            if a + b + c > 0
        ]
    )
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    verts = []
    for sx in (-1, 1):
        for sy in (-1, 1):
            for sz in (-1, 1):
                s = np.array([sx, sy, sz])
                verts.extend((core * s + r * d * s).tolist() for d in dirs)
    return verts


def _chamfer(sim: Sim, corner_mm, half_len_mm: float, yaw: float, size_mm: float) -> None:
    """Adds a 45-degree fillet along a floor-wall corner; yaw points from the zone into the wall."""
    a = size_mm / np.sqrt(2.0)
    sim.add_box("wall", corner_mm, [a, half_len_mm, a], yaw=yaw, pitch=np.pi / 4)


def build_layout(sim: Sim, layout: Layout) -> None:
    """Adds the static geometry of a scene (table, shaker, throw box, rails, chips)."""
    big = 1500.0
    if layout.scene == "shaker":
        sim.add_box("table", [0, 0, -50], [big, big, 50])
        r, w, f, h = layout.radius_mm, layout.wall_mm, layout.floor_mm, layout.height_mm
        sim.add_cylinder("floor", [0, 0, f / 2], r + w, f)
        n, c = 28, layout.chamfer_mm / np.sqrt(2.0)
        seg = 2 * np.pi * (r + w) / n * 0.6
        parts = []
        for k in range(n):
            a = 2 * np.pi * k / n
            cs = np.array([np.cos(a), np.sin(a)])
            parts.append(([*(cs * (r + w / 2)), f + h / 2], [w / 2, seg, h / 2], [0, 0, a]))
            parts.append(([*(cs * r), f], [c, seg, c], [0, np.pi / 4, a]))
        sim.add_compound("wall", parts)
    elif layout.scene == "throwbox":
        hx, hy, d = layout.half_x_mm, layout.half_y_mm, -layout.floor_mm
        sim.add_box("floor", [0, 0, -d - 50], [hx + 50, hy + 50, 50])
        for sx in (-1, 1):
            sim.add_box("table", [sx * (hx + big / 2), 0, -d / 2 - 50], [big / 2, big, d / 2 + 50])
            sim.add_box("table", [0, sx * (hy + big / 2), -d / 2 - 50], [hx, big / 2, d / 2 + 50])
            _chamfer(sim, [sx * hx, 0, -d], hy, 0.0 if sx > 0 else np.pi, layout.chamfer_mm)
            _chamfer(sim, [0, sx * hy, -d], hx, sx * np.pi / 2, layout.chamfer_mm)
    else:
        hx, hy, rh = layout.half_x_mm, layout.half_y_mm, layout.height_mm
        sim.add_box("table", [0, 0, -50], [big, big, 50])
        for sx in (-1, 1):
            sim.add_box(
                "rail",
                [sx * (hx + RAIL_WIDTH_MM / 2), 0, rh / 2],
                [RAIL_WIDTH_MM / 2, hy + RAIL_WIDTH_MM, rh / 2],
            )
            sim.add_box(
                "rail", [0, sx * (hy + RAIL_WIDTH_MM / 2), rh / 2], [hx, RAIL_WIDTH_MM / 2, rh / 2]
            )
            _chamfer(sim, [sx * hx, 0, 0], hy, 0.0 if sx > 0 else np.pi, layout.chamfer_mm)
            _chamfer(sim, [0, sx * hy, 0], hx, sx * np.pi / 2, layout.chamfer_mm)
        for k, s in enumerate(layout.chips):
            sim.add_cylinder(
                "chips",
                [s.x_mm, s.y_mm, s.height_mm / 2],
                CHIP_DIAMETER_MM / 2,
                s.height_mm,
                index=k,
            )
