"""A roll_id is a UUID, whose hex digits are case-insensitive (RFC 9562): the service keys
rolls by the lower-case spelling, so an upper-case repost of a stored roll is its replay,
not a second settlement. On both backends."""

from __future__ import annotations

import uuid


def test_an_upper_case_repost_is_a_replay_not_a_second_settlement(hb):
    table = hb.table()
    device = hb.device(table)
    assert hb.wager(table, "pass", 1000).status_code == 201
    body = hb.body(1, (3, 4))
    first = hb.post_roll(table, device, body)
    assert first.status_code == 201 and first.json()["status"] == "settled"
    again = hb.post_roll(table, device, {**body, "roll_id": body["roll_id"].upper()})
    assert again.status_code == 200, again.text
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert again.json() == first.json()
    rolls = hb.client.get(f"/v1/tables/{table}/rolls", headers=hb.auth()).json()
    assert [r["roll_id"] for r in rolls] == [body["roll_id"]]
    changed = hb.post_roll(table, device, {**body, "roll_id": body["roll_id"].upper(),
                                           "faces": [2, 2]})
    assert changed.status_code == 409 and changed.json()["code"] == "roll_id_conflict"


def test_an_upper_case_roll_id_is_stored_and_found_in_lower_case(hb):
    table = hb.table()
    device = hb.device(table)
    roll_id = str(uuid.uuid4())
    r = hb.post_roll(table, device, hb.body(1, (3, 4), roll_id=roll_id.upper()))
    assert r.status_code == 201 and r.json()["roll_id"] == roll_id
    got = hb.client.get(f"/v1/rolls/{roll_id.upper()}", headers=hb.auth())
    assert got.status_code == 200 and got.json()["roll_id"] == roll_id
    call = hb.client.post(f"/v1/rolls/{roll_id.upper()}/dealer-call", headers=hb.auth(),
                          json={"total": 7})
    assert call.status_code == 201 and call.json()["roll_id"] == roll_id
