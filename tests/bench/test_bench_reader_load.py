"""bench/bench_reader_load.py: the reader timed with the pip fit's BLAS product on one thread
and on all, interleaved; the runtime must come out of it on one thread."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_both_modes_are_timed_and_the_runtime_keeps_one_blas_thread():
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_reader_load import _time

    from dicecall.vision import pip_layout
    from dicecall.vision.config import ReaderConfig, for_game
    from dicecall.vision.images import load_image
    from dicecall.vision.reader import DiceReader

    runtime = pip_layout._blas()
    frame = load_image(ROOT / "tests/data/frames/craps_0000004.jpg")
    times = _time(DiceReader(for_game(ReaderConfig(), True)), [frame], reps=2)
    assert {k: len(v) for k, v in times.items()} == {"one BLAS thread": 2,
                                                     "all BLAS threads": 2}
    # The interleaving swaps the controller the fit takes; it must be the runtime's again.
    assert pip_layout._blas() is runtime
