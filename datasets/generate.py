"""Generates a synthetic dataset folder in parallel, deterministically by seed.

Scene i of a dataset with seed S always uses `scene_seed(S, i)`, so the files do not depend
on the number of workers or on the order in which they finish.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from dicecall.datasets.progress import Progress
from dicecall.datasets.schema import save_record
from dicecall.datasets.styles import FAMILIES
from dicecall.vision.config import lax

_SIM = None
# The forced placements of `placements.FORCE_PROBABILITY`, named here so that this module
# stays free of pybullet until a worker starts (a test checks the two agree).
FORCED_POSES = ("stack", "touch", "lean", "out")


class GenerateConfig(BaseModel):
    """What to generate."""

    # strict as vision/config.py's STRICT ("3" for a count is refused, as is a NaN the
    # bounds of `force` do not hold), but not frozen: built once and never shared.
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    scene: str = Field(pattern="^(shaker|throwbox|craps)$", description="scene type")
    count: int = Field(ge=1, le=10_000_000, description="number of images")
    seed: int = Field(0, ge=0, le=2**63 - 1, description="master seed")
    out: Path = lax(description="output folder, created if missing")
    width: int = Field(640, ge=64, le=8192, description="image width, pixels")
    height: int = Field(480, ge=48, le=8192, description="image height, pixels")
    workers: int = Field(0, ge=0, le=256, description="processes; 0 = all cores")
    start: int = Field(0, ge=0, description="index of the first scene")
    rare: float = Field(1.0, ge=0.0, le=10.0,
                        description="multiplier of the forced rare poses (stacked, cocked, "
                                    "touching, out of zone); 1 = the natural mix")
    # The default is placements.STACK_OFFSET, written out: this module stays free of pybullet
    # until a worker starts.
    stack_offset: float = Field(0.15, ge=0.0, le=0.6,
                                description="largest offset of a die dropped on another, x "
                                            "its side; 0.15 = the natural mix, where the die "
                                            "on top hides the one beneath")
    # A training set for one flag wants one pose far more often than the natural mix: with
    # two shaker dice a forced die-on-die takes both dice and leaves none to lean, so
    # `--rare 3` gave 8 cocked dice of 200 in 100 scenes; `lean` at 1, `stack` and `out` at 0
    # gave 91 of 400 in 200 (models/reader.md, session 17).
    force: dict[str, float] = Field(default_factory=dict,
                                    description="probability per scene of a forced placement "
                                                "(stack, touch, lean, out), replacing its "
                                                "natural one before `rare` multiplies it")
    # "unseen": a judging set for the reader on dice it has never seen (the held-out real set
    # is of unseen dice styles, DESIGN.md), never used to train; "random": procedural styles
    # of any colour beside the seen ones, to train on, kept apart from the held-out ones.
    styles: str = Field("seen", pattern=f"^({'|'.join(FAMILIES)})$",
                        description="seen: the training styles; unseen: the held-out ones; "
                                    "random: procedural styles with the seen ones; dark: "
                                    "procedural dark dice with the seen ones")

    # The scene rendered again under the lamps the camera switches (`datasets.lamps`), for
    # the Props & Hops tilt they read (`vision.lamps`); 0: no lamp frames.
    lamps: float = Field(0.0, ge=0.0, le=85.0,
                         description="the three lamps' elevation, degrees, 120 degrees apart "
                                     "(0: no lamp frames)")
    polarised: bool = Field(False, description="crossed polarisers on the lamps and lens: "
                                               "no highlights in the lamps' frames")

    @field_validator("force")
    @classmethod
    def _known_poses(cls, v: dict[str, float]) -> dict[str, float]:
        for name, prob in v.items():
            if name not in FORCED_POSES:
                raise ValueError(f"unknown forced placement {name!r}; one of {FORCED_POSES}")
            if not 0.0 <= prob <= 1.0:
                raise ValueError(f"force {name}={prob}: a probability is 0-1")
        return v


def _worker_init() -> None:
    global _SIM
    import cv2

    from dicecall.datasets.physics import Sim

    # One OpenCV thread per process: the pool already uses every core.
    cv2.setNumThreads(1)
    _SIM = Sim()


def _one(args: tuple[str, int, int, int, int, str, float, float, dict, str, float, bool]
         ) -> str:
    """Renders scene `index` and writes NAME.jpg and NAME.json, with lamps also
    NAME.lamp0.jpg (every lamp off) to NAME.lamp3.jpg; returns NAME."""
    from dicecall.datasets.lamps import lamp_lights
    from dicecall.datasets.scene import make_scene_lit, scene_seed
    from dicecall.vision.lamps import LampRig

    kind, seed, index, width, height, out, rare, stack_offset, force, styles, lamps, pol = args
    if _SIM is None:
        _worker_init()
    rig = LampRig(elevation_deg=(lamps,) * 3) if lamps else None
    jpeg, rec, lit = make_scene_lit(_SIM, kind, scene_seed(seed, index), width, height, rare,
                                    stack_offset, force, styles,
                                    lamp_lights(rig, pol) if rig else ())
    name = f"{kind}_{index:07d}"
    rec.image = name + ".jpg"
    Path(out, rec.image).write_bytes(jpeg)
    if rig is not None:
        frames = [f"{name}.lamp{k}.jpg" for k in range(len(lit))]
        for f, data in zip(frames, lit, strict=True):
            Path(out, f).write_bytes(data)
        rec.lamps = {"frames": frames, "rig": rig.model_dump(mode="json"), "polarised": pol}
    save_record(rec, Path(out, name + ".json"))
    return name


def generate(cfg: GenerateConfig, progress: bool = True) -> list[str]:
    """Writes `cfg.count` scenes into `cfg.out`.

    Args:
        cfg: the validated request.
        progress: draw a progress bar on stderr.

    Returns:
        The names written (without extension), in index order.
    """
    cfg.out.mkdir(parents=True, exist_ok=True)
    jobs = [
        (cfg.scene, cfg.seed, cfg.start + i, cfg.width, cfg.height, str(cfg.out), cfg.rare,
         cfg.stack_offset, cfg.force, cfg.styles, cfg.lamps, cfg.polarised)
        for i in range(cfg.count)
    ]
    workers = cfg.workers or os.cpu_count() or 1
    bar = Progress(cfg.count, cfg.scene)
    bar.enabled = bar.enabled and progress
    names: list[str] = []
    if workers == 1 or cfg.count == 1:
        for job in jobs:
            names.append(_one(job))
            bar.update()
    else:
        # fork keeps start-up cheap; each worker opens its own pybullet connection.
        ctx = mp.get_context("fork")
        with ctx.Pool(min(workers, cfg.count), initializer=_worker_init) as pool:
            for name in pool.imap_unordered(_one, jobs, chunksize=2):
                names.append(name)
                bar.update()
    bar.close()
    return sorted(names)
