"""kill -9 of the edge process while it publishes, then a restart: no roll lost, none twice.

The edge runs as `dicecall edge run --config` (a real process with the real ONNX reader)
against a live service on loopback that answers each roll intake 0.5 s late, so rolls pile
up in the outbox and a POST is in flight when the process is killed.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import yaml

from dicecall.edge.replaykit import write_replay

THROWS = 8


def _start(config: Path, log: Path) -> subprocess.Popen:
    exe = Path(sys.executable).parent / "dicecall"
    return subprocess.Popen([str(exe), "edge", "run", "--config", str(config)],
                            stdout=log.open("ab"), stderr=subprocess.STDOUT)


def _pending(path: Path) -> int:
    if not path.exists():
        return 0
    with sqlite3.connect(path, timeout=5) as db:
        try:
            return db.execute("SELECT COUNT(*) FROM rolls WHERE state='pending'").fetchone()[0]
        except sqlite3.OperationalError:  # not created yet
            return 0


def test_kill_9_mid_publish_then_restart_loses_nothing_and_settles_once(tmp_path, service,
                                                                         kit):
    table, device, secret = service.table("craps")
    service.wager(table, "pass", 1000)
    replay = tmp_path / "replay"
    write_replay(replay, kit.scenes(THROWS, seed=11), motion=3, still=8)
    config = tmp_path / "table.yaml"
    config.write_text(yaml.safe_dump({
        "table_id": table, "device_id": device, "device_secret": secret,
        "service_url": service.url, "game": "craps",
        "source": {"kind": "replay", "path": "replay", "speed": 1.0},
        "settle": {"frames": 4, "ms": 100, "min_after_motion_ms": 100},
        "outbox": {"path": "outbox.db", "send_jpeg": True},
        "publisher": {"backoff_initial_s": 0.05, "backoff_max_s": 0.5},
        "health": {"port": None}, "reader": {"threads": 1}, "drain_timeout_s": 60}))
    service.delay_s = 0.5
    log = tmp_path / "edge.log"
    proc = _start(config, log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # kill with rolls acknowledged AND rolls waiting
        assert proc.poll() is None, log.read_text()
        if len(service.rolls(table)) >= 2 and _pending(tmp_path / "outbox.db") >= 2:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    pending = _pending(tmp_path / "outbox.db")
    before = len(service.rolls(table))
    assert pending >= 1, "the kill should land with rolls still to publish"
    assert before < THROWS

    proc = _start(config, log)  # the replay resumes after the last frame read
    assert proc.wait(120) == 0, log.read_text()
    stored = service.rolls(table)
    assert [r["seq"] for r in stored] == list(range(THROWS)), log.read_text()
    assert len({r["roll_id"] for r in stored}) == THROWS
    assert {r["sequence"]["status"] for r in stored} <= {"first", "ok"}  # no repeat, no gap
    with sqlite3.connect(tmp_path / "outbox.db") as db:
        assert db.execute("SELECT COUNT(*) FROM rolls").fetchone()[0] == 0
    lines = log.read_text().splitlines()
    assert any('"msg": "roll read"' in line for line in lines)  # structured JSON logs


def test_sigterm_stops_cleanly_and_keeps_what_is_unsent(tmp_path, kit):
    svc = kit.Service(tmp_path)  # never started: every roll waits in the outbox
    replay = tmp_path / "replay"
    write_replay(replay, kit.scenes(3, seed=4), motion=3, still=8)
    config = tmp_path / "table.yaml"
    config.write_text(yaml.safe_dump({
        "table_id": kit.TABLE, "device_id": kit.DEVICE, "device_secret": "s" * 32,
        "service_url": svc.url, "game": "craps",
        "source": {"kind": "replay", "path": "replay", "speed": 1.0, "loop": True},
        "outbox": {"path": "outbox.db"}, "health": {"port": None},
        "reader": {"threads": 1}, "log_json": True}))
    log = tmp_path / "edge.log"
    proc = _start(config, log)
    deadline = time.monotonic() + 60
    while '"msg": "roll read"' not in log.read_text() and time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text()
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(20) == 0, log.read_text()
    assert '"msg": "edge stopped"' in log.read_text()
    with sqlite3.connect(tmp_path / "outbox.db") as db:
        assert db.execute("SELECT COUNT(*) FROM rolls WHERE state='pending'").fetchone()[0] >= 1
