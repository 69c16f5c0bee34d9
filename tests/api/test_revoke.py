"""Revoking devices and tokens (admin): refused from then on, audited once, idempotent."""

from __future__ import annotations

from dicecall.api import audit


def _events(hb, kind: str) -> int:
    with hb.db.read() as session:
        from sqlalchemy import func, select

        from dicecall.api.db.models import Event

        return session.scalar(select(func.count()).select_from(Event)
                              .where(Event.kind == kind))


def test_a_revoked_device_can_no_longer_post_rolls(hb):
    table = hb.table()
    device = hb.device(table)
    assert hb.post_roll(table, device, hb.body(1)).status_code == 201
    r = hb.client.post(f"/v1/devices/{device[0]}/revoke", headers=hb.auth("admin"))
    assert r.status_code == 200, r.text
    assert r.json() == {"id": device[0], "table_id": table, "name": "cam", "revoked": True}
    refused = hb.post_roll(table, device, hb.body(2))
    assert refused.status_code == 401 and refused.json()["code"] == "unknown_device"
    again = hb.client.post(f"/v1/devices/{device[0]}/revoke", headers=hb.auth("admin"))
    assert again.status_code == 200 and _events(hb, "device_revoked") == 1
    listed = hb.client.get(f"/v1/tables/{table}", headers=hb.auth()).json()["devices"]
    assert [d["revoked"] for d in listed] == [True]
    assert len(hb.client.get(f"/v1/tables/{table}/rolls", headers=hb.auth()).json()) == 1
    with hb.db.read() as session:
        assert audit.verify(session).ok


def test_a_revoked_token_is_refused(hb):
    made = hb.client.post("/v1/tokens", json={"name": "kiosk", "role": "integration"},
                          headers=hb.auth("admin")).json()
    bearer = {"Authorization": f"Bearer {made['token']}"}
    assert hb.client.get("/v1/tables", headers=bearer).status_code == 200
    r = hb.client.post(f"/v1/tokens/{made['id']}/revoke", headers=hb.auth("admin"))
    assert r.status_code == 200 and r.json()["revoked"] is True
    refused = hb.client.get("/v1/tables", headers=bearer)
    assert refused.status_code == 401 and refused.json()["code"] == "bad_token"
    assert _events(hb, "token_revoked") == 1


def test_only_an_admin_revokes_and_unknown_ids_are_404(h):
    table = h.table()
    device = h.device(table)
    r = h.client.post(f"/v1/devices/{device[0]}/revoke", headers=h.auth("surveillance"))
    assert r.status_code == 403
    missing = "00000000-0000-4000-8000-000000000000"
    r = h.client.post(f"/v1/devices/{missing}/revoke", headers=h.auth("admin"))
    assert r.status_code == 404 and r.json()["code"] == "unknown_device"
    r = h.client.post(f"/v1/tokens/{missing}/revoke", headers=h.auth("admin"))
    assert r.status_code == 404 and r.json()["code"] == "unknown_token"
    assert h.post_roll(table, device, h.body(1)).status_code == 201
