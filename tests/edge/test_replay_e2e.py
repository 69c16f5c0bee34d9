"""The replay source end to end against a live service on loopback."""

from __future__ import annotations

import base64
import hashlib
import json
import threading

import cv2

from dicecall.edge.replaykit import write_replay
from dicecall.edge.runner import EdgeRunner

FACES = [(3, 4), (6, 6), (1, 2), (5, 2)]


def test_every_throw_is_read_published_and_settled_once_in_order(tmp_path, service, kit):
    table, device, secret = service.table("craps")
    service.wager(table, "pass", 1000)
    replay = tmp_path / "replay"
    write_replay(replay, kit.scenes(len(FACES)), motion=3, still=8)
    cfg = kit.config(tmp_path, service, table, device, secret, replay)
    events = []
    reader = kit.Reader(FACES)
    runner = EdgeRunner(cfg, on_event=events.append, reader=reader)
    runner.run(threading.Event())

    reads = [e for e in events if e["kind"] == "read"]
    acks = [e for e in events if e["kind"] == "ack"]
    assert [tuple(e["faces"]) for e in reads] == FACES
    assert [e["seq"] for e in reads] == [0, 1, 2, 3]
    assert all(e["verdict"] == "valid" for e in reads)
    assert [e["seq"] for e in acks] == [0, 1, 2, 3]
    assert {e["http_status"] for e in acks} == {201}
    # 3+4 makes the point 7 on the come-out: the pass line wins (623a.11)
    first = acks[0]["response"]
    assert first["status"] == "settled" and first["settlement"]["lines"][0]["result"] == "win"

    stored = service.rolls(table)
    assert [r["roll_id"] for r in stored] == [e["roll_id"] for e in reads]
    assert [r["faces"] for r in stored] == [list(f) for f in FACES]
    assert [r["sequence"]["status"] for r in stored] == ["first", "ok", "ok", "ok"]
    assert runner.metrics.value("dicecall_edge_reads_total", verdict="valid") == 4
    assert runner.metrics.value("dicecall_edge_outbox_depth") == 0


def test_evidence_is_the_frame_that_was_read(tmp_path, service, kit):
    table, device, secret = service.table("craps")
    replay = tmp_path / "replay"
    scenes = kit.scenes(2, seed=5)
    write_replay(replay, scenes, motion=3, still=8, ext=".png")
    cfg = kit.config(tmp_path, service, table, device, secret, replay)
    posted = []
    runner = EdgeRunner(cfg, reader=kit.Reader(FACES))
    original = runner.publisher.client.request

    def spy(method, path, body=b""):
        posted.append(json.loads(body))
        return original(method, path, body)

    runner.publisher.client.request = spy
    runner.run(threading.Event())
    assert len(posted) == 2
    for body, scene in zip(posted, scenes, strict=True):
        ev = body["evidence"]
        clean = base64.b64decode(ev["clean_jpeg_b64"])
        assert hashlib.sha256(clean).hexdigest() == ev["clean_sha256"]
        decoded = cv2.imdecode(__import__("numpy").frombuffer(clean, "uint8"), cv2.IMREAD_COLOR)
        assert abs(decoded.astype(int) - scene.astype(int)).mean() < 3  # JPEG of the scene
    assert (service.settings.evidence_dir).exists()


def test_the_real_reader_end_to_end_sends_what_vision_reads(tmp_path, service, kit):
    """The committed ONNX models on two sample frames: the service stores exactly the
    verdict and faces that `vision` gives for the same frame (whatever their quality)."""
    from pathlib import Path

    from dicecall.vision.profiles import Zones, profile
    from dicecall.vision.reader import DiceReader
    from dicecall.vision.verdict import verdict

    frames = Path(__file__).parents[1] / "data" / "frames"
    scenes = [cv2.imread(str(frames / f"craps_000000{i}.jpg")) for i in (4, 5)]
    table, device, secret = service.table("craps")
    replay = tmp_path / "replay"
    write_replay(replay, scenes, motion=3, still=6, ext=".png")  # lossless: same pixels
    cfg = kit.config(tmp_path, service, table, device, secret, replay, reader={"threads": 1})
    EdgeRunner(cfg).run(threading.Event())
    reader = DiceReader()
    expected = [verdict(reader.read(s), profile("craps"), Zones.whole_frame(640, 480))
                for s in scenes]
    stored = service.rolls(table)
    assert [r["verdict"] for r in stored] == [v.status for v in expected]
    assert [r["faces"] for r in stored] == [list(v.faces) for v in expected]
