"""GET /v1/tables/{id}/device: the phase a signed edge device reads before each throw."""

from __future__ import annotations

import time

from dicecall.api.signing import sign


def _get(hb, table: str, device, path: str | None = None):
    path = path or f"/v1/tables/{table}/device"
    headers = sign(device[1], "GET", path, time.time(), b"", device_id=device[0])
    return hb.client.get(path, headers=headers)


def test_high_roll_phase_follows_the_extra_roll_675a_4_g(hb):
    table = hb.table("high-roll-dice")
    device = hb.device(table)
    first = _get(hb, table, device)
    assert first.status_code == 200, first.text
    assert first.json()["expected_dice"] == 10 and first.json()["extra_roll"] is False
    assert first.json()["last_seq"] is None
    for name, params in (("pip_street", {"face": 1}), ("like_kind", {"count": 5}),
                         ("extra_roll", {})):
        r = hb.wager(table, name, 1000, 0, **params)
        assert r.status_code == 201, r.text
    faces = (6, 6, 6, 6, 2, 3, 4, 5, 1, 2)  # four sixes held: six dice rethrown
    r = hb.post_roll(table, device, hb.body(7, faces, confidences=None) | {"confidences": []})
    assert r.status_code == 201, r.text
    assert "extra_roll:6" in r.json()["settlement"]["events"]
    state = _get(hb, table, device).json()
    assert state["extra_roll"] is True and state["expected_dice"] == 6
    assert state["held_face"] == 6 and state["held_count"] == 4 and state["last_seq"] == 7
    # Betting stays closed until the Extra Roll is settled (675a.4(e),(g)).
    assert state["betting_open"] is False
    current = hb.client.get(f"/v1/tables/{table}/rounds/current", headers=hb.auth())
    assert current.status_code == 200, current.text
    assert current.json()["betting_open"] is False


def test_craps_always_two_dice(hb):
    table = hb.table("craps")
    device = hb.device(table)
    state = _get(hb, table, device).json()
    assert state["game"] == "craps" and state["expected_dice"] == 2
    assert state["extra_roll"] is False


def test_unsigned_wrong_table_and_tampered_requests_are_refused(hb):
    table, other = hb.table("craps"), hb.table("craps")
    device = hb.device(table)
    assert hb.client.get(f"/v1/tables/{table}/device").status_code == 401
    assert _get(hb, other, device).status_code == 403
    path = f"/v1/tables/{table}/device"
    headers = sign(device[1], "GET", path + "?x=1", time.time(), b"", device_id=device[0])
    assert hb.client.get(path, headers=headers).status_code == 401
