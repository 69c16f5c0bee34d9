"""Against a live uvicorn on loopback: concurrent duplicate rolls (both backends) and the
event stream resumed with Last-Event-ID."""

from __future__ import annotations

import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
import uvicorn

from dicecall.api.app import create_app
from dicecall.api.services import rolls as roll_service
from dicecall.api.signing import sign


@pytest.fixture
def live(hb):
    """Serves the harness's app (same database) on a free loopback port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(hb.settings, db=hb.db)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    yield hb, f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(5)


def _signed_post(base: str, table: str, device, raw: bytes) -> httpx.Response:
    path = f"/v1/tables/{table}/rolls"
    headers = {**sign(device[1], "POST", path, time.time(), raw, device_id=device[0]),
               "Content-Type": "application/json"}
    return httpx.post(base + path, content=raw, headers=headers, timeout=30)


def test_concurrent_duplicates_over_http_settle_once(live):
    hb, base = live
    table = hb.table()
    device = hb.device(table)
    hb.wager(table, "pass", 1000)
    raw = json.dumps(hb.body(1, (5, 6))).encode()
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: _signed_post(base, table, device, raw), range(16)))
    codes = sorted(r.status_code for r in answers)
    assert codes.count(201) == 1 and codes.count(200) == 15, codes
    assert len({r.content for r in answers}) == 1
    rolls = hb.client.get(f"/v1/tables/{table}/rolls", headers=hb.auth()).json()
    assert len(rolls) == 1
    settlements = hb.client.get("/v1/events", headers=hb.auth(), params={
        "table": table, "kinds": "settlement", "follow": "false"}).text
    assert settlements.count("event: settlement") == 1


def test_concurrent_duplicates_at_the_storage_layer(hb):
    """Threads call the intake directly: the table lock serializes them."""
    table = hb.table()
    device = hb.device(table)
    roll = roll_service.RollIn.model_validate(hb.body(1, (2, 2)))
    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda _: roll_service.intake(
            hb.db, hb.settings, device[0], table, roll), range(12)))
    assert sum(not r.replayed for r in results) == 1
    assert len({r.body for r in results}) == 1


def _read_events(base: str, headers: dict, count: int, params: dict) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    with httpx.stream("GET", base + "/v1/events", headers=headers, params=params,
                      timeout=30) as r:
        assert r.status_code == 200
        event_id = None
        for line in r.iter_lines():
            if line.startswith("id: "):
                event_id = int(line[4:])
            elif line.startswith("event: "):
                out.append((event_id, line[7:]))
                if len(out) == count:
                    break
    return out


def test_sse_resume_with_last_event_id_misses_nothing(live):
    hb, base = live
    table = hb.table()
    device = hb.device(table)
    auth = hb.auth("surveillance")
    for seq in (1, 2):
        _signed_post(base, table, device, json.dumps(hb.body(seq, (2, 3))).encode())
    first = _read_events(base, auth, 2, {"table": table})
    assert [kind for _, kind in first] == ["roll", "settlement"]
    # Disconnected: more rolls happen, then the client resumes from the last id it saw.
    for seq in (3, 4):
        _signed_post(base, table, device, json.dumps(hb.body(seq, (4, 4))).encode())
    resumed = _read_events(base, {**auth, "Last-Event-ID": str(first[-1][0])}, 6,
                           {"table": table})
    ids = [i for i, _ in resumed]
    assert ids == sorted(ids) and ids[0] > first[-1][0]
    assert [k for _, k in resumed] == ["roll", "settlement"] * 3
    # live: an event written after the stream is open arrives without reconnecting
    got: list = []
    reader = threading.Thread(target=lambda: got.extend(_read_events(
        base, {**auth, "Last-Event-ID": str(ids[-1])}, 2, {"table": table})))
    reader.start()
    time.sleep(0.5)
    _signed_post(base, table, device, json.dumps(hb.body(5, (1, 2))).encode())
    reader.join(10)
    assert [k for _, k in got] == ["roll", "settlement"]


def test_same_roll_id_for_two_tables_hits_the_primary_key(hb):
    """Two tables do not share a lock: the unique key alone keeps the roll_id unique."""
    tables = [hb.table(), hb.table()]
    devices = [hb.device(t) for t in tables]
    body = hb.body(1, (3, 3))
    roll = roll_service.RollIn.model_validate(body)

    def post(i: int):
        try:
            return roll_service.intake(hb.db, hb.settings, devices[i % 2][0], tables[i % 2],
                                       roll).status_code
        except roll_service.ApiError as exc:
            return exc.status

    with ThreadPoolExecutor(4) as pool:
        codes = sorted(pool.map(post, range(8)))
    assert codes.count(201) == 1
    assert set(codes) <= {200, 201, 409}
