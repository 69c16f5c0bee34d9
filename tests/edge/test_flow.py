"""Game flow per table against a live service: the High Roll Extra Roll (675a.4(g)), Props &
Hops with the lid, and the sequence numbers resumed from the service with a new outbox."""

from __future__ import annotations

import threading

import numpy as np

from dicecall.edge.flow import GameFlow
from dicecall.edge.replaykit import write_replay
from dicecall.edge.runner import EdgeRunner

FIRST = (6, 6, 6, 6, 2, 3, 4, 5, 1, 2)  # four sixes: six dice are rethrown
EXTRA = (6, 1, 2, 3, 4, 5)  # one more six: five of a kind
NEXT = (1, 1, 2, 2, 3, 3, 4, 4, 5, 5)


def test_high_roll_reads_the_extra_roll_with_the_rethrown_dice(tmp_path, service, kit):
    table, device, secret = service.table("high-roll-dice")
    for name, params in (("pip_street", {"face": 1}), ("like_kind", {"count": 5}),
                         ("extra_roll", {})):
        service.wager(table, name, 1000, 0, **params)
    replay = tmp_path / "replay"
    write_replay(replay, kit.scenes(3), motion=3, still=8)
    cfg = kit.config(tmp_path, service, table, device, secret, replay, game="high-roll-dice")
    events = []
    runner = EdgeRunner(cfg, on_event=events.append, reader=kit.Reader([FIRST, EXTRA, NEXT]))
    runner.run(threading.Event())
    reads = [e for e in events if e["kind"] == "read"]
    assert [(e["phase"], e["expected"], e["verdict"]) for e in reads] == [
        ("first", 10, "valid"), ("extra", 6, "valid"), ("first", 10, "valid")]
    acks = [e["response"] for e in events if e["kind"] == "ack"]
    assert "extra_roll:6" in acks[0]["settlement"]["events"]
    assert acks[1]["settlement"]["events"] == ["extra:6x5", "round_over"]
    lines = {line["name"]: line["result"] for line in acks[1]["settlement"]["lines"]}
    assert lines == {"like_kind": "win"}  # five of a kind made on the Extra Roll (675a.4(h))
    assert [r["status"] for r in service.rolls(table)] == ["settled"] * 3


def test_an_extra_roll_missed_while_the_edge_was_away_is_asked_of_the_service():
    flow = GameFlow("high-roll-dice")
    assert flow.expect().dice == 10
    flow.on_ack({"status": "held", "settlement": None})
    assert flow.uncertain  # held for review: the phase is the service's to say
    flow.on_device_state({"extra_roll": True, "expected_dice": 3})
    assert (flow.expect().dice, flow.expect().phase) == (3, "extra")
    flow.on_ack({"status": "no_roll", "settlement": None})
    assert flow.expect().phase == "extra" and not flow.uncertain  # rethrow the same dice


def test_props_and_hops_reads_only_with_the_lid_off(tmp_path, service, kit):
    table, device, secret = service.table("props-and-hops")
    shaker = kit.scenes(3, seed=9)
    lid = np.full_like(shaker[0], 200)
    open_empty = np.full_like(shaker[0], (40, 110, 30))
    replay = tmp_path / "replay"
    # shaken with the lid on (at rest: blocked), lid off (read), shaken again, lid off (read)
    write_replay(replay, [lid, shaker[0], lid, shaker[1]], motion=3, still=8,
                 background=open_empty)
    cfg = kit.config(tmp_path, service, table, device, secret, replay, game="props-and-hops",
                     settle={"block_fraction": 0.3})
    events = []
    runner = EdgeRunner(cfg, on_event=events.append, reader=kit.Reader([(1, 4), (5, 5)]))
    runner.run(threading.Event())
    kinds = [e["kind"] for e in events if e["kind"] in ("read", "blocked")]
    assert kinds == ["blocked", "read", "blocked", "read"]
    assert [r["faces"] for r in service.rolls(table)] == [[1, 4], [5, 5]]


def test_a_new_outbox_continues_the_devices_sequence(tmp_path, service, kit):
    table, device, secret = service.table("craps")
    replay = tmp_path / "replay"
    write_replay(replay, kit.scenes(2), motion=3, still=8)
    for box in ("first.db", "replacement.db"):
        cfg = kit.config(tmp_path, service, table, device, secret, replay,
                         outbox={"path": str(tmp_path / box)})
        EdgeRunner(cfg, reader=kit.Reader([(2, 2)])).run(threading.Event())
    stored = service.rolls(table)
    assert [r["seq"] for r in stored] == [0, 1, 2, 3]
    assert [r["sequence"]["status"] for r in stored] == ["first", "ok", "ok", "ok"]


def test_held_dice_in_the_calibrated_held_zone_are_not_counted_675a_4_e(tmp_path, service,
                                                                          kit):
    """A zones file from calibration: during the Extra Roll the four held sixes lie in the
    `held` zone and only the six rethrown dice are read as the throw."""
    from dicecall.calibration.layout import ZonesFile
    from dicecall.calibration.table import TablePose
    from dicecall.calibration.zones import calibrate_zones

    pose = TablePose(homography=np.eye(3).tolist(), source="points", points=4, rms_px=0,
                     max_px=0)  # 1 mm = 1 px on the 320 x 240 test frames
    zones = ZonesFile(zones=[
        {"name": "throw_area", "role": "play", "polygon_mm": [(0, 40), (320, 40), (320, 240),
                                                              (0, 240)]},
        {"name": "box", "role": "held", "polygon_mm": [(0, 0), (320, 0), (320, 39), (0, 39)]}])
    calibrate_zones(pose, zones).save(tmp_path / "zones.json")
    table, device, secret = service.table("high-roll-dice")
    for name, params in (("pip_street", {"face": 1}), ("like_kind", {"count": 5}),
                         ("extra_roll", {})):
        service.wager(table, name, 1000, 0, **params)
    replay = tmp_path / "replay"
    write_replay(replay, kit.scenes(2), motion=3, still=8)
    cfg = kit.config(tmp_path, service, table, device, secret, replay, game="high-roll-dice",
                     zones=str(tmp_path / "zones.json"))
    events = []
    script = [FIRST, {"faces": EXTRA, "held": (6, 6, 6, 6)}]
    EdgeRunner(cfg, on_event=events.append, reader=kit.Reader(script)).run(threading.Event())
    reads = [e for e in events if e["kind"] == "read"]
    assert [(e["phase"], e["verdict"], len(e["faces"])) for e in reads] == [
        ("first", "valid", 10), ("extra", "valid", 6)]
    assert [r["status"] for r in service.rolls(table)] == ["settled", "settled"]
