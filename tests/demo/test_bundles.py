"""The bundled replay folders of `dicecall demo`: readable by the edge, small, and covering
every no-roll kind of the rules table (DESIGN.md) with a truth for each throw."""

from __future__ import annotations

import csv
import itertools
import json
from pathlib import Path

import cv2
import pytest

from dicecall.demo.table import DATA

BUNDLES = ("craps", "props-and-hops", "high-roll")


@pytest.mark.parametrize("name", BUNDLES)
def test_bundle_is_a_replay_folder_with_truth(name):
    folder = DATA / name
    rows = list(csv.DictReader((folder / "frames.csv").open()))
    times = [float(r["t_ms"]) for r in rows]
    assert times == sorted(times) and len(set(times)) == len(times)
    for f in {r["file"] for r in rows}:
        img = cv2.imread(str(folder / f))
        assert img is not None and img.shape == (480, 640, 3), f
    truth = json.loads((folder / "truth.json").read_text())
    rest = truth["timing"]["rest_s"] * 1000
    for th in truth["throws"]:
        # The rest frame is on screen for the whole rest period the edge settles in.
        shown = [r["file"] for r in rows if th["t_rest_ms"] <= float(r["t_ms"]) < th["t_rest_ms"]
                 + rest]
        assert set(shown) == {th["rest_frame"]}
        assert len(shown) >= 8
    from dicecall.calibration.zones import load_zones

    assert len(load_zones(folder / "zones.json").play) >= 4


def test_bundles_are_small():
    total = sum(p.stat().st_size for p in Path(DATA).rglob("*") if p.is_file())
    assert total < 3_000_000


def _codes(truth: dict) -> set[str]:
    return {r["code"] for th in truth["throws"] for r in th["truth"]["reasons"]}


def test_bundles_cover_every_no_roll_kind_and_the_extra_roll():
    truths = {n: json.loads((DATA / n / "truth.json").read_text()) for n in BUNDLES}
    codes = set().union(*(_codes(t) for t in truths.values()))
    # 623a.8(b)/668a.3(h)/675a.4(b) die on die; 668a.3(h) cocked (no roll) and 623a.9(b)
    # cocked (counts); 623a.8(b)/668a.3(g)/675a.4(b) a die missing; 623a.8(c)(4) the rail.
    assert {"die_on_die", "cocked", "cocked_counts", "die_missing", "rest_on_rail"} <= codes
    high = truths["high-roll"]["throws"]
    extras = [(a, b) for a, b in itertools.pairwise(high) if b["phase"] == "extra"]
    assert extras
    for first, extra in extras:
        # 675a.4(g): every die but the held ones is thrown again.
        assert first["truth"]["status"] == "valid"
        assert extra["expected_dice"] == 10 - first["held"]["count"]
        assert len(extra["truth"]["faces"]) == extra["expected_dice"]
        assert first["truth"]["faces"].count(first["held"]["face"]) == first["held"]["count"]


def test_a_call_agrees_with_the_truth_whatever_the_order_of_its_dice():
    from dicecall.demo.show import agrees, read_line

    truth = {"status": "valid", "faces": [6, 2], "reasons": []}
    throw = {"index": 0, "plan": "natural", "phase": "throw", "truth": truth}
    left_to_right = {"verdict": "valid", "faces": [2, 6], "reasons": []}
    assert agrees(truth, left_to_right)
    assert read_line("[t]", throw, left_to_right).endswith("agrees")
    assert not agrees(truth, {"verdict": "valid", "faces": [2, 5], "reasons": []})
    assert not agrees(truth, {"verdict": "no_roll", "faces": [6, 2], "reasons": []})
    assert "DIFFERS" in read_line("[t]", throw, {"verdict": "valid", "faces": [2, 2],
                                                  "reasons": []})
