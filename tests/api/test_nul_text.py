"""Free text a person or a device sends holds no NUL: PostgreSQL's text refuses it, so it was
a 500 there (and stored on SQLite). Names are one line of visible text."""

from __future__ import annotations

import pytest


def test_a_table_or_device_name_with_a_nul_or_a_newline_is_refused(hb):
    for name in ("pit\x001", "pit\n1"):
        r = hb.client.post("/v1/tables", json={"game": "craps", "name": name},
                           headers=hb.auth("admin"))
        assert r.status_code == 422, r.text
    table = hb.table()
    r = hb.client.post(f"/v1/tables/{table}/devices", json={"name": "cam\x00"},
                       headers=hb.auth("admin"))
    assert r.status_code == 422, r.text


@pytest.mark.parametrize("reason", [{"code": "cocked\x00", "section": "668a.3(h)"},
                                    {"code": "cocked", "section": "668a\x00"}])
def test_a_roll_whose_reason_holds_a_nul_is_refused_and_the_next_one_settles(hb, reason):
    table = hb.table()
    device = hb.device(table)
    r = hb.post_roll(table, device, hb.body(1, (3, 4), verdict="no_roll", reasons=[reason]))
    assert r.status_code == 422, r.text
    assert hb.post_roll(table, device, hb.body(1, (3, 4))).json()["status"] == "settled"


def test_a_review_note_or_dealer_name_with_a_nul_is_refused(hb):
    table = hb.table()
    device = hb.device(table)
    held = hb.post_roll(table, device, hb.body(1, (3, 4), verdict="needs_review")).json()
    r = hb.client.post(f"/v1/rolls/{held['roll_id']}/review", headers=hb.auth("surveillance"),
                       json={"action": "confirm", "note": "ok\x00"})
    assert r.status_code == 422, r.text
    r = hb.client.post(f"/v1/rolls/{held['roll_id']}/review", headers=hb.auth("surveillance"),
                       json={"action": "confirm", "note": "two lines\nare fine"})
    assert r.status_code == 200, r.text


def test_a_dealer_name_must_be_one_line(hb):
    table = hb.table()
    device = hb.device(table)
    roll = hb.post_roll(table, device, hb.body(1, (3, 4))).json()
    r = hb.client.post(f"/v1/rolls/{roll['roll_id']}/dealer-call", headers=hb.auth(),
                       json={"faces": [3, 4], "dealer": "stick\x002"})
    assert r.status_code == 422, r.text
    r = hb.client.post(f"/v1/rolls/{roll['roll_id']}/dealer-call", headers=hb.auth(),
                       json={"faces": [3, 4], "dealer": "stick 2"})
    assert r.status_code == 201, r.text
