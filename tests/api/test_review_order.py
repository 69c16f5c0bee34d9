"""Held rolls are decided in the order the dice were thrown (623a.9(c)), on both backends."""

from __future__ import annotations


def _review(hb, roll_id: str, action: str = "confirm", faces=None):
    body = {"action": action, **({"faces": faces} if faces else {})}
    return hb.client.post(f"/v1/rolls/{roll_id}/review", json=body,
                          headers=hb.auth("surveillance"))


def _roll(hb, roll_id: str) -> dict:
    return hb.client.get(f"/v1/rolls/{roll_id}", headers=hb.auth()).json()


def test_a_later_held_roll_waits_for_the_earlier_one_then_settles_in_thrown_order(hb):
    """R1 (2,4) held, R2 (5,5) queued, R3 (3,4) held: R3 confirmed first would be a come-out
    7 for the Pass Bet, while in thrown order it is a seven-out after the point 6."""
    table = hb.table()
    device = hb.device(table)
    assert hb.wager(table, "pass", 1000).status_code == 201
    r1 = hb.post_roll(table, device, hb.body(0, (2, 4), verdict="needs_review")).json()
    r2 = hb.post_roll(table, device, hb.body(1, (5, 5))).json()
    r3 = hb.post_roll(table, device, hb.body(2, (3, 4), verdict="needs_review")).json()
    assert [r["status"] for r in (r1, r2, r3)] == ["held", "queued", "held"]

    early = _review(hb, r3["roll_id"])
    assert early.status_code == 409, early.text
    assert early.json()["code"] == "earlier_roll_held"
    assert r1["roll_id"] in early.json()["message"]
    assert early.json()["section"] == "623a.9(c)"
    for action, faces in (("no_roll", None), ("correct", [3, 3])):  # every review waits
        refused = _review(hb, r3["roll_id"], action, faces)
        assert refused.status_code == 409 and refused.json()["code"] == "earlier_roll_held"
    assert _roll(hb, r3["roll_id"])["status"] == "held"  # nothing changed

    # R1 decided: the point is 6, R2 settles behind it and the drain stops at R3.
    first = _review(hb, r1["roll_id"])
    assert first.status_code == 200, first.text
    assert first.json()["settlement"]["events"] == ["point_on:6"]
    assert _roll(hb, r2["roll_id"])["status"] == "settled"
    assert _roll(hb, r3["roll_id"])["status"] == "held"
    assert hb.client.get(f"/v1/tables/{table}/rounds/current",
                         headers=hb.auth()).json()["held_rolls"] == 1

    # Now R3 is the earliest held roll: it settles as the seven-out it was.
    last = _review(hb, r3["roll_id"])
    assert last.status_code == 200, last.text
    lines = last.json()["settlement"]["lines"]
    assert [(ln["name"], ln["result"]) for ln in lines] == [("pass", "lose")]
    rolls = hb.client.get(f"/v1/tables/{table}/rolls", headers=hb.auth()).json()
    settled_order = sorted(rolls, key=lambda r: r["settled_at"])
    assert [r["roll_id"] for r in settled_order] == [r1["roll_id"], r2["roll_id"],
                                                     r3["roll_id"]]


def test_rolls_queued_behind_a_later_held_roll_wait_for_it(hb):
    """R1 held, R2 held, R3 queued: reviewing R1 settles nothing behind R2; reviewing R2
    then settles R3."""
    table = hb.table()
    device = hb.device(table)
    assert hb.wager(table, "pass", 1000).status_code == 201
    r1 = hb.post_roll(table, device, hb.body(0, (2, 4), verdict="needs_review")).json()
    r2 = hb.post_roll(table, device, hb.body(1, (5, 5), verdict="needs_review")).json()
    r3 = hb.post_roll(table, device, hb.body(2, (3, 3))).json()
    assert [r["status"] for r in (r1, r2, r3)] == ["held", "held", "queued"]
    assert _review(hb, r1["roll_id"]).status_code == 200
    assert _roll(hb, r3["roll_id"])["status"] == "queued"
    assert _review(hb, r2["roll_id"]).status_code == 200
    after = _roll(hb, r3["roll_id"])
    assert after["status"] == "settled"
    assert after["settlement"]["lines"][0]["result"] == "win"  # the point 6 made


def test_rolls_left_queued_before_a_held_roll_settle_before_it(hb):
    """A table reviewed before the in-order rule could be left with R2 queued ahead of the
    held R3 (R1 decided while R3 was held): reviewing R3 settles R2 first."""
    from sqlalchemy import text

    table = hb.table()
    device = hb.device(table)
    assert hb.wager(table, "pass", 1000).status_code == 201
    r1 = hb.post_roll(table, device, hb.body(0, (2, 4), verdict="needs_review")).json()
    r2 = hb.post_roll(table, device, hb.body(1, (5, 5))).json()
    r3 = hb.post_roll(table, device, hb.body(2, (3, 4), verdict="needs_review")).json()
    with hb.db.write() as session:  # R1 voided the old way: R2 stayed queued
        session.execute(text("UPDATE rolls SET status = 'no_roll' WHERE roll_id = :r"),
                        {"r": r1["roll_id"]})
        session.execute(text("UPDATE dc_tables SET held_rolls = 1 WHERE id = :t"),
                        {"t": table})
    last = _review(hb, r3["roll_id"])
    assert last.status_code == 200, last.text
    assert _roll(hb, r2["roll_id"])["settlement"]["events"] == ["point_on:10"]
    assert [(ln["name"], ln["result"]) for ln in last.json()["settlement"]["lines"]] == [
        ("pass", "lose")]  # the seven-out after the point 10, not a come-out 7
