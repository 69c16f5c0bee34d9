"""Frame sequences: a fixed camera, throws that end as planned (read back from the physics),
and the truth verdict of each plan under the rules (DESIGN.md, Roll verdict rules)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pybullet")

from dicecall.datasets.physics import Sim
from dicecall.datasets.sequence import search
from dicecall.datasets.stage import make_stage, render
from dicecall.datasets.stage_zones import ideal_verdict, table_calibration


@pytest.fixture(scope="module")
def sim():
    return Sim()


@pytest.fixture(scope="module")
def craps():
    return make_stage("craps", 2, 3)


def test_empty_table_is_the_same_in_every_frame(craps):
    a, _ = render(craps, [])
    b, _ = render(craps, [])
    assert np.array_equal(a, b)


@pytest.mark.parametrize(("plan", "status", "code"), [
    ("natural", "valid", None),
    ("stack", "no_roll", "die_on_die"),       # 623a.8(b)
    ("lean", "valid", "cocked_counts"),       # 623a.9(b): a cocked die counts in Craps
    ("out", "needs_review", "rest_on_rail"),  # 623a.8(c)(4): the boxperson decides
    ("gone", "no_roll", "die_missing"),       # 623a.8(b): a die off the table
])
def test_craps_throw_ends_as_planned(sim, craps, plan, status, code):
    t = search(sim, craps, 2, plan, 1000, 10.0)
    assert t.flight and all(len(f) == 2 for f in t.flight)
    zones = table_calibration(craps).zones_px
    truth = ideal_verdict(t.labels, "craps", 2, zones)
    assert truth["status"] == status
    if code is not None:
        assert code in {r["code"] for r in truth["reasons"]}
    again = search(sim, craps, 2, plan, t.seed, 10.0)
    assert [d.face for d in again.labels] == [d.face for d in t.labels]  # deterministic


def test_cocked_die_in_the_shaker_is_a_no_roll(sim):
    stage = make_stage("shaker", 2, 5)
    t = search(sim, stage, 2, "lean", 2000, 10.0)
    truth = ideal_verdict(t.labels, "props-and-hops", 2, table_calibration(stage).zones_px)
    assert truth["status"] == "no_roll"
    assert {"cocked"} <= {r["code"] for r in truth["reasons"]}  # 668a.3(h)
