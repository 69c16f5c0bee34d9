"""Would lights the camera switches itself tell a shallow lean from a flat die? (issue 6)

A probe, not a runtime change. Props & Hops holds most good rolls because the tilt read
from one frame cannot tell a die leaning 5-12 degrees from a flat one (`docs/verdicts.md`:
the probes of sessions 23, 26, 28 and 39 found neither more pixels, more frames nor a
direction head enough). Under the room's light the top face of a die leaning 5 degrees
shades almost as a flat one does. Under a lamp from the side it does not: its brightness
moves by about sin(5 deg) x cos(elevation) of the lamp's light, some 12 % at 45 degrees, in
a direction that says which way it leans; three lamps from three sides give the face's
normal outright (photometric stereo, Woodham 1980), whatever the die's colour, because the
colour cancels. Lamps on the camera's mount, switched one frame each, cost a Pi a GPIO line
and a few frames of a still scene.

Each scene of `dicecall datasets generate --scene shaker --seed SEED --force lean=P` is
rendered five times: as generated (the room's light, with its own sensor noise draw; read
by the committed runtime as a Props & Hops table reads it), with its ambient light alone,
and with the ambient and one of three lamps at `--elevation` degrees, 120 degrees apart,
each frame with its own sensor noise. Per die (in the zone, not on another, at least 90 %
visible), the body brightness of its top face (`face_means`) in each lamp's frame less the
ambient frame gives rho x (n . l_k); solving the three gives the face's normal and its
angle from the vertical. Prints, for every die, the opaque and the translucent ones, the
AUC of that angle and of the runtime's tilt, dice leaning 5-12 degrees and every cocked die
against flat ones, and the share of flat dice flagged where the line catches 95 % and all
of the shallow leans; then per roll, at the line that catches every shallow lean, the good
rolls no reading holds and the rolls with a cocked die it does.

The renderer shades each face flat (Lambert plus a Blinn-Phong highlight, a constant for
translucency): no rounded edges, no light scattered inside a translucent die, no light off
the shaker's wall. So this bounds what lamps could give; it is no figure for a table.

    python bench/probe_switched_lights.py --seed 5601 --count 800 --lean 1 --elevation 45 \
        --polarised --out R.pkl
"""

from __future__ import annotations

import argparse
import dataclasses
import pickle
from pathlib import Path

import cv2
import numpy as np

import dicecall.datasets.painter as painter
import dicecall.datasets.scene as scene
from dicecall.datasets.physics import Sim
from dicecall.models.evaluate import auc
from dicecall.vision.config import ReaderConfig, for_game
from dicecall.vision.lamps import LampRig
from dicecall.vision.preprocess import record_view
from dicecall.vision.reader import DiceReader
from dicecall.vision.scoring import match

SHRINK = 0.85  # the top face's corners drawn in towards its centre: no edge pixels
LAMP_DIFFUSE = 0.6  # the lamps' gain: with LAMP_AMBIENT a white die (235) stays under 255
LAMP_AMBIENT = 0.25  # the light that is not the lamps', the same in all four lamp frames


def lamps(elevation_deg: float) -> np.ndarray:
    """(3, 3) unit directions towards three lamps 120 degrees apart around the vertical
    (the product's default rig, `vision.lamps.LampRig`, at this elevation)."""
    return LampRig(elevation_deg=(elevation_deg,) * 3).directions()


