"""High Roll: a throw read while its phase is unknown is in the outbox at once (held), so a
kill -9 during the wait for the phase (up to high_roll_wait_s) does not lose it."""

from __future__ import annotations

import json
import sqlite3
import threading
import time

from dicecall.edge.outbox import Outbox
from dicecall.edge.replaykit import write_replay
from dicecall.edge.runner import EdgeRunner

THROW = (6, 6, 6, 6, 2, 3, 4, 5, 1, 2)


def _snapshot(src, dst) -> None:
    """What a kill -9 leaves on disk: the committed state of the outbox at this instant."""
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)


def test_a_throw_waiting_for_its_phase_is_stored_and_survives_a_kill(tmp_path, kit):
    # The service takes the roll but never says where the table stands (GET device is not
    # answered), so the phase stays unknown for the whole high_roll_wait_s.
    svc = kit.FakeService(lambda n: (201, json.dumps({"status": "held"}).encode()))
    replay = tmp_path / "replay"
    write_replay(replay, kit.scenes(1), motion=3, still=8)
    cfg = kit.config(tmp_path, svc, kit.TABLE, kit.DEVICE, "s" * 32, replay,
                     game="high-roll-dice", high_roll_wait_s=3)
    events: list = []
    runner = EdgeRunner(cfg, on_event=events.append, reader=kit.Reader([THROW]))
    thread = threading.Thread(target=runner.run, args=(threading.Event(),), daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while runner._pending is None and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert runner._pending is not None, "the throw never waited for its phase"
    crashed = tmp_path / "crashed.db"
    _snapshot(cfg.outbox.path, crashed)
    assert not svc.posts  # held: not sent while the phase may still become known
    thread.join(20)
    svc.close()
    # the edge that did not crash: the held row got its body and was sent once
    assert [e["phase"] for e in events if e["kind"] == "read"] == ["unknown"]
    assert len(svc.posts) == 1
    sent = json.loads(svc.posts[0])
    # the edge restarted on the outbox a kill -9 left: the throw is there, sent for review
    box = Outbox(crashed, 10**8, 0.8)
    head = box.head()
    box.close()
    assert head is not None and head.seq == sent["seq"]
    body = json.loads(head.body)
    assert body["verdict"] == "needs_review" and body["faces"] == list(THROW)
    assert [r["code"] for r in body["reasons"]] == ["phase_unknown"]
