"""The audit chain on both backends (edited, inserted, deleted rows are named), dealer
calls against the camera, the catalog, health and metrics."""

from __future__ import annotations

from sqlalchemy import text

from dicecall.api import audit


def _activity(hb):
    table = hb.table()
    device = hb.device(table)
    hb.wager(table, "pass", 1000)
    for seq, faces in enumerate([(2, 4), (3, 3), (1, 1)], start=1):
        assert hb.post_roll(table, device, hb.body(seq, faces)).status_code == 201
    return table


def _verify(hb) -> audit.Report:
    with hb.db.read() as session:
        return audit.verify(session)


def test_untouched_chain_verifies(hb):
    _activity(hb)
    report = _verify(hb)
    assert report.ok and report.checked >= 10


def test_edited_row_is_named(hb):
    _activity(hb)
    with hb.db.write() as session:
        session.execute(text("UPDATE events SET payload = replace(payload, '\"faces\":[3,3]',"
                             " '\"faces\":[3,4]') WHERE id = 9"))
    problems = _verify(hb).problems
    assert problems and "event 9: contents edited" in problems[0]


def test_deleted_row_is_named(hb):
    _activity(hb)
    with hb.db.write() as session:
        session.execute(text("DELETE FROM events WHERE id = 5"))
    problems = " | ".join(_verify(hb).problems)
    assert "events 5..5 missing (deleted)" in problems
    assert "event 6: its predecessor hash does not match" in problems


def test_deleted_tail_is_named(hb):
    _activity(hb)
    with hb.db.write() as session:
        last = session.execute(text("SELECT max(id) FROM events")).scalar()
        session.execute(text(f"DELETE FROM events WHERE id = {last}"))
    assert f"events {last}..{last} deleted" in " ".join(_verify(hb).problems)


def _forge(session, event_id: int, prev: str) -> None:
    digest = audit.link_hash(event_id, None, "note", "{}", 1.0, prev)
    session.execute(text("INSERT INTO events (id, table_id, kind, payload, created_at, "
                         "prev_hash, hash) VALUES (:i, NULL, 'note', '{}', 1.0, :p, :h)"),
                    {"i": event_id, "p": prev, "h": digest})


def test_row_appended_past_the_head_is_named(hb):
    _activity(hb)
    with hb.db.write() as session:
        last, prev = session.execute(text(
            "SELECT id, hash FROM events ORDER BY id DESC LIMIT 1")).one()
        _forge(session, last + 1, prev)
    problems = " | ".join(_verify(hb).problems)
    assert f"events {last + 1}..{last + 1} inserted after the chain head" in problems


def test_row_inserted_in_the_middle_is_named(hb):
    _activity(hb)
    with hb.db.write() as session:
        # Make room after event 5 (two steps: the primary key is checked row by row).
        session.execute(text("UPDATE events SET id = -id WHERE id > 5"))
        session.execute(text("UPDATE events SET id = 1 - id WHERE id < 0"))
        prev = session.execute(text("SELECT hash FROM events WHERE id = 5")).scalar()
        _forge(session, 6, prev)
    problems = " | ".join(_verify(hb).problems)
    assert "event 7: its predecessor hash does not match event 6" in problems


def test_dealer_call_mismatch_raises_an_alert(h):
    table = h.table()
    device = h.device(table)
    roll = h.post_roll(table, device, h.body(1, (3, 4))).json()
    ok = h.client.post(f"/v1/rolls/{roll['roll_id']}/dealer-call", headers=h.auth(),
                       json={"total": 7, "dealer": "stick"})
    assert ok.status_code == 201 and ok.json()["matches"] is True
    bad = h.client.post(f"/v1/rolls/{roll['roll_id']}/dealer-call", headers=h.auth(),
                        json={"faces": [4, 4]})
    assert bad.status_code == 201 and bad.json()["matches"] is False
    alerts = h.client.get("/v1/alerts", params={"table": table},
                          headers=h.auth("surveillance")).json()
    assert [a["id"] for a in alerts] == [bad.json()["id"]]
    stream = h.client.get("/v1/events", params={"follow": "false",
                                                 "kinds": "dealer_call_mismatch"},
                          headers=h.auth()).text
    assert stream.count("event: dealer_call_mismatch") == 1
    assert "dicecall_dealer_call_mismatches_total" in h.client.get("/metrics").text


def test_dealer_call_on_an_unknown_roll_is_404(h):
    r = h.client.post("/v1/rolls/00000000-0000-4000-8000-000000000000/dealer-call",
                      headers=h.auth(), json={"no_roll": True})
    assert r.status_code == 404


def test_catalog_health_metrics(h):
    r = h.client.get("/v1/catalog/props-and-hops", headers=h.auth())
    assert r.status_code == 200
    names = {e["name"] for e in r.json()}
    assert {"field", "six_eight_shake"} <= names
    assert all(e["section"].startswith("668a") for e in r.json())
    assert h.client.get("/v1/catalog/poker", headers=h.auth()).status_code == 422
    assert h.client.get("/healthz").json() == {"status": "ok", "database": "ok"}
    metrics = h.client.get("/metrics").text
    for name in ("dicecall_roll_intakes_total", "dicecall_settlements_total",
                 "dicecall_roll_intake_seconds", "dicecall_sequence_anomalies_total"):
        assert name in metrics
