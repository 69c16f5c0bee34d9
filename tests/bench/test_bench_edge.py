"""bench/bench_edge.py's frame size follows the edge's camera config."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from dicecall.edge.config import Picamera2Source

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_edge.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_edge", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_default_size_is_the_cameras_main_stream():
    # The bench measured 640x480 until session 59 while a table reads 1920x1080: the edge's
    # latency and memory targets were judged on a frame no table gives.
    assert _bench().camera_size() == tuple(Picamera2Source.model_fields["main_size"].default)


def test_size_argument_is_checked():
    import argparse

    import pytest

    size = _bench()._size
    assert size("1280x720") == (1280, 720)
    for bad in ("1280", "x720", "32x32", "axb"):
        with pytest.raises(argparse.ArgumentTypeError):
            size(bad)
