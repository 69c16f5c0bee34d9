"""Helpers for the tests of the reader's extra looks (closer, wide): a detector session that
counts its runs (a look costs one run, and only when asked for), and a committed scene read
with its labels."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from dicecall.vision.images import load_image


class CountingDetector:
    def __init__(self, session) -> None:
        self.session, self.runs = session, 0

    def run(self, names, feeds):
        self.runs += 1
        return self.session.run(names, feeds)

    def __getattr__(self, name):
        return getattr(self.session, name)


def labelled_scene(path: Path) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """(frame, label boxes, faces sorted) of a generated scene's JSON record."""
    rec = json.loads(path.read_text())
    return (load_image(path.with_name(rec["image"])),
            np.array([d["box"] for d in rec["dice"]], np.float32),
            sorted(d["face"] for d in rec["dice"]))