def render_passes(sim: Sim, seed: int, width: int, height: int, lean: float,
                  elevation: float, polarised: bool = False) -> tuple[list[np.ndarray], object]:
    """The scene's frames, BGR: as generated, then the lamps' ambient alone and each lamp
    with it. Every pass draws the same scene (the same random draws) with its own
    sensor noise; the lamps' passes are white and dim enough that a white die does not clip.
    `polarised`: the lamps' frames without the faces' highlights, as crossed polarisers on
    the lamps and the lens take them out (a highlight keeps the lamp's polarisation)."""
    real_light, real_finish, real_shade = scene.sample_light, scene.finish, painter.shade_colour
    override: dict = {}

    def light(rng, centre):
        drawn = real_light(rng, centre)  # the scene's own draws, so all else stays the same
        return drawn if override.get("lamp") is None else dataclasses.replace(
            drawn, direction=override["lamp"], diffuse=override["diffuse"],
            ambient=LAMP_AMBIENT, colour=np.ones(3))

    def finish(img, rng):
        return real_finish(img, rng, noise_rng=np.random.default_rng(override["noise"]))

    def shade(albedo, normal, light, view, gloss, transmit=0.0):
        lamp = polarised and override.get("lamp") is not None
        return real_shade(albedo, normal, light, view, 0.0 if lamp else gloss, transmit)

    scene.sample_light, scene.finish, painter.shade_colour = light, finish, shade
    dirs = lamps(elevation)
    passes = [(None, 0.0), (dirs[0], 0.0)] + [(v, LAMP_DIFFUSE) for v in dirs]
    frames, rec = [], None
    try:
        for i, (lamp, diffuse) in enumerate(passes):
            override.update(lamp=lamp, diffuse=diffuse, noise=seed * 10 + i)
            jpeg, r = scene.make_scene(sim, "shaker", seed, width, height,
                                       force_probability={"lean": lean})
            frames.append(cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR))
            rec = rec or r
    finally:
        scene.sample_light, scene.finish, painter.shade_colour = (real_light, real_finish,
                                                                  real_shade)
    return frames, rec


def face_means(frames: list[np.ndarray], corners: np.ndarray) -> np.ndarray:
    """The top face's body brightness in each frame: the median over its pixels (corners
    drawn in by SHRINK) of B + G + R. The median is the body's, not its pips' or the far
    pips a translucent die shows; the sum keeps a red or blue die's light, which grey
    loses. NaN if the face is too small."""
    c = np.asarray(corners, np.float32)
    c = c.mean(0) + (c - c.mean(0)) * SHRINK
    mask = np.zeros(frames[0].shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(c).astype(np.int32), 1)
    on = mask.astype(bool)
    if on.sum() < 4:
        return np.full(len(frames), np.nan)
    return np.array([float(np.median(f[on].astype(np.float32).sum(1))) for f in frames])


def lamp_tilt(means: np.ndarray, dirs: np.ndarray) -> float:
    """Degrees between the vertical and the normal that the three lamps' shading gives."""
    g = np.linalg.solve(dirs, means[1:] - means[0])
    n = np.linalg.norm(g)
    return float(np.degrees(np.arccos(np.clip(g[2] / n, -1, 1)))) if n > 1e-6 else np.nan


def collect(seed: int, count: int, width: int, height: int, lean: float,
            elevation: float, polarised: bool) -> list[dict]:
    sim, rows, dirs = Sim(), [], lamps(elevation)
    reader = DiceReader(for_game(ReaderConfig(), cocked_counts=False))
    for i in range(count):
        frames, rec = render_passes(sim, scene.scene_seed(seed, i), width, height, lean,
                                    elevation, polarised)
        dice = reader.read(frames[0], record_view(rec))
        boxes = np.array([d.box for d in rec.dice], np.float32)
        found = {g: p for p, g in match(dice.centers, boxes)}
        for j, d in enumerate(rec.dice):
            means = face_means(frames[1:], d.top_corners)
            rows.append({"scene": i, "tilt_deg": d.tilt_deg, "cocked": d.cocked,
                         "stacked": d.stacked, "in_zone": d.in_zone, "visible": d.visible,
                         "style": d.style,
                         "means": means.tolist(),
                         "lamps": lamp_tilt(means, dirs) if np.isfinite(means).all()
                         else np.nan,
                         "runtime": float(dice.tilt[found[j]]) if j in found else np.nan})
    return rows


def scored_dice(rows: list[dict]) -> list[dict]:
    """The dice both readings score: in the zone, not on another, at least 90 % visible,
    found by the runtime and read by the lamps."""
    return [r for r in rows if r["in_zone"] and not r["stacked"] and r["visible"] >= 0.9
            and np.isfinite(r["runtime"]) and np.isfinite(r["lamps"])]


