"""The publisher: which answers set a roll aside, a thread that survives what one iteration
throws at it, /healthz when rolls are not going out, and sending refused rolls again."""

from __future__ import annotations

import json
import sqlite3
import threading
import time

import httpx
import pytest

from dicecall.edge.outbox import Outbox
from dicecall.edge.publisher import Publisher, SignedClient
from dicecall.edge.runner import EdgeRunner

SETTLED = (201, b'{"status": "settled"}')


def _outbox(tmp_path, n: int) -> Outbox:
    box = Outbox(tmp_path / "outbox.db", 10**8, 0.8)
    for seq in range(n):
        box.put(seq, f"roll-{seq}", json.dumps({"roll_id": f"roll-{seq}"}).encode(),
                time.time())
    return box


def _drain(box: Outbox, svc, timeout: float = 10.0):
    acks, errors, rejects = [], [], []
    pub = Publisher(box, SignedClient(svc.url, "d1", "s" * 32), "t1", backoff_initial_s=0.02,
                    backoff_max_s=0.1, on_ack=lambda item, *a: acks.append(item.seq),
                    on_error=lambda item, why, d: errors.append(why),
                    on_reject=lambda item, *a: rejects.append(item.seq))
    stop = threading.Event()
    thread = threading.Thread(target=pub.run, args=(stop,), daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while box.depth() and time.monotonic() < deadline:
        time.sleep(0.02)
    alive = thread.is_alive()
    stop.set()
    thread.join(5)
    return alive, acks, errors, rejects


def test_a_bare_json_string_answer_is_retried_not_fatal(tmp_path, kit):
    # a gateway answers 503 with the JSON string "Service Unavailable"
    svc = kit.FakeService(lambda n: (503, b'"Service Unavailable"') if n == 1 else SETTLED)
    box = _outbox(tmp_path, 2)
    alive, acks, errors, _ = _drain(box, svc)
    svc.close()
    assert alive and acks == [0, 1] and box.depth() == 0
    assert errors == ["HTTP 503: Service Unavailable"]


def test_a_locked_outbox_database_is_retried_and_the_thread_lives_on(tmp_path, kit):
    svc = kit.FakeService(lambda n: SETTLED)
    box = _outbox(tmp_path, 3)
    real_done, calls = box.done, []

    def locked_once(*args, **kwargs):
        calls.append(args)
        if len(calls) == 1:
            raise sqlite3.OperationalError("database is locked")
        return real_done(*args, **kwargs)

    box.done = locked_once
    alive, acks, _, _ = _drain(box, svc)
    svc.close()
    assert alive and acks == [0, 1, 2] and box.depth() == 0
    # the roll whose bookkeeping failed was posted again (the service answers a repeat)
    assert [json.loads(b)["roll_id"] for b in svc.posts] == ["roll-0", "roll-0", "roll-1",
                                                             "roll-2"]


@pytest.mark.parametrize("status", [400, 403, 404, 405, 503])
def test_a_passing_refusal_that_is_not_of_the_body_is_retried(tmp_path, kit, status):
    # a proxy during a deploy, a table not yet restored: two refusals, then the service is back
    answer = b'{"code": "unknown_table", "message": "no table t1"}'
    svc = kit.FakeService(lambda n: (status, answer) if n <= 2 else SETTLED)
    box = _outbox(tmp_path, 3)
    _, acks, errors, rejects = _drain(box, svc)
    svc.close()
    assert acks == [0, 1, 2] and rejects == [] and box.rejected_count() == 0
    assert errors == [f"HTTP {status}: no table t1"] * 2


@pytest.mark.parametrize("status", [409, 422])
def test_a_refusal_of_the_body_is_set_aside_and_can_be_sent_again(tmp_path, kit, status):
    svc = kit.FakeService(lambda n: (status, b'{"code": "x", "message": "no"}') if n == 1
                          else SETTLED)
    box = _outbox(tmp_path, 2)
    _, acks, _, rejects = _drain(box, svc)
    assert rejects == [0] and acks == [1] and box.depth() == 0
    assert [(seq, roll) for seq, roll, _ in box.rejected()] == [(0, "roll-0")]
    assert box.requeue() == 1 and box.rejected_count() == 0
    _, acks, _, _ = _drain(box, svc)
    svc.close()
    assert acks == [0] and box.depth() == 0


def test_requeue_from_the_command_line(tmp_path, kit):
    from typer.testing import CliRunner

    from dicecall.cli import app

    box = _outbox(tmp_path, 3)
    for seq in (0, 2):
        box.done(seq, {"status": 409, "code": "roll_id_conflict"}, rejected=True)
    box.done(1, None)
    box.close()
    (tmp_path / "t.yaml").write_text(
        f"table_id: {kit.TABLE}\ndevice_id: {kit.DEVICE}\ndevice_secret: {'s' * 32}\n"
        "service_url: http://127.0.0.1:9\ngame: craps\nsource: {kind: replay, path: .}\n"
        "outbox: {path: outbox.db}\n")
    cli = CliRunner()
    listed = cli.invoke(app, ["edge", "requeue", "-c", str(tmp_path / "t.yaml"), "--list"])
    assert listed.exit_code == 0, listed.output
    assert "seq 0 roll roll-0" in listed.output and "roll_id_conflict" in listed.output
    assert "2 rejected" in listed.output
    one = cli.invoke(app, ["edge", "requeue", "-c", str(tmp_path / "t.yaml"), "--seq", "2"])
    assert one.exit_code == 0 and "1 requeued" in one.output
    box = Outbox(tmp_path / "outbox.db", 10**8, 0.8)
    assert [seq for seq, _, _ in box.rejected()] == [0] and box.head().seq == 2
    box.close()


def _runner(tmp_path, kit, svc_url: str, **health) -> EdgeRunner:
    (tmp_path / "frames.csv").write_text("file,t_ms\n")
    svc = type("Svc", (), {"url": svc_url})
    cfg = kit.config(tmp_path, svc, kit.TABLE, kit.DEVICE, "s" * 32, tmp_path,
                     health={"port": 0, **health},
                     source={"kind": "replay", "path": str(tmp_path), "speed": 0})
    return EdgeRunner(cfg, reader=kit.Reader([(1, 1)]))


class _LiveCamera:
    """Never ends: a still frame every 20 ms, so the camera is up throughout."""

    finite = False

    def __init__(self, kit) -> None:
        self.image = kit.scenes(1)[0]

    def open(self):
        pass

    def frames(self):
        from dicecall.edge.sources import Frame, lores_grey

        t = 0.0
        while True:
            time.sleep(0.02)
            t += 0.02
            yield Frame(t, time.time(), self.image, lores_grey(self.image, 160), "live")

    def close(self):
        pass


def _health(runner, kit, stop, thread, predicate):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if runner.health_url and predicate(httpx.get(runner.health_url + "/healthz")):
            break
        time.sleep(0.05)
    answer = httpx.get(runner.health_url + "/healthz")
    stop.set()
    thread.join(10)
    return answer


@pytest.mark.parametrize("fault", ["publisher_dead", "pending_too_old"])
def test_healthz_is_503_when_rolls_are_not_going_out(tmp_path, kit, fault):
    svc = kit.FakeService(lambda n: (503, b'{"message": "down"}'))
    runner = _runner(tmp_path, kit, svc.url, pending_max_age_s=0.3)
    runner.source = _LiveCamera(kit)
    if fault == "publisher_dead":
        runner.publisher.run = lambda stop: None  # the thread ends at once
    runner.outbox.put(0, "roll-0", b'{"roll_id": "roll-0"}', time.time())
    stop = threading.Event()
    thread = threading.Thread(target=runner.run, args=(stop,), daemon=True)
    thread.start()
    answer = _health(runner, kit, stop, thread, lambda r: r.status_code == 503)
    svc.close()
    body = answer.json()
    assert answer.status_code == 503 and body["camera"] == "up" and not body["ok"]
    if fault == "publisher_dead":
        assert body["publisher"] == "dead"
    else:
        assert body["publisher"] == "alive" and body["oldest_pending_age_s"] > 0.3


def test_healthz_is_200_while_the_publisher_runs_and_nothing_is_old(tmp_path, kit):
    svc = kit.FakeService(lambda n: SETTLED)
    runner = _runner(tmp_path, kit, svc.url)
    runner.source = _LiveCamera(kit)
    stop = threading.Event()
    thread = threading.Thread(target=runner.run, args=(stop,), daemon=True)
    thread.start()
    answer = _health(runner, kit, stop, thread, lambda r: r.status_code == 200)
    svc.close()
    body = answer.json()
    assert answer.status_code == 200, body
    assert body["publisher"] == "alive" and body["oldest_pending_age_s"] is None
