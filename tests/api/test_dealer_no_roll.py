"""The dealer's call against a camera no roll that is held only for arriving out of order
(sequence_reordered): the camera's call stands until a review, on both backends."""

from __future__ import annotations


def _call(hb, roll_id: str, **call) -> dict:
    r = hb.client.post(f"/v1/rolls/{roll_id}/dealer-call", json=call, headers=hb.auth())
    assert r.status_code == 201, r.text
    return r.json()


def test_a_held_late_no_roll_is_the_cameras_no_roll(hb):
    table = hb.table()
    device = hb.device(table)
    assert hb.post_roll(table, device, hb.body(5, (1, 2))).json()["status"] == "settled"
    late = hb.post_roll(table, device, hb.body(4, (3, 3), verdict="no_roll", reasons=[
        {"code": "cocked", "section": "623a.8(b)"}])).json()
    assert (late["status"], late["sequence"]["status"]) == ("held", "reordered")
    agreed = _call(hb, late["roll_id"], no_roll=True)
    assert agreed["matches"] is True, agreed["detail"]
    faces = _call(hb, late["roll_id"], faces=[3, 3])
    assert faces["matches"] is False and faces["detail"] == "the camera called no roll"
    alerts = hb.client.get("/v1/alerts", params={"table": table},
                           headers=hb.auth("surveillance")).json()
    assert [a["id"] for a in alerts] == [faces["id"]]  # no false alert for the agreement


def test_a_no_roll_corrected_to_faces_is_no_longer_the_cameras_call(hb):
    table = hb.table()
    device = hb.device(table)
    assert hb.post_roll(table, device, hb.body(5, (1, 2))).json()["status"] == "settled"
    late = hb.post_roll(table, device, hb.body(4, (3, 3), verdict="no_roll")).json()
    r = hb.client.post(f"/v1/rolls/{late['roll_id']}/review", headers=hb.auth("surveillance"),
                       json={"action": "correct", "faces": [3, 3]})
    assert r.status_code == 200 and r.json()["status"] == "settled", r.text
    assert _call(hb, late["roll_id"], no_roll=True)["matches"] is False
    assert _call(hb, late["roll_id"], total=6)["matches"] is True
