"""Group commit of roll intakes (services/rolls.apply_batch, services/intake_writer.py), the
framework-free intake (api/fastpath.py) and the FIFO write lock of SQLite."""

from __future__ import annotations

import json
import threading
import time

from dicecall.api import audit
from dicecall.api.db.session import FairLock
from dicecall.api.errors import ApiError
from dicecall.api.security import AuthError
from dicecall.api.services import rolls as svc


def _posted(hb, device, table, body) -> svc.Posted:
    return svc.prepare(hb.settings, device[0], table, svc.RollIn.model_validate(body))


def _status(result) -> int:
    return result.status if isinstance(result, ApiError | AuthError) else result.status_code


def test_one_batch_applies_rolls_in_order_each_with_its_own_answer(hb):
    a, b = hb.table(), hb.table()
    dev_a, dev_b = hb.device(a), hb.device(b)
    assert hb.wager(a, "pass", 1000).status_code == 201
    first = hb.body(1, (1, 3))  # come-out 4: the point is set
    second = hb.body(2, (2, 2))  # the point made: pass wins, seen only after the first
    posts = [_posted(hb, dev_a, a, first), _posted(hb, dev_b, b, hb.body(1, (6, 6))),
             _posted(hb, dev_a, a, second),
             _posted(hb, dev_a, a, first),  # the same roll again: a replay
             _posted(hb, dev_a, a, {**second, "faces": [3, 3]}),  # known id, other body
             _posted(hb, dev_b, a, hb.body(2, (1, 1))),  # a device of another table
             _posted(hb, dev_a, "no-such-table", hb.body(3, (1, 1)))]
    results = svc.apply_batch(hb.db, posts)
    assert [_status(r) for r in results] == [201, 201, 201, 200, 409, 403, 404]
    assert results[3].body == results[0].body
    won = json.loads(results[2].body)["settlement"]["lines"]
    assert [(ln["name"], ln["result"], ln["paid"]) for ln in won] == [("pass", "win", 1000)]
    rolls = hb.client.get(f"/v1/tables/{a}/rolls", headers=hb.auth()).json()
    assert [r["seq"] for r in rolls] == [1, 2] and [r["round"] for r in rolls] == [1, 2]
    assert hb.client.get(f"/v1/tables/{a}/rounds/current",
                         headers=hb.auth()).json()["number"] == 3
    with hb.db.read() as session:
        assert audit.verify(session).ok


def test_a_duplicate_committed_meanwhile_rolls_the_batch_back_and_retries_alone(hb,
                                                                              monkeypatch):
    table = hb.table()
    device = hb.device(table)
    body = hb.body(1, (3, 4))
    done = svc.intake(hb.db, hb.settings, device[0], table, svc.RollIn.model_validate(body))
    real_init = svc.Batch.__init__

    def blind_once(self, conn, posts):  # as if another process committed after the read
        real_init(self, conn, posts)
        if len(posts) > 1:
            self.stored.clear()

    monkeypatch.setattr(svc.Batch, "__init__", blind_once)
    results = svc.apply_batch(hb.db, [_posted(hb, device, table, body),
                                      _posted(hb, device, table, hb.body(2, (2, 3)))])
    assert [_status(r) for r in results] == [200, 201]
    assert results[0].body == done.body
    assert len(hb.client.get(f"/v1/tables/{table}/rolls", headers=hb.auth()).json()) == 2


def test_fast_path_answers_like_the_route_and_passes_on_what_it_does_not_take(h,
                                                                             monkeypatch):
    from dicecall.api import fastpath

    taken = []
    real = fastpath.RollFastPath._check

    def spy(scope, table_id, raw):
        out = real(scope, table_id, raw)
        taken.append(out is not None)
        return out

    monkeypatch.setattr(fastpath.RollFastPath, "_check", staticmethod(spy))
    table = h.table()
    device = h.device(table)
    first = h.post_roll(table, device, h.body(1, (3, 3)))  # device not cached yet: the route
    body = h.body(2, (2, 3))
    second = h.post_roll(table, device, body)
    again = h.post_roll(table, device, body)
    conflict = h.post_roll(table, device, {**body, "faces": [6, 6]})
    assert taken == [False, True, True, True]
    assert (first.status_code, second.status_code, again.status_code) == (201, 201, 200)
    assert again.headers["Idempotent-Replayed"] == "true" and again.content == second.content
    assert second.json()["round"] == 2 and second.json()["sequence"]["status"] == "ok"
    assert conflict.status_code == 409 and conflict.json()["code"] == "roll_id_conflict"
    forged = h.post_roll(table, (device[0], "0" * 64), h.body(3))
    assert forged.status_code == 401 and forged.json()["code"] == "bad_signature"
    broken = h.post_roll(table, device, b'{"roll_id": ')
    assert broken.status_code == 422 and broken.json()["code"] == "invalid_request"
    assert taken[-2:] == [False, False]
    assert len(h.client.get(f"/v1/tables/{table}/rolls", headers=h.auth()).json()) == 2


def test_fair_lock_is_fifo_and_exclusive():
    lock, order, inside = FairLock(), [], []
    lock.__enter__()  # held while the waiters line up, one by one
    threads = []
    for i in range(8):
        def run(i=i):
            with lock:
                inside.append(i)
                assert len(inside) == 1
                order.append(i)
                inside.pop()
        t = threading.Thread(target=run)
        t.start()
        threads.append(t)
        deadline = time.monotonic() + 5
        while len(lock._gates) < i + 1 and time.monotonic() < deadline:
            time.sleep(0.001)
    lock.__exit__(None, None, None)
    for t in threads:
        t.join(5)
    assert order == list(range(8))


def test_response_text_splices_the_settlement_exactly():
    from types import SimpleNamespace

    from dicecall.api.services.rolls_batch import _response_text
    from dicecall.api.services.settle import roll_view

    row = SimpleNamespace(
        roll_id="r", table_id="t", device_id="d", seq=1, round_no=1, verdict="valid",
        status="settled", faces_json="[1,2]", final_faces_json="[1,2]", review_json=None,
        detail_json=json.dumps({"reasons": [{"code": 'x"settlement":null', "section": ""}],
                                "sequence": {"status": "ok"}}),
        settlement_json='{"faces":[1,2],"lines":[{"paid":5}],"paid":5}', received_at=1.5,
        settled_at=2.0)
    assert _response_text(row) == json.dumps(roll_view(row), separators=(",", ":"))
    assert row.settlement_json == '{"faces":[1,2],"lines":[{"paid":5}],"paid":5}'
