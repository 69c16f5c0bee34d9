"""Correcting a roll that already settled (623a.9(c)), on both backends.

The dispute is decided before the game moves on: the correction re-settles the roll from
the state it settled against while it is the table's latest change, and is refused (with
nothing changed) once a later roll or wager came.
"""

from __future__ import annotations

import hashlib
import json

from sqlalchemy import select


def _pass_line_seven(hb):
    """A Craps table with a 10.00 pass line and a come-out 7 that settled (a win)."""
    table = hb.table()
    device = hb.device(table)
    assert hb.wager(table, "pass", 1000).status_code == 201
    roll = hb.post_roll(table, device, hb.body(1, (3, 4))).json()
    assert roll["status"] == "settled"
    assert roll["settlement"]["lines"][0]["result"] == "win"  # 623a.3: a 7 on the come out
    return table, device, roll


def _correct(hb, roll_id: str, faces: list[int]):
    return hb.client.post(f"/v1/rolls/{roll_id}/review", headers=hb.auth("surveillance"),
                          json={"action": "correct", "faces": faces, "note": "dealer: 2"})


def _events(hb, table: str) -> list[tuple[str, dict]]:
    from dicecall.api.db.models import Event

    with hb.db.read() as session:
        rows = session.scalars(select(Event).where(Event.table_id == table)
                               .order_by(Event.id)).all()
        return [(e.kind, json.loads(e.payload)) for e in rows]


def _snapshot(hb, table: str, roll_id: str):
    """Everything a refused correction must leave as it was."""
    return (hb.client.get(f"/v1/tables/{table}", headers=hb.auth()).json(),
            hb.client.get(f"/v1/tables/{table}/wagers", headers=hb.auth()).json(),
            hb.client.get(f"/v1/rolls/{roll_id}", headers=hb.auth()).json(),
            len(_events(hb, table)))


def test_a_settled_seven_corrected_to_two_loses_and_is_audited(hb):
    table, _, roll = _pass_line_seven(hb)
    first = roll["settlement"]
    first_table = _snapshot(hb, table, roll["roll_id"])[:2]
    round_before = hb.client.get(f"/v1/tables/{table}", headers=hb.auth()).json()["round"]
    r = _correct(hb, roll["roll_id"], [1, 1])
    assert r.status_code == 200, r.text
    view = r.json()
    assert view["status"] == "settled" and view["final_faces"] == [1, 1]
    # Craps 2 on the come out loses the pass line (623a.3): collected, nothing paid.
    [line] = view["settlement"]["lines"]
    assert line["result"] == "lose" and view["settlement"]["collected"] == 1000
    assert view["settlement"]["paid"] == 0
    assert view["review"]["corrected_from"]["faces"] == [3, 4]
    assert view["review"]["corrected_from"]["settlement"] == first
    assert hb.client.get(f"/v1/tables/{table}/wagers", headers=hb.auth()).json() == []
    # The round the settlement opened is the same one, not one more.
    assert hb.client.get(f"/v1/tables/{table}", headers=hb.auth()).json()["round"][
        "number"] == round_before["number"]
    kinds = [k for k, _ in _events(hb, table)]
    assert kinds[-2:] == ["correction", "settlement"]
    correction = _events(hb, table)[-2][1]
    assert correction["from_faces"] == [3, 4] and correction["faces"] == [1, 1]
    assert correction["from_settlement_sha256"] != correction["settlement_sha256"]
    settled = _events(hb, table)[-1][1]
    assert settled["settlement_sha256"] == correction["settlement_sha256"]
    from dicecall.api.audit import verify
    from dicecall.api.db.models import Roll

    with hb.db.read() as session:
        assert verify(session).ok
        stored = session.get(Roll, roll["roll_id"]).settlement_json
    assert hashlib.sha256(stored.encode()).hexdigest() == correction["settlement_sha256"]
    # Still the latest change: correcting back restores the first settlement exactly.
    back = _correct(hb, roll["roll_id"], [3, 4])
    assert back.status_code == 200 and back.json()["settlement"] == first
    after = _snapshot(hb, table, roll["roll_id"])[:2]
    assert after[1] == first_table[1] and after[0]["state"] == first_table[0]["state"]
    assert after[0]["round"] == first_table[0]["round"]


