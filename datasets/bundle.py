"""Replay bundles: a table filmed through a shift of throws, written as the edge replays it.

A bundle folder holds `frames.csv` (header `file,t_ms`), the JPEG frames it names, `zones.json`
(the table calibration the edge loads) and `truth.json` (every throw: the plan, the labels and
the verdict a perfect reader would reach). Frames that do not change (the empty table, dice
at rest) are written once and listed once per frame time, which keeps a bundle small. The
table shows empty only at the start (the edge's reference) and briefly between throws.
"""

from __future__ import annotations

import csv
import json
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from dicecall.datasets.dice import top_face
from dicecall.datasets.physics import Sim
from dicecall.datasets.sequence import held_poses, search
from dicecall.datasets.stage import Stage, arm, lid, make_stage, render
from dicecall.datasets.stage_zones import ideal_verdict, table_calibration

#: name -> (scene, game, dice, [(plan, phase), ...]); phase "throw" (Craps, Props & Hops),
#: "first" or "extra" (High Roll, 675a.4(b),(g)). Every no-roll kind of the rules table
#: appears at least once across the three.
BUNDLES: dict[str, tuple[str, str, int, list[tuple[str, str]]]] = {
    "craps": ("craps", "craps", 2, [("natural", "throw"), ("natural", "throw"),
                                    ("stack", "throw"), ("natural", "throw"), ("out", "throw"),
                                    ("lean", "throw"), ("gone", "throw"),
                                    ("natural", "throw")]),
    "props-and-hops": ("shaker", "props-and-hops", 2,
                       [("natural", "throw"), ("lean", "throw"), ("natural", "throw"),
                        ("out", "throw"), ("stack", "throw"), ("natural", "throw")]),
    "high-roll": ("throwbox", "high-roll-dice", 10,
                  [("natural", "first"), ("natural", "extra"), ("gone", "first"),
                   ("natural", "first"), ("natural", "extra")]),
}
RANK = (1, 6, 5, 4, 3, 2)  # 675a.2(d): the ace ranks highest, the 2 lowest


@dataclass
class Timing:
    fps: float = 10.0
    idle_s: float = 1.2
    rest_s: float = 1.2
    #: Between throws the table shows empty for less than a settle (4 frames): the edge
    #: reads every still scene after motion, and an empty table is no throw.
    gap_s: float = 0.2
    quality: int = 80
    #: In flight only every `flight_step`-th frame is kept, at `flight_quality`: motion is
    #: all the edge needs of them, and they are most of a bundle's bytes.
    flight_step: int = 2
    flight_quality: int = 70


def high_face(faces: list[int]) -> tuple[int, int]:
    """675a.4(d): the face that occurs most, ties to the higher rank, and its count."""
    best = max(range(1, 7), key=lambda f: (faces.count(f), -RANK.index(f)))
    return best, faces.count(best)


