"""Faults: service down then up, corrupt frames, camera gone, refused roll, full disk."""

from __future__ import annotations

import threading
import time

import numpy as np

from dicecall.edge.replaykit import write_replay
from dicecall.edge.runner import EdgeRunner
from dicecall.edge.sources import CameraError, Frame

FACES = [(2, 5), (4, 4), (6, 1)]


def _run_in_thread(runner, stop):
    thread = threading.Thread(target=runner.run, args=(stop,), daemon=True)
    thread.start()
    return thread


def test_service_down_then_up_loses_nothing_and_keeps_the_order(tmp_path, stopped_service, kit):
    svc = stopped_service
    svc.start()
    table, device, secret = svc.table("craps")
    svc.stop()  # the service goes down before the edge starts
    replay = tmp_path / "replay"
    write_replay(replay, kit.scenes(3), motion=3, still=8)
    cfg = kit.config(tmp_path, svc, table, device, secret, replay)
    events = []
    runner = EdgeRunner(cfg, on_event=events.append, reader=kit.Reader(FACES))
    stop = threading.Event()
    thread = _run_in_thread(runner, stop)
    deadline = time.monotonic() + 20
    while runner.outbox.depth() < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert runner.outbox.depth() == 3  # every read is durable while the service is down
    time.sleep(0.5)
    assert any(e["kind"] == "publish_error" for e in events)
    assert runner.status()["service"] == "down"
    svc.start()
    thread.join(30)
    assert not thread.is_alive()
    stored = svc.rolls(table)
    assert [r["seq"] for r in stored] == [0, 1, 2]
    assert [r["faces"] for r in stored] == [list(f) for f in FACES]
    assert [e["seq"] for e in events if e["kind"] == "ack"] == [0, 1, 2]


def test_corrupt_and_missing_frames_are_reported_and_skipped(tmp_path, service, kit):
    table, device, secret = service.table("craps")
    replay = tmp_path / "replay"
    write_replay(replay, kit.scenes(2), motion=3, still=8)
    (replay / "throw0001_m1.jpg").write_bytes(b"\xff\xd8 not really a jpeg")
    (replay / "throw0000_m2.jpg").unlink()
    cfg = kit.config(tmp_path, service, table, device, secret, replay)
    events = []
    runner = EdgeRunner(cfg, on_event=events.append, reader=kit.Reader(FACES))
    runner.run(threading.Event())
    errors = [e for e in events if e["kind"] == "frame_error"]
    assert {e["frame"] for e in errors} == {"throw0001_m1.jpg", "throw0000_m2.jpg"}
    assert "cannot be decoded" in " ".join(e["error"] for e in errors)
    assert runner.metrics.value("dicecall_edge_frame_errors_total") == 2
    assert [r["faces"] for r in service.rolls(table)] == [list(f) for f in FACES[:2]]


class FlakyCamera:
    """A live camera that dies after `die_after` frames on its first opening, then works."""

    finite = False

    def __init__(self, frames: list[np.ndarray], die_after: int) -> None:
        self.frames_, self.die_after = frames, die_after
        self.opened = self.closed = 0
        self.t = 0.0

    def open(self) -> None:
        self.opened += 1
        if self.opened == 2:
            raise CameraError("camera not found")  # the first reopen fails too

    def frames(self):
        start = 0 if self.opened == 1 else self.die_after
        for k, image in enumerate(self.frames_[start:]):
            if self.opened == 1 and k == self.die_after:
                raise CameraError("camera stopped delivering frames")
            self.t += 1 / 30
            yield Frame(self.t, time.time(), image, image[::4, ::4, 1].copy(), f"#{k}")
        while True:  # then a still scene until stopped
            self.t += 1 / 30
            yield Frame(self.t, time.time(), image, image[::4, ::4, 1].copy(), "idle")
            time.sleep(0.005)

    def close(self) -> None:
        self.closed += 1