def test_a_correction_after_a_later_roll_is_refused_and_changes_nothing(hb):
    table, device, roll = _pass_line_seven(hb)
    later = hb.post_roll(table, device, hb.body(2, (2, 2))).json()
    assert later["status"] == "settled"
    before = _snapshot(hb, table, roll["roll_id"])
    r = _correct(hb, roll["roll_id"], [1, 1])
    assert r.status_code == 409 and r.json()["code"] == "superseded"
    assert later["roll_id"] in r.json()["message"]
    assert _snapshot(hb, table, roll["roll_id"]) == before


def test_a_correction_after_a_later_wager_is_refused_and_changes_nothing(hb):
    table, _, roll = _pass_line_seven(hb)
    assert hb.wager(table, "field", 500).status_code == 201
    before = _snapshot(hb, table, roll["roll_id"])
    r = _correct(hb, roll["roll_id"], [1, 1])
    assert r.status_code == 409 and r.json()["code"] == "superseded"
    assert "wager" in r.json()["message"]
    assert _snapshot(hb, table, roll["roll_id"]) == before


def test_faces_the_engine_refuses_leave_the_settled_roll_alone(hb):
    table, _, roll = _pass_line_seven(hb)
    before = _snapshot(hb, table, roll["roll_id"])
    r = _correct(hb, roll["roll_id"], [1, 1, 1])  # Craps is two dice
    assert r.status_code == 422
    assert _snapshot(hb, table, roll["roll_id"]) == before
    # Confirm still only applies to a held roll (no_roll voids a settled one:
    # test_void_settled.py).
    r = hb.client.post(f"/v1/rolls/{roll['roll_id']}/review",
                       headers=hb.auth("surveillance"), json={"action": "confirm"})
    assert r.status_code == 409 and r.json()["code"] == "not_held"


def _counts() -> dict[tuple[str, str], float]:
    from prometheus_client import REGISTRY

    names = ("dicecall_settlements_total", "dicecall_settlement_lines_total",
             "dicecall_settlement_corrections_total")
    return {(s.name, *s.labels.values()): s.value for m in REGISTRY.collect()
            for s in m.samples if s.name in names}


def test_a_correction_counts_as_a_correction_not_a_second_settlement(hb):
    _, _, roll = _pass_line_seven(hb)
    before = _counts()
    assert _correct(hb, roll["roll_id"], [1, 1]).status_code == 200
    after = _counts()
    changed = {k: after[k] - before.get(k, 0.0) for k in after if after[k] != before.get(k)}
    assert changed == {("dicecall_settlement_corrections_total", "craps"): 1.0}


def test_a_correction_to_the_faces_already_settled_is_refused_and_changes_nothing(hb):
    """Re-settling the same faces changes no money and no record: it was accepted and added
    a `correction` event that corrected nothing. Now 409 `no_change` (the roll's state, not
    the request, makes it a no-op, as `not_held` and `superseded`); the die order is a
    change (the fairness report counts faces per die position)."""
    table, _, roll = _pass_line_seven(hb)
    before = _snapshot(hb, table, roll["roll_id"])
    r = _correct(hb, roll["roll_id"], [3, 4])
    assert r.status_code == 409 and r.json()["code"] == "no_change"
    assert "[3, 4]" in r.json()["message"]
    assert _snapshot(hb, table, roll["roll_id"]) == before
    r = _correct(hb, roll["roll_id"], [4, 3])
    assert r.status_code == 200 and r.json()["final_faces"] == [4, 3]
    assert r.json()["settlement"]["lines"] == roll["settlement"]["lines"]


def test_each_correction_keeps_the_review_before_it_as_docs_api_md_says(hb):
    """docs/api.md: the replaced settlement is in `review.corrected_from`, the review before
    in `corrected_from.review`: after two corrections the first settlement is one level
    deeper, and the chain's `correction` events list every step flat, in order."""
    table, _, roll = _pass_line_seven(hb)
    assert _correct(hb, roll["roll_id"], [1, 1]).status_code == 200
    view = _correct(hb, roll["roll_id"], [2, 2]).json()
    second = view["review"]["corrected_from"]
    assert second["faces"] == [1, 1] and second["review"]["faces"] == [1, 1]
    first = second["review"]["corrected_from"]
    assert first["faces"] == [3, 4] and first["settlement"] == roll["settlement"]
    assert first["review"] is None
    steps = [(e["from_faces"], e["faces"]) for k, e in _events(hb, table) if k == "correction"]
    assert steps == [([3, 4], [1, 1]), ([1, 1], [2, 2])]
