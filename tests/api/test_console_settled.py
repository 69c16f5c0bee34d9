"""The console offers Correct and No roll on a settled roll while it is the table's latest
change (623a.9(c)), and only then; the API still decides when the button is pressed."""

from __future__ import annotations

from .test_console import login


def _mismatch(h):
    """A Craps pass line won on a come-out 7 the dealer called 2; returns (table, roll id)."""
    table = h.table()
    device = h.device(table)
    assert h.wager(table, "pass", 1000).status_code == 201
    body = h.body(1, (3, 4))
    assert h.post_roll(table, device, body).json()["status"] == "settled"
    r = h.client.post(f"/v1/rolls/{body['roll_id']}/dealer-call", json={"total": 2},
                      headers=h.auth())
    assert r.json()["matches"] is False
    return table, body["roll_id"]


def test_a_settled_roll_that_is_the_latest_change_offers_correct_and_no_roll(h):
    table, roll_id = _mismatch(h)
    assert len(roll_id) == 36
    login(h, "surveillance")
    [alert] = h.client.get("/console/api/alerts").json()
    assert alert["roll"]["status"] == "settled" and alert["correctable"] is True
    # A wager after it: the dispute is settled at the table, the buttons go.
    assert h.wager(table, "field", 500).status_code == 201
    [alert] = h.client.get("/console/api/alerts").json()
    assert alert["correctable"] is False


def test_a_held_roll_offers_them_and_a_later_roll_takes_them_away(h):
    table = h.table()
    device = h.device(table)
    held = h.post_roll(table, device, h.body(1, (3, 4), verdict="needs_review")).json()
    login(h, "surveillance")
    [alert] = h.client.get("/console/api/alerts").json()
    assert (alert["ref"], alert["correctable"]) == (held["roll_id"], True)
    _, roll_id = _mismatch(h)  # another table: its own latest change
    h.post_roll(table, device, h.body(2, (5, 5)))  # queued behind the held roll
    by_roll = {a["roll"]["roll_id"]: a["correctable"]
               for a in h.client.get("/console/api/alerts").json()}
    assert by_roll == {held["roll_id"]: True, roll_id: True}


def test_the_refusal_names_what_came_after_when_the_offer_is_stale(h):
    table, _ = _mismatch(h)
    headers = login(h, "surveillance")
    [alert] = h.client.get("/console/api/alerts").json()
    assert alert["correctable"] is True
    assert h.wager(table, "field", 500).status_code == 201  # after the list was drawn
    r = h.client.post(f"/console/api/alerts/dealer_call/{alert['ref']}", headers=headers,
                      json={"action": "no_roll"})
    assert r.status_code == 409 and r.json()["code"] == "superseded"
    assert "a wager placed" in r.json()["message"]
    assert r.json()["section"] == "623a.9(c)"
