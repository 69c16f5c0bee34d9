"""The publisher thread survives what one iteration throws at it, and /healthz says when
rolls are not going out (a dead publisher, or the oldest pending roll too old)."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from dicecall.edge.outbox import Outbox
from dicecall.edge.publisher import Publisher, SignedClient
from dicecall.edge.runner import EdgeRunner

SETTLED = (201, b'{"status": "settled"}')


class FakeService:
    """Answers POSTs with `answer(n)` -> (status, raw body); n counts from 1."""

    def __init__(self, answer) -> None:
        self.posts: list[bytes] = []
        svc = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                svc.posts.append(body)
                status, out = answer(len(svc.posts))
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _outbox(tmp_path, n: int) -> Outbox:
    box = Outbox(tmp_path / "outbox.db", 10**8, 0.8)
    for seq in range(n):
        box.put(seq, f"roll-{seq}", json.dumps({"roll_id": f"roll-{seq}"}).encode(),
                time.time())
    return box


def _drain(box: Outbox, svc: FakeService, timeout: float = 10.0):
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


def test_a_bare_json_string_answer_is_retried_not_fatal(tmp_path):
    # a gateway answers 503 with the JSON string "Service Unavailable"
    svc = FakeService(lambda n: (503, b'"Service Unavailable"') if n == 1 else SETTLED)
    box = _outbox(tmp_path, 2)
    alive, acks, errors, _ = _drain(box, svc)
    svc.close()
    assert alive and acks == [0, 1] and box.depth() == 0
    assert errors == ["HTTP 503: Service Unavailable"]


def test_a_locked_outbox_database_is_retried_and_the_thread_lives_on(tmp_path):
    svc = FakeService(lambda n: SETTLED)
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


def _runner(tmp_path, kit, svc_url: str, **health) -> EdgeRunner:
    (tmp_path / "frames.csv").write_text("file,t_ms\n")
    svc = type("Svc", (), {"url": svc_url})
    cfg = kit.config(tmp_path, svc, "t1", "d1", "s" * 32, tmp_path,
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
    svc = FakeService(lambda n: (503, b'{"message": "down"}'))
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
    svc = FakeService(lambda n: SETTLED)
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
