"""Reader latency with the machine's other cores busy, as on the edge, where the camera's
capture, the settle detector and the publisher share the CPU with the reader.

    python bench/bench_reader_load.py [--frames 20] [--reps 5] [--busy 1]

Reads the same two-dice craps frames (test seed 7003, rendered at 640x480 and at the
camera's 1920x1080) quiet and with `--busy` processes spinning, each frame in turn with the
pip layout fit's BLAS product on one thread (the runtime, `vision/pip_layout.py`) and on
every thread BLAS would use, interleaved in one process so both see the same machine. With
two processes spinning on two cores the threaded product took a two-dice read at 640x480
from a p50 of 25 to 40 ms; quiet, the two read alike (session 66, models/reader.md).
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SIZES = ((640, 480), (1920, 1080))


class _AllThreads:
    """Stands in for the fit's BLAS controller: no limit, as before session 66."""

    def limit(self, **_kw):
        return contextlib.nullcontext()


def _frames(out: Path, size: tuple[int, int], count: int) -> list[np.ndarray]:
    from dicecall.datasets.generate import GenerateConfig, generate
    from dicecall.datasets.schema import load_folder
    from dicecall.vision.images import load_image

    folder = out / f"craps-{size[0]}x{size[1]}"
    generate(GenerateConfig(scene="craps", count=2 * count, seed=7003, workers=0,
                            width=size[0], height=size[1], out=folder), progress=False)
    return [load_image(p.parent / r.image) for p, r in load_folder(folder)
            if len(r.dice) == 2][:count]


def _time(reader, frames: list, reps: int) -> dict[str, list[float]]:
    from dicecall.vision import pip_layout

    one, free = pip_layout._blas(), _AllThreads()
    times: dict[str, list[float]] = {"one BLAS thread": [], "all BLAS threads": []}
    try:
        for rep in range(reps + 1):  # the first pass warms both
            for frame in frames:
                for mode, ctl in (("one BLAS thread", one), ("all BLAS threads", free)):
                    pip_layout._blas = lambda ctl=ctl: ctl
                    t0 = time.perf_counter()
                    reader.read(frame)
                    if rep:
                        times[mode].append((time.perf_counter() - t0) * 1000)
    finally:
        pip_layout._blas = lambda: one
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=20, help="two-dice frames per size")
    ap.add_argument("--reps", type=int, default=5, help="reads of each frame per mode")
    ap.add_argument("--busy", type=int, default=1, help="spinning processes in the loaded run")
    args = ap.parse_args()
    from dicecall.vision.config import ReaderConfig, for_game
    from dicecall.vision.reader import DiceReader

    with tempfile.TemporaryDirectory() as tmp:  # rendered before any onnxruntime thread
        frames = {s: _frames(Path(tmp), s, args.frames) for s in SIZES}
    reader = DiceReader(for_game(ReaderConfig(), True))
    rows = []
    for load in ("quiet", f"{args.busy} busy"):
        busy = [] if load == "quiet" else [
            subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
        try:
            for (w, h), fs in frames.items():
                for mode, t in _time(reader, fs, args.reps).items():
                    rows.append((load, f"{w}x{h}", mode, np.median(t), np.percentile(t, 90),
                                 len(t)))
        finally:
            for p in busy:
                p.kill()
    print(f"{'machine':<9} {'frame':<10} {'pip fit':<17} {'p50 ms':>7} {'p90 ms':>7} {'reads':>6}")
    for load, frame, mode, p50, p90, n in rows:
        print(f"{load:<9} {frame:<10} {mode:<17} {p50:>7.2f} {p90:>7.2f} {n:>6}")


if __name__ == "__main__":
    main()
