"""/healthz and /metrics of a running edge, and 503 while the camera is down."""

from __future__ import annotations

import threading
import time

import httpx

from dicecall.edge.replaykit import write_replay
from dicecall.edge.runner import EdgeRunner
from dicecall.edge.sources import CameraError


def _wait(predicate, timeout=15.0):
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.05)
    return predicate()


def test_healthz_and_metrics_while_running(tmp_path, service, kit):
    table, device, secret = service.table("craps")
    replay = tmp_path / "replay"
    write_replay(replay, kit.scenes(2), motion=3, still=8)
    cfg = kit.config(tmp_path, service, table, device, secret, replay,
                     source={"kind": "replay", "path": str(replay), "speed": 1.0,
                             "loop": True},
                     health={"port": 0})
    events = []
    runner = EdgeRunner(cfg, on_event=events.append, reader=kit.Reader([(1, 1)]))
    stop = threading.Event()
    thread = threading.Thread(target=runner.run, args=(stop,), daemon=True)
    thread.start()
    try:
        assert _wait(lambda: sum(e["kind"] == "ack" for e in events) >= 2)
        health = httpx.get(runner.health_url + "/healthz")
        assert health.status_code == 200, health.text
        body = health.json()
        assert body["ok"] and body["camera"] == "up" and body["service"] == "up"
        metrics = httpx.get(runner.health_url + "/metrics").text
        for name in ("dicecall_edge_frames_total", "dicecall_edge_reads_total{verdict=\"valid\"}",
                     "dicecall_edge_settle_to_ack_seconds_count", "dicecall_edge_outbox_depth",
                     "dicecall_edge_camera_errors_total", "dicecall_edge_read_seconds_bucket"):
            assert name in metrics, name
        frames = [line for line in metrics.splitlines()
                  if line.startswith("dicecall_edge_frames_total")]
        assert float(frames[0].split()[-1]) > 20
        assert httpx.get(runner.health_url + "/nope").status_code == 404
    finally:
        stop.set()
        thread.join(10)


class DeadCamera:
    finite = False

    def open(self):
        raise CameraError("no camera on /dev/video0")

    def frames(self):
        return iter(())

    def close(self):
        pass


def test_healthz_is_503_while_the_camera_is_down(tmp_path, kit):
    svc = kit.Service(tmp_path)
    cfg = kit.config(tmp_path, svc, kit.TABLE, kit.DEVICE, "s" * 32, tmp_path, health={"port": 0},
                     source={"kind": "opencv", "uri": "/nonexistent/video0"})
    events = []
    runner = EdgeRunner(cfg, on_event=events.append, reader=kit.Reader([(1, 1)]),
                        source=DeadCamera())
    stop = threading.Event()
    thread = threading.Thread(target=runner.run, args=(stop,), daemon=True)
    thread.start()
    try:
        assert _wait(lambda: any(e["kind"] == "camera_error" for e in events))
        health = httpx.get(runner.health_url + "/healthz")
        assert health.status_code == 503 and health.json()["camera"] == "down"
    finally:
        stop.set()
        thread.join(10)


def test_opencv_source_reports_a_camera_that_cannot_open():
    from dicecall.edge.sources import OpenCVSource

    source = OpenCVSource("/nonexistent/stream.mp4")
    try:
        source.open()
        raise AssertionError("opened a missing file")
    except CameraError as exc:
        assert "/nonexistent/stream.mp4" in str(exc)
