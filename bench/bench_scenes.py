"""Images per second of `dicecall datasets generate` at 640x480, per scene type.

Run: /work/venv/bin/python bench/bench_scenes.py [--count 120] [--workers 0]
Each scene type is generated into a temporary folder with all workers (0 = every core);
the time includes the physics, rendering, JPEG encoding and writing the files.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from dicecall.datasets.generate import GenerateConfig, generate

TARGET_PER_S = 20.0


def bench(scene: str, count: int, workers: int) -> float:
    """Returns images per second for `count` scenes of type `scene`."""
    with tempfile.TemporaryDirectory() as tmp:
        cfg = GenerateConfig(
            scene=scene,
            count=count,
            seed=2024,
            out=Path(tmp),
            width=640,
            height=480,
            workers=workers,
        )
        t0 = time.perf_counter()
        generate(cfg, progress=False)
        return count / (time.perf_counter() - t0)


def main() -> None:
    """Prints a table of images per second for each scene type."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=120, help="images per scene type")
    parser.add_argument("--workers", type=int, default=0, help="processes, 0 = all cores")
    args = parser.parse_args()
    cores = os.cpu_count()
    print(
        f"640x480, {args.count} images per scene type, workers={args.workers or cores} "
        f"({cores} cores)"
    )
    print(f"{'scene':<10} {'images/s':>9} {'target':>7}")
    for scene in ("shaker", "throwbox", "craps"):
        rate = bench(scene, args.count, args.workers)
        mark = "ok" if rate >= TARGET_PER_S else "below"
        print(f"{scene:<10} {rate:9.1f} {TARGET_PER_S:7.0f}  {mark}")


if __name__ == "__main__":
    main()
