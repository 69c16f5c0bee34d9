"""Voiding a roll that already settled (623a.9(c)), on both backends.

623a.9(c) gives the boxperson (floorperson at Mini-Craps) in a dispute over the faces the
discretion "to determine which face is uppermost or to order the throw be void and the dice
be rethrown". The service already lets the first be done to a settled roll (`correct`, while
it is the table's latest change); the second is the same decision, under the same guard.
"""

from __future__ import annotations

import hashlib
import json

from sqlalchemy import select

from .test_correct_settled import _events, _pass_line_seven, _snapshot


def _void(hb, roll_id: str):
    return hb.client.post(f"/v1/rolls/{roll_id}/review", headers=hb.auth("surveillance"),
                          json={"action": "no_roll", "note": "die cocked on the rail"})


def test_a_settled_roll_voided_settles_nothing_and_is_audited(hb):
    table = hb.table()
    device = hb.device(table)
    assert hb.wager(table, "pass", 1000).status_code == 201
    wagers = hb.client.get(f"/v1/tables/{table}/wagers", headers=hb.auth()).json()
    before = hb.client.get(f"/v1/tables/{table}", headers=hb.auth()).json()
    assert hb.client.post(f"/v1/tables/{table}/rounds/current/no-more-bets",
                          headers=hb.auth()).status_code == 200
    roll = hb.post_roll(table, device, hb.body(1, (3, 4))).json()
    assert roll["settlement"]["lines"][0]["result"] == "win"
    r = _void(hb, roll["roll_id"])
    assert r.status_code == 200, r.text
    view = r.json()
    assert view["status"] == "no_roll"
    assert view["settlement"] is None and view["final_faces"] is None
    assert view["review"]["action"] == "no_roll" and view["review"]["after_settlement"]
    assert view["review"]["corrected_from"]["faces"] == [3, 4]
    assert view["review"]["corrected_from"]["settlement"] == roll["settlement"]
    # The pass line is back up, in the round the roll was thrown in, betting still closed.
    assert hb.client.get(f"/v1/tables/{table}/wagers", headers=hb.auth()).json() == wagers
    after = hb.client.get(f"/v1/tables/{table}", headers=hb.auth()).json()
    assert after["state"] == before["state"]
    assert after["round"]["number"] == before["round"]["number"]
    assert after["round"]["betting_open"] is False
    kind, event = _events(hb, table)[-1]
    first = json.dumps(roll["settlement"], separators=(",", ":"))
    assert kind == "correction" and event["action"] == "no_roll"
    assert (event["from_faces"], event["faces"], event["settlement_sha256"]) == ([3, 4], None,
                                                                                 None)
    assert event["from_settlement_sha256"] == hashlib.sha256(first.encode()).hexdigest()
    from dicecall.api.audit import verify

    with hb.db.read() as session:
        assert verify(session).ok
    # The dice are rethrown: the next roll settles against the restored table.
    again = hb.post_roll(table, device, hb.body(2, (1, 1))).json()
    assert again["status"] == "settled"
    assert again["settlement"]["lines"][0]["result"] == "lose"  # 623a.3(a)(1)(ii)(A)


def test_a_void_after_a_later_roll_or_wager_is_refused_and_changes_nothing(hb):
    table, device, roll = _pass_line_seven(hb)
    assert hb.wager(table, "field", 500).status_code == 201
    before = _snapshot(hb, table, roll["roll_id"])
    r = _void(hb, roll["roll_id"])
    assert r.status_code == 409 and r.json()["code"] == "superseded"
    assert _snapshot(hb, table, roll["roll_id"]) == before
    later = hb.post_roll(table, device, hb.body(2, (2, 2))).json()
    before = _snapshot(hb, table, roll["roll_id"])
    r = _void(hb, roll["roll_id"])
    assert r.status_code == 409 and later["roll_id"] in r.json()["message"]
    assert _snapshot(hb, table, roll["roll_id"]) == before


def test_a_voided_roll_is_final_and_counted_as_a_correction(hb):
    from dicecall.api.db.models import Event

    from .test_correct_settled import _correct, _counts

    _, _, roll = _pass_line_seven(hb)
    counts = _counts()
    assert _void(hb, roll["roll_id"]).status_code == 200
    assert _counts()[("dicecall_settlement_corrections_total", "craps")] == counts.get(
        ("dicecall_settlement_corrections_total", "craps"), 0.0) + 1
    # Voided, not merely "not held": the refusal says so and names the dispute rule.
    confirm = hb.client.post(f"/v1/rolls/{roll['roll_id']}/review",
                             headers=hb.auth("surveillance"), json={"action": "confirm"})
    for r in (_void(hb, roll["roll_id"]), _correct(hb, roll["roll_id"], [1, 1]), confirm):
        assert r.status_code == 409 and r.json()["code"] == "roll_voided"
        assert r.json()["section"] == "623a.9(c)" and "voided" in r.json()["message"]
    with hb.db.read() as session:
        kinds = session.scalars(select(Event.kind).order_by(Event.id)).all()
    assert kinds.count("correction") == 1


def test_a_held_roll_voided_by_its_review_keeps_not_held(hb):
    """Only a settled roll voided is `roll_voided`: a held roll decided no roll, like a roll
    the camera called no roll, was never settled, and a second review is `not_held`."""
    table = hb.table()
    device = hb.device(table)
    held = hb.post_roll(table, device, hb.body(1, (3, 4), verdict="needs_review")).json()
    assert _void(hb, held["roll_id"]).json()["status"] == "no_roll"
    camera = hb.post_roll(table, device, hb.body(2, (3, 4), verdict="no_roll")).json()
    assert camera["status"] == "no_roll"
    for roll_id in (held["roll_id"], camera["roll_id"]):
        r = _void(hb, roll_id)
        assert r.status_code == 409 and r.json()["code"] == "not_held", roll_id