def report(rows: list[dict]) -> None:
    from dicecall.datasets.styles import STYLES

    ok = scored_dice(rows)
    # Light that comes through a translucent die from its sides brightens its top with
    # every lamp: the shading is no longer the top face's alone.
    clear = {name for name, st in STYLES.items() if st.translucency > 0}
    groups = {"every die": ok, "opaque dice": [r for r in ok if r["style"] not in clear],
              "translucent dice": [r for r in ok if r["style"] in clear]}
    for what, dice in groups.items():
        flat = [r for r in dice if not r["cocked"]]
        cocked = [r for r in dice if r["cocked"]]
        shallow = [r for r in cocked if 5 <= r["tilt_deg"] < 12]
        print(f"{what} (found by the runtime, lamps readable): {len(dice)}; flat {len(flat)}, "
              f"cocked {len(cocked)}, leaning 5-12 degrees {len(shallow)}")
        if not (flat and shallow):
            continue
        print(f"{'reading':>26} {'AUC 5-12':>9} {'AUC cocked':>11} "
              f"{'flat flagged at 95 %':>21} {'at 100 % of 5-12':>17}")
        for name, key in (("runtime tilt, room light", "runtime"),
                          ("lamps' normal, degrees", "lamps")):
            s, c, f = (np.array([r[key] for r in g]) for g in (shallow, cocked, flat))
            print(f"{name:>26} {auc(s, f):>9.4f} {auc(c, f):>11.4f} "
                  f"{100 * np.mean(f >= np.quantile(s, 0.05)):>20.1f}% "
                  f"{100 * np.mean(f >= s.min()):>16.1f}%")
        f = np.array([r["lamps"] for r in flat])
        s = np.array([r["lamps"] - r["tilt_deg"] for r in shallow])
        print(f"  lamps' angle: flat dice median {np.median(f):.2f}, 95th percentile "
              f"{np.quantile(f, 0.95):.2f}, 99th {np.quantile(f, 0.99):.2f} degrees; leaning "
              f"5-12 degrees, less the true tilt: median {np.median(s):+.2f}, 10th-90th "
              f"percentile {np.quantile(s, 0.1):+.2f} to {np.quantile(s, 0.9):+.2f}")


def report_rolls(rows: list[dict]) -> None:
    """Per roll, each reading at the line that catches every die leaning 5-12 degrees (of
    the dice `report` scores): good rolls (every die flat, in the zone, not on another, at
    least 90 % visible and read both ways) with no die over the line, and rolls with a
    cocked die so read with one over it. What the tilt alone would hold, not a verdict: the
    support rule and every other finding are left out."""
    if not rows or "scene" not in rows[0]:
        return
    scored = scored_dice(rows)
    shallow = [r for r in scored if r["cocked"] and 5 <= r["tilt_deg"] < 12]
    if not shallow:
        return
    rank = {key: {id(r): k / (len(scored) - 1) for k, r in
                  enumerate(sorted(scored, key=lambda r, key=key: r[key]))}
            for key in ("runtime", "lamps")}
    readings = {"runtime tilt, room light": lambda r: r["runtime"],
                "lamps' normal": lambda r: r["lamps"],
                "both, mean rank": lambda r: (rank["runtime"][id(r)] + rank["lamps"][id(r)]) / 2}
    scenes: dict[int, list[dict]] = {}
    for r in rows:
        scenes.setdefault(r["scene"], []).append(r)
    ok = {id(r) for r in scored}
    good = [dice for dice in scenes.values() if all(id(r) in ok and not r["cocked"]
                                                    for r in dice)]
    cocked = [[r for r in dice if id(r) in ok] for dice in scenes.values()
              if any(id(r) in ok and r["cocked"] for r in dice)]
    print(f"rolls: good {len(good)}, with a cocked die {len(cocked)}")
    for name, read in readings.items():
        line = min(read(r) for r in shallow)
        clear = np.mean([all(read(r) < line for r in dice) for dice in good])
        held = np.mean([any(read(r) >= line for r in dice) for dice in cocked])
        print(f"{name:>26}: good rolls with no die over the line {100 * clear:.1f} %, "
              f"rolls with a cocked die held {100 * held:.1f} %")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, default=600)
    ap.add_argument("--width", type=int, default=640)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--lean", type=float, default=0.5, help="forced lean probability")
    ap.add_argument("--elevation", type=float, default=45.0, help="the lamps' elevation, deg")
    ap.add_argument("--polarised", action="store_true",
                    help="crossed polarisers: no highlights in the lamps' frames")
    ap.add_argument("--out", type=Path, default=None, help="pickle of the rows, kept")
    args = ap.parse_args()
    rows = collect(args.seed, args.count, args.width, args.height, args.lean, args.elevation,
                   args.polarised)
    if args.out is not None:
        args.out.write_bytes(pickle.dumps(rows))
    report(rows)
    report_rolls(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