class _Film:
    """Collects frames: unique images once, every frame time in the index."""

    def __init__(self, out: Path, timing: Timing) -> None:
        self.out, self.timing, self.t, self.rows, self.files = out, timing, 0.0, [], 0
        self.bytes = 0

    def image(self, img: np.ndarray, quality: int | None = None) -> str:
        q = quality or self.timing.quality
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        if not ok:
            raise RuntimeError("OpenCV failed to encode a JPEG")
        name = f"f{self.files:04d}.jpg"
        (self.out / name).write_bytes(buf.tobytes())
        self.files, self.bytes = self.files + 1, self.bytes + len(buf)
        return name

    def show(self, name: str, seconds: float | None = None, periods: int = 1) -> float:
        """Lists `name` for `seconds` (one frame if None), each frame `periods` frame times
        after the last; returns the first frame's time."""
        first = self.t
        for _ in range(max(1, round((seconds or 0) * self.timing.fps))):
            self.rows.append((name, round(self.t)))
            self.t += periods * 1000.0 / self.timing.fps
        return first

    def write_index(self) -> None:
        with open(self.out / "frames.csv", "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["file", "t_ms"])
            w.writerows(self.rows)


def make_bundle(name: str, out: Path, seed: int = 7, timing: Timing | None = None,
                width: int = 640, height: int = 480, log=print) -> dict:
    """Simulates, films and writes one bundle; returns its truth (also in truth.json)."""
    scene, game, dice, plan = BUNDLES[name]
    timing = timing or Timing()
    out.mkdir(parents=True, exist_ok=True)
    stage = make_stage(scene, dice, seed, width, height)
    calib = table_calibration(stage)
    calib.save(out / "zones.json")
    film, sim, rng = _Film(out, timing), Sim(), np.random.default_rng(seed)
    empty = film.image(render(stage, [])[0])
    film.show(empty, timing.idle_s)  # the edge takes its empty-table reference here
    lid_frames = [film.image(render(stage, [], overlay=lambda im, k=k: lid(
        im, stage, (8 * np.sin(2.1 * k), 6 * np.cos(1.7 * k))))[0]) for k in range(5)] \
        if scene == "shaker" else []
    held, idle, throws = [], empty, []
    for k, (plan_k, phase) in enumerate(plan):
        n = dice - len(held) if phase == "extra" else dice
        t = search(sim, stage, n, plan_k, seed * 100_000 + k * 1000, timing.fps, held)
        if lid_frames:  # 668a.3(g): shaken with the lid on; the lid comes off, dice at rest
            for f in lid_frames:
                film.show(f)
            if k == 0:
                film.show(lid_frames[-1], 0.8)  # the lid put down and still: not read
        else:
            step = timing.flight_step
            for poses in t.flight[step - 1::step]:
                film.show(film.image(render(stage, poses + held)[0], timing.flight_quality),
                          periods=step)
        rest = film.image(t.image)
        t_rest = film.show(rest, timing.rest_s)
        truth = ideal_verdict(t.labels + _held_labels(stage, held), game, n, calib.zones_px)
        throws.append({"index": k, "phase": phase, "plan": plan_k, "expected_dice": n,
                       "seed": t.seed, "tries": t.tries, "forced": t.forced,
                       "t_rest_ms": round(t_rest), "rest_frame": rest, "truth": truth,
                       "dice": [_die(d) for d in t.labels]})
        log(f"{name} throw {k} ({phase}, {plan_k}): seed {t.seed} after {t.tries} tries, "
            f"ideal verdict {truth['status']} {truth['faces']}")
        before = held
        next_extra = k + 1 < len(plan) and plan[k + 1][1] == "extra"
        if next_extra and truth["status"] == "valid":
            face, count = high_face(truth["faces"])
            held = held_poses(stage, face, count, rng)
            throws[-1]["held"] = {"face": face, "count": count}
        else:
            held = []
        if scene != "shaker":
            film.show(film.image(_collecting(stage, t, before)))
            idle = film.image(render(stage, held)[0]) if held else empty
            film.show(idle, timing.gap_s)
    film.show(lid_frames[0] if lid_frames else idle, timing.gap_s)
    film.write_index()
    truth = {"bundle": name, "game": game, "scene": scene, "seed": seed, "width": width,
             "height": height, "timing": asdict(timing), "frames": len(film.rows),
             "files": film.files, "jpeg_bytes": film.bytes, "zones": "zones.json",
             "throws": throws}
    (out / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    return truth


def _collecting(stage: Stage, t, held) -> np.ndarray:
    """The dice at rest with the stick (Craps) or the dealer's hand (High Roll) over them."""
    boxes = np.array([d.box for d in t.labels if d.visible > 0])
    tip = (float((boxes[:, 0] + boxes[:, 2]).mean() / 2),
           float((boxes[:, 1] + boxes[:, 3]).mean() / 2))
    if stage.kind == "craps":
        def draw(im):
            arm(im, tip, "right", 9, (40, 90, 140), 14)
    else:
        def draw(im):
            arm(im, tip, "bottom", 70, thing=60)
    poses = [(s.position_mm, _rot(s)) for s in t.states] + list(held)
    return render(stage, poses, overlay=draw)[0]


def _rot(state) -> np.ndarray:
    from dicecall.datasets.dice import quat_to_matrix

    return quat_to_matrix(state.quat_xyzw)


def _held_labels(stage: Stage, held) -> list:
    """Minimal labels of the held dice, for the ideal verdict (they sit flat, fully seen)."""
    from dicecall.datasets.dice import cube_corners
    from dicecall.datasets.schema import DieLabel

    out = []
    for pos, r in held:
        px = stage.camera.project(pos + cube_corners(stage.styles[0].size_mm) @ r.T)
        box = [float(v) for v in (*px.min(axis=0), *px.max(axis=0))]
        out.append(DieLabel(face=top_face(r)[0], box=box, visible=1.0))
    return out


def _die(d) -> dict:
    return {"face": d.face, "box": d.box, "tilt_deg": d.tilt_deg, "up_margin_deg":
            d.up_margin_deg, "stacked": d.stacked, "zone": d.zone, "in_zone": d.in_zone,
            "visible": d.visible}
