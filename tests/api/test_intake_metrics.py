"""Prometheus counters of the roll intake: made once per stored roll, after its commit.

A batch whose transaction fails is redone (the whole batch after a stale chain head, each
roll alone after any other failure); only the attempt that commits may count its rolls, and
a batch that never commits counts nothing. Replays count as replays, never as settlements.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from prometheus_client import REGISTRY
from sqlalchemy.exc import OperationalError

from dicecall.api.services import rolls as svc
from dicecall.api.services.rolls_pg import StaleHead

_COUNTED = ("dicecall_roll_intakes_total", "dicecall_settlements_total",
            "dicecall_settlement_lines_total", "dicecall_sequence_anomalies_total")


def _samples() -> Counter:
    out: Counter = Counter()
    for metric in REGISTRY.collect():
        for s in metric.samples:
            if s.name in _COUNTED:
                out[(s.name, *s.labels.values())] += s.value
    return out


def _delta(before: Counter) -> dict:
    after = _samples()
    return {k: after[k] - before[k] for k in after if after[k] != before[k]}


def _expected(results, game: str = "craps") -> Counter:
    """What the stored answers say should have been counted (new rolls only)."""
    out: Counter = Counter()
    for r in results:
        if r.status_code != 201:
            continue
        view = json.loads(r.body)
        if view["settlement"] is not None:
            out[("dicecall_settlements_total", game)] += 1
            for line in view["settlement"]["lines"]:
                out[("dicecall_settlement_lines_total", line["result"])] += 1
        if view["sequence"]["status"] not in ("ok", "first"):
            out[("dicecall_sequence_anomalies_total", view["sequence"]["status"])] += 1
    return out


def _fail_flush(monkeypatch, exc: Exception, times: int | None) -> list[int]:
    """The first `times` (None: every) Batch.flush raise `exc` before writing anything."""
    calls: list[int] = []
    real = svc.Batch.flush

    def flush(batch):
        calls.append(len(batch.rows))
        if times is None or len(calls) <= times:
            raise exc
        return real(batch)

    monkeypatch.setattr(svc.Batch, "flush", flush)
    return calls


def _batch(hb) -> list[svc.Posted]:
    table = hb.table()
    device = hb.device(table)
    assert hb.wager(table, "pass", 1000).status_code == 201
    first = hb.body(1, (1, 3))  # come-out 4: the point is set
    return [svc.prepare(hb.settings, device[0], table, svc.RollIn.model_validate(b))
            for b in (first, hb.body(2, (2, 2)),  # the point made: pass wins
                      hb.body(5, (3, 4)),  # seq 3 and 4 missing: a gap
                      first)]  # the same roll again: a replay


@pytest.mark.parametrize("error", [StaleHead(), OperationalError("COMMIT", {}, Exception())],
                         ids=["stale-head-whole-batch-again", "failure-each-roll-alone"])
def test_a_retried_batch_counts_its_rolls_once(hb, monkeypatch, error):
    posts = _batch(hb)
    before = _samples()
    calls = _fail_flush(monkeypatch, error, times=1)
    results = svc.apply_batch(hb.db, posts)
    assert len(calls) > 1  # really retried
    assert [r.status_code for r in results] == [201, 201, 201, 200]
    expected = _expected(results)
    assert expected[("dicecall_settlements_total", "craps")] == 3
    assert expected[("dicecall_sequence_anomalies_total", "gap")] == 1
    assert _delta(before) == expected
    # Posted again, every roll is a replay of its stored answer: nothing counts.
    before = _samples()
    assert [r.status_code for r in svc.apply_batch(hb.db, posts)] == [200] * 4
    assert _delta(before) == {}


def test_a_batch_that_never_commits_counts_nothing(hb, monkeypatch):
    posts = _batch(hb)
    before = _samples()
    calls = _fail_flush(monkeypatch, OperationalError("COMMIT", {}, Exception()), times=None)
    results = svc.apply_batch(hb.db, posts)
    assert len(calls) == 1 + len(posts)  # the batch, then each roll alone
    assert all(isinstance(r, OperationalError) for r in results)
    assert _delta(before) == {}
    with hb.db.read() as session:
        assert session.connection().exec_driver_sql("SELECT count(*) FROM rolls").scalar() == 0


def test_a_posted_roll_retried_by_the_writer_counts_once_and_its_replay_as_replay(
        hb, monkeypatch):
    table = hb.table()
    device = hb.device(table)
    body = hb.body(1, (6, 1))  # a natural: settled
    before = _samples()
    calls = _fail_flush(monkeypatch, StaleHead(), times=1)
    assert hb.post_roll(table, device, body).status_code == 201
    assert len(calls) == 2
    assert _delta(before) == {("dicecall_roll_intakes_total", "valid", "new"): 1,
                              ("dicecall_settlements_total", "craps"): 1}
    before = _samples()
    replay = hb.post_roll(table, device, body)
    assert replay.status_code == 200 and replay.headers["Idempotent-Replayed"] == "true"
    assert _delta(before) == {("dicecall_roll_intakes_total", "valid", "replay"): 1}


def test_a_review_counts_its_settlements_only_once_it_committed(h, monkeypatch):
    from dicecall.api.services import review

    table = h.table()
    device = h.device(table)
    held = h.post_roll(table, device, h.body(1, (3, 4), verdict="needs_review")).json()
    queued = h.post_roll(table, device, h.body(2, (6, 5))).json()  # settles after the review
    assert (held["status"], queued["status"]) == ("held", "queued")
    real = review.audit.append

    def fail_once(session, events):
        monkeypatch.setattr(review.audit, "append", real)
        raise OperationalError("COMMIT", {}, Exception())

    monkeypatch.setattr(review.audit, "append", fail_once)
    before = _samples()
    with pytest.raises(OperationalError):
        h.client.post(f"/v1/rolls/{held['roll_id']}/review", headers=h.auth("surveillance"),
                      json={"action": "confirm"})
    assert _delta(before) == {}
    r = h.client.post(f"/v1/rolls/{held['roll_id']}/review", headers=h.auth("surveillance"),
                      json={"action": "confirm"})
    assert r.status_code == 200 and r.json()["status"] == "settled"
    assert _delta(before) == {("dicecall_settlements_total", "craps"): 2}


def test_a_roll_whose_client_left_while_queued_counts_as_new_and_its_retry_as_replay(
        hb, monkeypatch):
    """The writer still applies a cancelled request's roll (intake_writer.py): it is counted
    when stored, and the device's retry is the replay."""
    import asyncio
    import threading
    import time

    from dicecall.api.events import Broker
    from dicecall.api.routes.rolls import accept

    table = hb.table()
    device = hb.device(table)
    body = hb.body(1, (6, 1))
    real, entered = svc.Batch.flush, threading.Event()

    def slow_flush(batch):
        entered.set()
        time.sleep(0.3)  # the client gives up meanwhile
        return real(batch)

    monkeypatch.setattr(svc.Batch, "flush", slow_flush)
    before = _samples()

    async def post_and_leave() -> None:
        task = asyncio.create_task(accept(hb.db, hb.settings, Broker(), device[0], table,
                                          svc.RollIn.model_validate(body)))
        await asyncio.get_running_loop().run_in_executor(None, entered.wait, 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        key = ("dicecall_roll_intakes_total", "valid", "new")
        for _ in range(200):  # until the writer answers the abandoned request (10 s at most)
            if key in _delta(before):
                break
            await asyncio.sleep(0.05)

    asyncio.run(post_and_leave())
    assert _delta(before) == {("dicecall_roll_intakes_total", "valid", "new"): 1,
                              ("dicecall_settlements_total", "craps"): 1}
    before = _samples()
    retry = hb.post_roll(table, device, body)
    assert retry.status_code == 200 and retry.headers["Idempotent-Replayed"] == "true"
    assert _delta(before) == {("dicecall_roll_intakes_total", "valid", "replay"): 1}
