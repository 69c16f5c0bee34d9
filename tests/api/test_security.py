"""Device signatures (forged, stale, future, replayed), table binding, bearer roles, and
secrets that never appear in responses or logs."""

from __future__ import annotations

import json
import logging
import time

from dicecall.api.signing import sign


def _setup(h):
    table = h.table()
    return table, h.device(table)


def test_forged_signature_is_401(h):
    table, (device_id, _) = _setup(h)
    r = h.post_roll(table, (device_id, "0" * 64), h.body(1))
    assert r.status_code == 401 and r.json()["code"] == "bad_signature"


def test_stale_and_future_timestamps_are_401(h):
    table, device = _setup(h)
    stale = h.post_roll(table, device, h.body(1), ts=time.time() - 31)
    assert stale.status_code == 401 and stale.json()["code"] == "stale_request"
    future = h.post_roll(table, device, h.body(1), ts=time.time() + 31)
    assert future.status_code == 401 and future.json()["code"] == "future_request"
    inside = h.post_roll(table, device, h.body(1), ts=time.time() - 20)
    assert inside.status_code == 201


def test_replayed_signature_with_a_changed_body_fails(h):
    table, device = _setup(h)
    path = f"/v1/tables/{table}/rolls"
    raw = json.dumps(h.body(1)).encode()
    headers = {**sign(device[1], "POST", path, time.time(), raw, device_id=device[0]),
               "Content-Type": "application/json"}
    first = h.client.post(path, content=raw, headers=headers)
    assert first.status_code == 201
    # The identical signed request again is harmless: the roll_id makes it a replay.
    same = h.client.post(path, content=raw, headers=headers)
    assert same.status_code == 200 and same.content == first.content
    changed = raw.replace(b'"seq": 1', b'"seq": 2')
    r = h.client.post(path, content=changed, headers=headers)
    assert r.status_code == 401 and r.json()["code"] == "bad_signature"


def test_signature_binds_the_path(h):
    table, device = _setup(h)
    other = h.table()
    raw = json.dumps(h.body(1)).encode()
    headers = sign(device[1], "POST", f"/v1/tables/{table}/rolls", time.time(), raw,
                   device_id=device[0])
    r = h.client.post(f"/v1/tables/{other}/rolls", content=raw, headers=headers)
    assert r.status_code == 401


def test_a_device_posts_only_for_its_own_table(h):
    _, device = _setup(h)
    other = h.table()
    r = h.post_roll(other, device, h.body(1))
    assert r.status_code == 403 and r.json()["code"] == "wrong_table"
    assert h.client.get(f"/v1/tables/{other}/rolls", headers=h.auth()).json() == []


def test_unsigned_and_unknown_devices_are_401(h):
    table, _ = _setup(h)
    r = h.client.post(f"/v1/tables/{table}/rolls", json=h.body(1))
    assert r.status_code == 401 and r.json()["code"] == "unsigned"
    r = h.post_roll(table, ("no-such-device", "x" * 64), h.body(1))
    assert r.status_code == 401 and r.json()["code"] == "unknown_device"


def test_tokens_and_roles(h):
    assert h.client.get("/v1/tables").status_code == 401
    bad = {"Authorization": "Bearer dct_nope"}
    assert h.client.get("/v1/tables", headers=bad).status_code == 401
    r = h.client.post("/v1/tables", json={"game": "craps"}, headers=h.auth("integration"))
    assert r.status_code == 403 and r.json()["code"] == "forbidden"
    r = h.client.post("/v1/tokens", json={"name": "x", "role": "surveillance"},
                      headers=h.auth("admin"))
    assert r.status_code == 201 and r.json()["token"].startswith("dct_")
    new = {"Authorization": f"Bearer {r.json()['token']}"}
    assert h.client.get("/v1/tables", headers=new).status_code == 200


def test_secrets_are_stored_hashed_and_never_logged(h, caplog):
    caplog.set_level(logging.DEBUG)
    table = h.table()
    r = h.client.post(f"/v1/tables/{table}/devices", json={"name": "cam"},
                      headers=h.auth("admin"))
    secret = r.json()["secret"]
    view = h.client.get(f"/v1/tables/{table}", headers=h.auth()).text
    assert secret not in view
    with h.db.read() as session:
        from sqlalchemy import text

        dump = " ".join(str(row) for tbl in ("devices", "tokens", "events")
                        for row in session.execute(text(f"SELECT * FROM {tbl}")))
    assert secret not in dump
    assert all(token not in dump for token in h.tokens.values())
    assert secret not in caplog.text