def test_camera_gone_is_reopened_with_backoff_and_reported(tmp_path, service, kit):
    table, device, secret = service.table("craps")
    scenes = kit.scenes(2, seed=3)
    empty = np.full_like(scenes[0], 60)
    seq = [empty] * 6 + [scenes[0] // 3] + [scenes[0]] * 8 + [scenes[1] // 3] + [scenes[1]] * 8
    camera = FlakyCamera(seq, die_after=10)
    replay = tmp_path / "unused"
    write_replay(replay, scenes[:1])
    cfg = kit.config(tmp_path, service, table, device, secret, replay)
    events = []
    runner = EdgeRunner(cfg, on_event=events.append, reader=kit.Reader(FACES), source=camera)
    stop = threading.Event()
    thread = _run_in_thread(runner, stop)
    deadline = time.monotonic() + 20
    while len([e for e in events if e["kind"] == "ack"]) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    thread.join(10)
    errors = [e for e in events if e["kind"] == "camera_error"]
    assert [e["error"] for e in errors] == ["camera stopped delivering frames",
                                            "camera not found"]
    assert errors[1]["retry_in_s"] == 2 * errors[0]["retry_in_s"]  # backoff doubles
    assert camera.opened == 3 and camera.closed == 3
    assert runner.metrics.value("dicecall_edge_camera_errors_total") == 2
    assert len(service.rolls(table)) == 2


def test_a_roll_the_service_refuses_is_kept_and_the_rest_go_on(tmp_path, kit):
    svc = kit.FakeService(lambda n: (422, b'{"code": "validation_error", "message": "no"}')
                          if n == 1 else (201, b'{"status": "settled"}'))
    replay = tmp_path / "replay"
    write_replay(replay, kit.scenes(2), motion=3, still=8)
    cfg = kit.config(tmp_path, svc, kit.TABLE, kit.DEVICE, "s" * 32, replay)
    events = []
    runner = EdgeRunner(cfg, on_event=events.append, reader=kit.Reader(FACES))
    runner.run(threading.Event())
    svc.close()
    assert [e["http_status"] for e in events if e["kind"] == "rejected"] == [422]
    assert [e["seq"] for e in events if e["kind"] == "ack"] == [1]
    assert runner.metrics.value("dicecall_edge_publish_errors_total", kind="rejected") == 1
    assert runner.metrics.value("dicecall_edge_outbox_rejected") == 1


def test_a_wrong_table_403_is_retried_not_set_aside(tmp_path, service, kit):
    _, device, secret = service.table("craps")
    other, _, _ = service.table("craps")
    replay = tmp_path / "replay"
    write_replay(replay, kit.scenes(2), motion=3, still=8)
    cfg = kit.config(tmp_path, service, other, device, secret, replay)  # wrong table: 403
    events = []
    runner = EdgeRunner(cfg, on_event=events.append, reader=kit.Reader(FACES))
    stop = threading.Event()
    thread = _run_in_thread(runner, stop)
    deadline = time.monotonic() + 20
    while (sum(e["kind"] == "publish_error" for e in events) < 3
           or runner.outbox.depth() < 2) and time.monotonic() < deadline:
        time.sleep(0.05)
    status = runner.status()
    stop.set()
    thread.join(10)
    errors = [e for e in events if e["kind"] == "publish_error"]
    assert len(errors) >= 3 and all(e["error"].startswith("HTTP 403") for e in errors)
    assert not any(e["kind"] == "rejected" for e in events)
    assert status["outbox_depth"] == 2 and status["outbox_rejected"] == 0


def test_a_full_outbox_keeps_the_roll_without_jpegs_and_alarms(tmp_path, stopped_service, kit):
    svc = stopped_service
    replay = tmp_path / "replay"
    noisy = [np.random.default_rng(i).integers(0, 255, (480, 640, 3), np.uint8)
             for i in range(2)]
    write_replay(replay, noisy, motion=3, still=8, ext=".png")
    cfg = kit.config(tmp_path, svc, kit.TABLE, kit.DEVICE, "s" * 32, replay, drain_timeout_s=0,
                     outbox={"max_bytes": 1_000_000, "alarm_fraction": 0.5})
    events = []
    runner = EdgeRunner(cfg, on_event=events.append, reader=kit.Reader(FACES))
    runner.run(threading.Event())  # service down: both rolls stay in the outbox
    reads = [e for e in events if e["kind"] == "read"]
    assert [e["jpeg"] for e in reads] == [True, False]  # noise JPEGs ~2 x 400 kB each
    assert any(e["kind"] == "disk_alarm" for e in events)
    from dicecall.edge.outbox import Outbox

    box = Outbox(cfg.outbox.path, cfg.outbox.max_bytes, 0.5)
    assert box.depth() == 2 and box.used_bytes() <= cfg.outbox.max_bytes
    box.close()
