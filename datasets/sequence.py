"""Simulated throws filmed frame by frame, for replay through the edge process.

A throw is planned ("natural", or one of the no-roll situations of DESIGN.md's rules table)
and searched for: seeds are tried in order until the physics ends the way the plan says, as
read back from the labels (never from the intent). The poses of the dice are sampled at the
camera's frame rate while they fly and tumble; forced placements (a die dropped on another,
leaning on a wall, out of the zone) are filmed settling too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dicecall.datasets.dice import quat_to_matrix, top_face
from dicecall.datasets.labels import die_label
from dicecall.datasets.physics import TIME_STEP_S, DieState, Sim, build_layout
from dicecall.datasets.placements import flat_rotation, lean, out_of_zone, stack, throw
from dicecall.datasets.schema import DieLabel
from dicecall.datasets.stage import Stage, render

#: What a throw must end as: every die flat, apart and readable; one die on another
#: (623a.8(b), 668a.3(h), 675a.4(b)); one cocked (623a.9(b), 668a.3(h), 675a.4(c)); one out
#: of the zone but in view (623a.8(b), 668a.3(g)); one gone from the view (675a.4(b)).
PLANS = ("natural", "stack", "lean", "out", "gone")
GONE_MM = (1200.0, 1200.0)


@dataclass
class Throw:
    """One simulated throw.

    Attributes:
        seed: the seed that gave this outcome.
        flight: per captured frame, (centre (3,) mm, rotation (3, 3)) of each die.
        states: rest states of the thrown dice.
        labels: labels of the thrown dice at rest (die_label), then of any held dice.
        image: the rest frame, BGR.
        tries: seeds tried before this one fitted the plan.
    """

    seed: int
    flight: list[list[tuple[np.ndarray, np.ndarray]]]
    states: list[DieState]
    labels: list[DieLabel]
    image: np.ndarray
    forced: list[str] = field(default_factory=list)
    tries: int = 0


def _poses(sim: Sim) -> list[tuple[np.ndarray, np.ndarray]]:
    out = []
    for i in range(len(sim.dice)):
        pos, q = sim.pose(i)
        out.append((pos, quat_to_matrix(q)))
    return out


def _fly(sim: Sim, fps: float, max_s: float) -> list[list[tuple[np.ndarray, np.ndarray]]]:
    """Steps the physics, keeping the poses once per frame, until the dice are still."""
    pb, steps = sim.pb, max(1, round(1.0 / (fps * TIME_STEP_S)))
    frames, still, t = [], 0, 0.0
    while t < max_s:
        for _ in range(steps):
            pb.stepSimulation(physicsClientId=sim.cid)
        t += steps * TIME_STEP_S
        frames.append(_poses(sim))
        moving = any(np.linalg.norm(v[0]) > 0.4 or np.linalg.norm(v[1]) > 0.25
                     for v in (pb.getBaseVelocity(b, physicsClientId=sim.cid) for b in sim.dice))
        still = 0 if moving else still + 1
        if still >= 2:
            break
    return frames


def held_poses(stage: Stage, face: int, count: int, rng: np.random.Generator):
    """Poses of `count` dice showing `face`, set in a row in the holding box (675a.4(e))."""
    x0, y0, x1, y1 = stage.held_mm
    s = stage.styles[0].size_mm
    out = []
    for k in range(count):
        while True:
            r = flat_rotation(rng)
            if top_face(r)[0] == face:
                break
        x = x0 + (k + 0.5) * (x1 - x0) / max(count, 6)
        out.append((np.array([x, (y0 + y1) / 2, s / 2]), r))
    return out


def simulate(sim: Sim, stage: Stage, n: int, plan: str, seed: int, fps: float,
             held=()) -> Throw:
    """Throws `n` dice of the stage's set, applies the plan's placement, films it all.

    Args:
        held: poses of dice already held in the holding box (the Extra Roll); drawn, not
            simulated.
    """
    rng = np.random.default_rng(seed)
    sim.reset()
    build_layout(sim, stage.layout)
    for st in stage.styles[:n]:
        sim.add_die(st, [0.0, 0.0, 500.0], [0, 0, 0, 1])
    throw(sim, stage.layout, rng)
    forced = []
    if plan == "gone":
        # A die that flew off the table: it never shows in the frames.
        sim.set_pose(n - 1, [*GONE_MM, stage.styles[0].size_mm / 2 + 0.5], [0, 0, 0, 1])
        forced.append(f"gone:{n - 1}")
    flight = _fly(sim, fps, 4.0)
    if plan in ("stack", "lean", "out"):
        i, j = (int(v) for v in rng.permutation(n)[:2])
        if plan == "stack":
            stack(sim, i, j, rng)
        elif plan == "lean":
            lean(sim, stage.layout, i, rng)
        else:
            out_of_zone(sim, stage.layout, i, rng)
        forced.append(f"{plan}:{i}" + (f":{j}" if plan == "stack" else ""))
        flight += _fly(sim, fps, 3.0)
    sim.settle(2.0)
    states = sim.states()
    poses = [(s.position_mm, quat_to_matrix(s.quat_xyzw)) for s in states]
    image, ids = render(stage, poses + list(held))
    labels = [die_label(i, s, stage.styles[i], stage.layout, stage.camera, ids)
              for i, s in enumerate(states)]
    return Throw(seed, flight, states, labels, image, forced)


def _in_view(d: DieLabel, w: int, h: int) -> bool:
    x0, y0, x1, y1 = d.box
    return d.visible >= 0.85 and x0 > 3 and y0 > 3 and x1 < w - 3 and y1 < h - 3


def _apart(dice: list[DieLabel]) -> bool:
    if len(dice) < 2:
        return True
    pos = np.array([d.position_mm for d in dice])
    size = max(d.size_mm for d in dice)
    dist = np.linalg.norm(pos[:, None, :2] - pos[None, :, :2], axis=-1)
    np.fill_diagonal(dist, np.inf)
    # Two dice well apart; ten in a throw box only need not touch (a die's diagonal is 1.41).
    return bool(dist.min() > (1.6 if len(dice) <= 2 else 1.5) * size)


def fits(plan: str, labels: list[DieLabel], stage: Stage) -> bool:
    """True when the labels show exactly the plan's situation and nothing else."""
    w, h = stage.camera.width, stage.camera.height

    def good(d: DieLabel) -> bool:  # flat, in the zone, fully in view
        return d.tilt_deg < 3.0 and not d.stacked and d.in_zone and _in_view(d, w, h)

    # The die under a stacked die is mostly hidden, and is not the odd one out.
    under = {d.resting_on for d in labels if d.stacked} if plan == "stack" else set()
    odd = [d for i, d in enumerate(labels) if not good(d) and i not in under]
    fine = [d for i, d in enumerate(labels) if good(d) and i not in under]
    if plan == "natural":
        return not odd and _apart(fine)
    if len(odd) != 1 or not _apart(fine):
        return False
    d = odd[0]
    if plan == "stack":
        return bool(d.stacked and d.in_zone and d.tilt_deg < 3.0 and _in_view(d, w, h))
    if plan == "lean":
        return bool(d.cocked and 12.0 < d.tilt_deg < 40.0 and d.up_margin_deg > 15.0
                    and not d.stacked and d.in_zone and _in_view(d, w, h))
    if plan == "out":
        # Off the table on the rail (Craps) or beside the shaker or the box, in view, and not
        # in the High Roll holding box, where a die is held rather than out.
        wanted = "off" if stage.kind == "craps" else "table"
        held = stage.held_mm
        in_held = held is not None and (held[0] <= d.position_mm[0] <= held[2]
                                        and held[1] <= d.position_mm[1] <= held[3])
        return d.zone == wanted and _in_view(d, w, h) and d.tilt_deg < 3.0 and not in_held
    if plan == "gone":
        return d.visible == 0.0
    raise ValueError(f"unknown plan {plan!r}; choose from {PLANS}")


def search(sim: Sim, stage: Stage, n: int, plan: str, seed: int, fps: float, held=(),
           max_tries: int = 400) -> Throw:
    """The first seed from `seed` on whose throw fits `plan`.

    Raises:
        RuntimeError: no seed in `max_tries` fitted (the plan cannot happen on this stage).
    """
    for k in range(max_tries):
        t = simulate(sim, stage, n, plan, seed + k, fps, held)
        if fits(plan, t.labels, stage):
            t.tries = k + 1
            return t
    raise RuntimeError(f"no throw of {n} dice ended as {plan!r} in {max_tries} seeds from {seed}")
