"""One detector + reader pair on matteop65/valid: found, read right, false dice per image.

INT8 results depend on the CPU's integer kernels. Run it natively and under valgrind, which
hides AVX-512 (and so VNNI) from onnxruntime, to see a pair on both kinds of x86 CPU
(models/reader.md, INT8):

    python bench/int8_cpu_check.py --detector models/detector.int8.onnx \
        --reader models/reader.int8.onnx
    valgrind --tool=none python bench/int8_cpu_check.py ...
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bench_reader import SHARED, accuracy

from dicecall.vision.config import MODELS_DIR, ReaderConfig
from dicecall.vision.reader import DiceReader


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--detector", type=Path, default=MODELS_DIR / "detector.int8.onnx")
    ap.add_argument("--reader", type=Path, default=MODELS_DIR / "reader.int8.onnx")
    ap.add_argument("--data", type=Path, default=SHARED / "data/real-dev/matteop65/valid")
    args = ap.parse_args()
    reader = DiceReader(ReaderConfig(detector=args.detector, reader=args.reader, warmup=0))
    a = accuracy(reader, [args.data])
    print(f"{args.detector.name} + {args.reader.name} on {args.data}: {a['dice']} dice, found "
          f"{100 * a['found']:.2f} %, read right {100 * a['read']:.2f} %, false per image "
          f"{a['false']:.3f}")


if __name__ == "__main__":
    main()
