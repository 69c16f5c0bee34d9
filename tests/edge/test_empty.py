"""A table with no dice in play after the dice are collected is not a roll (no post); a
throw with some but not all dice is still a `die_missing` no roll (623a.8)."""

from __future__ import annotations

import threading

import numpy as np

from dicecall.edge.replaykit import write_replay
from dicecall.edge.runner import EdgeRunner


def _zones(tmp_path):
    """Play zone: the frame below y = 40 px; the strip above it is off the layout."""
    from dicecall.calibration.layout import ZonesFile
    from dicecall.calibration.table import TablePose
    from dicecall.calibration.zones import calibrate_zones

    pose = TablePose(homography=np.eye(3).tolist(), source="points", points=4, rms_px=0,
                     max_px=0)  # 1 mm = 1 px on the 320 x 240 test frames
    zones = ZonesFile(zones=[{"name": "layout", "role": "play",
                              "polygon_mm": [(0, 40), (320, 40), (320, 240), (0, 240)]}])
    calibrate_zones(pose, zones).save(tmp_path / "zones.json")
    return tmp_path / "zones.json"


def test_collected_dice_leave_an_empty_table_that_is_not_posted(tmp_path, service, kit):
    table, device, secret = service.table("craps")
    dice = kit.scenes(2)
    felt = np.full_like(dice[0], (40, 110, 30))
    replay = tmp_path / "replay"
    # throw, dice collected, throw (one die off the table), dice pushed off the layout
    write_replay(replay, [dice[0], felt, dice[1], felt], motion=3, still=8, background=felt)
    cfg = kit.config(tmp_path, service, table, device, secret, replay,
                     zones=str(_zones(tmp_path)))
    events: list = []
    script = [(3, 4), (), (5,), {"faces": (), "held": (2, 2)}]
    runner = EdgeRunner(cfg, on_event=events.append, reader=kit.Reader(script))
    runner.run(threading.Event())
    reads = [e for e in events if e["kind"] == "read"]
    assert [(e["verdict"], e["faces"]) for e in reads] == [("valid", [3, 4]),
                                                          ("no_roll", [5])]
    assert reads[1]["reasons"][0]["code"] == "die_missing"
    empty = [e for e in events if e["kind"] == "empty"]
    assert [e["detections"] for e in empty] == [0, 2]
    assert [r["faces"] for r in service.rolls(table)] == [[3, 4], [5]]
    assert [r["seq"] for r in service.rolls(table)] == [0, 1]
    assert runner.metrics.value("dicecall_edge_empty_total") == 2
