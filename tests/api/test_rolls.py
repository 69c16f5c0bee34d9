"""Roll intake on both backends: settle, no roll, hold and review, queue, idempotency,
sequence gaps and reordering."""

from __future__ import annotations

import uuid

import pytest


def _table_with_pass(hb, game="craps"):
    table = hb.table(game)
    device = hb.device(table)
    assert hb.wager(table, "pass", 1000, 1).status_code == 201
    return table, device


def test_valid_roll_settles_every_wager(hb):
    table, device = _table_with_pass(hb)
    r = hb.post_roll(table, device, hb.body(1, (3, 4)))
    assert r.status_code == 201
    roll = r.json()
    assert roll["status"] == "settled" and roll["round"] == 1
    (line,) = roll["settlement"]["lines"]
    assert (line["name"], line["result"], line["paid"]) == ("pass", "win", 1000)
    assert line["section"].startswith("623a.3(a)(1)")
    got = hb.client.get(f"/v1/rolls/{roll['roll_id']}", headers=hb.auth()).json()
    assert got == {**roll, "dealer_calls": []}  # only the single roll lists its calls
    listed = hb.client.get(f"/v1/tables/{table}/rolls", headers=hb.auth()).json()
    assert [x["roll_id"] for x in listed] == [roll["roll_id"]]
    current = hb.client.get(f"/v1/tables/{table}/rounds/current", headers=hb.auth()).json()
    assert current["number"] == 2


def test_repeated_roll_id_returns_the_original_and_settles_once(hb):
    table, device = _table_with_pass(hb)
    body = hb.body(1, (6, 5))
    first = hb.post_roll(table, device, body)
    again = hb.post_roll(table, device, body)
    assert first.status_code == 201 and again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.content == first.content
    rolls = hb.client.get(f"/v1/tables/{table}/rolls", headers=hb.auth()).json()
    assert len(rolls) == 1
    assert hb.client.get(f"/v1/tables/{table}/rounds/current",
                         headers=hb.auth()).json()["number"] == 2


def test_different_body_under_a_known_roll_id_is_409(hb):
    table, device = _table_with_pass(hb)
    body = hb.body(1, (6, 5))
    assert hb.post_roll(table, device, body).status_code == 201
    r = hb.post_roll(table, device, {**body, "faces": [6, 6]})
    assert r.status_code == 409 and r.json()["code"] == "roll_id_conflict"


def test_no_roll_settles_nothing_and_is_recorded(hb):
    table, device = _table_with_pass(hb)
    body = hb.body(1, (3,), verdict="no_roll", reasons=[{"code": "die_off_table",
                                                        "section": "623a.8(b)"}])
    r = hb.post_roll(table, device, body)
    assert r.status_code == 201
    assert r.json()["status"] == "no_roll" and r.json()["settlement"] is None
    wagers = hb.client.get(f"/v1/tables/{table}/wagers", headers=hb.auth()).json()
    assert [w["name"] for w in wagers] == ["pass"]


def test_needs_review_holds_then_a_correction_settles(hb):
    table, device = _table_with_pass(hb)
    held = hb.post_roll(table, device, hb.body(1, (3, 4), verdict="needs_review")).json()
    assert held["status"] == "held"
    queued = hb.post_roll(table, device, hb.body(2, (2, 2))).json()
    assert queued["status"] == "queued"
    r = hb.client.post(f"/v1/rolls/{held['roll_id']}/review", headers=hb.auth("surveillance"),
                       json={"action": "correct", "faces": [1, 1], "note": "2 not 7"})
    assert r.status_code == 200, r.text
    done = r.json()
    assert done["status"] == "settled" and done["final_faces"] == [1, 1]
    assert done["settlement"]["lines"][0]["result"] == "lose"  # craps 2 on the come out
    after = hb.client.get(f"/v1/rolls/{queued['roll_id']}", headers=hb.auth()).json()
    assert after["status"] == "settled"  # drained in order after the review
    again = hb.client.post(f"/v1/rolls/{held['roll_id']}/review",
                           headers=hb.auth("surveillance"), json={"action": "confirm"})
    assert again.status_code == 409 and again.json()["code"] == "not_held"


def test_review_needs_the_surveillance_role(hb):
    table, device = _table_with_pass(hb)
    held = hb.post_roll(table, device, hb.body(1, (3, 4), verdict="needs_review")).json()
    r = hb.client.post(f"/v1/rolls/{held['roll_id']}/review", headers=hb.auth(),
                       json={"action": "confirm"})
    assert r.status_code == 403


def test_sequence_gap_and_reordering_are_reported_and_stored(hb):
    table, device = _table_with_pass(hb)
    assert hb.post_roll(table, device, hb.body(1, (2, 2))).json()["sequence"]["status"] \
        == "first"
    gap = hb.post_roll(table, device, hb.body(4, (2, 3))).json()
    assert gap["sequence"] == {"status": "gap", "expected": 2, "missing": [2, 3]}
    assert gap["status"] == "settled"
    late = hb.post_roll(table, device, hb.body(2, (5, 5))).json()
    assert late["sequence"]["status"] == "reordered" and late["status"] == "held"
    events = hb.client.get("/v1/events", params={"table": table, "follow": "false",
                                                 "kinds": "sequence_gap"},
                           headers=hb.auth()).text
    assert events.count("event: sequence_gap") == 2


def test_wrong_number_of_dice_is_held_with_the_engine_reason(hb):
    table, device = _table_with_pass(hb)
    r = hb.post_roll(table, device, hb.body(1, (3, 4, 5)))
    assert r.status_code == 201
    assert r.json()["status"] == "held"
    assert r.json()["reasons"][-1]["code"] == "wrong_dice_count"


def test_unknown_roll_and_table_are_404(hb):
    r = hb.client.get(f"/v1/rolls/{uuid.uuid4()}", headers=hb.auth())
    assert r.status_code == 404 and r.json()["code"] == "unknown_roll"
    r = hb.client.get("/v1/tables/nope/rolls", headers=hb.auth())
    assert r.status_code == 404 and r.json()["code"] == "unknown_table"


@pytest.mark.parametrize("game, section", [("craps", "623a.9(c)"),
                                           ("props-and-hops", "668a.3(h)"),
                                           ("high-roll-dice", "675a.4(d)")])
def test_a_held_roll_cites_its_own_games_section(h, game, section):
    import json

    from dicecall.api.db.models import Event

    table = h.table(game)
    device = h.device(table)
    faces = (3, 4) if game != "high-roll-dice" else (1, 2, 3, 4, 5, 6, 1, 2, 3, 4)
    held = h.post_roll(table, device, h.body(1, faces, verdict="needs_review")).json()
    assert held["status"] == "held"
    with h.db.read() as session:
        [event] = [json.loads(e.payload) for e in session.query(Event)
                   .filter(Event.table_id == table, Event.kind == "needs_review")]
    assert event["reasons"] == [{"code": "needs_review", "section": section}]


def test_confirming_a_held_no_roll_settles_nothing_623a_8_b(hb):
    """A no roll that arrived out of order is held (sequence_reordered); confirming the
    camera's call is confirming the no roll, not settling the faces of the die it voided."""
    table, device = _table_with_pass(hb)
    assert hb.post_roll(table, device, hb.body(5, (4, 2))).json()["status"] == "settled"
    late = hb.post_roll(table, device, hb.body(3, (6, 1), verdict="no_roll", reasons=[
        {"code": "cocked_void", "section": "623a.9(b)"}])).json()
    assert late["status"] == "held"
    r = hb.client.post(f"/v1/rolls/{late['roll_id']}/review", headers=hb.auth("surveillance"),
                       json={"action": "confirm"})
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "no_roll" and r.json()["settlement"] is None
    wagers = hb.client.get(f"/v1/tables/{table}/wagers", headers=hb.auth()).json()
    assert [w["name"] for w in wagers] == ["pass"]  # the point of 6 stands: no seven-out


@pytest.mark.parametrize("reason", [
    {"code": "cocked", "section": "668a.3(h)"},  # the verdict's code, sent without a status
    {"code": "rest_on_bank_chips", "section": "623a.8(c)(3)"},
    {"code": "tray_glare", "section": "", "status": "needs_review"},  # a device's own finding
])
def test_a_valid_roll_whose_own_findings_void_or_doubt_it_is_held(hb, reason):
    # "No settlement may rest on a cocked, stacked, hidden or misread die" (issue 6): a
    # device that calls a roll valid and reports a finding that makes it a no roll or a
    # review contradicts itself. A person decides; the wager is untouched until then.
    table, device = _table_with_pass(hb)
    held = hb.post_roll(table, device, hb.body(1, (3, 4), reasons=[reason])).json()
    assert held["status"] == "held" and held["settlement"] is None
    assert held["reasons"][-1] == {"code": "verdict_contradicts_reasons",
                                   "section": "623a.9(c)"}
    assert reason in held["reasons"]
    r = hb.client.post(f"/v1/rolls/{held['roll_id']}/review", headers=hb.auth("surveillance"),
                       json={"action": "no_roll", "note": "the die was cocked"})
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "no_roll"
    wagers = hb.client.get(f"/v1/tables/{table}/wagers", headers=hb.auth()).json()
    assert [(w["name"], w["amount"]) for w in wagers] == [("pass", 1000)]


def test_a_valid_roll_with_findings_that_leave_it_valid_settles(hb):
    # cocked_counts (623a.9(b)) and a stacked flag with nothing beneath are recorded on a
    # valid call; they do not hold it.
    table, device = _table_with_pass(hb)
    reasons = [{"code": "cocked_counts", "section": "623a.9(b)", "status": "valid"},
               {"code": "stacked_flag_alone", "section": "623a.8(b)"}]
    roll = hb.post_roll(table, device, hb.body(1, (3, 4), reasons=reasons)).json()
    assert roll["status"] == "settled"
    assert roll["settlement"]["lines"][0]["result"] == "win"


def test_a_reason_without_a_status_hashes_as_before_statuses_existed():
    # A roll stored before reasons had a status must still be its own replay (200), not a
    # different body (409 roll_id_conflict).
    import hashlib

    from dicecall.api import audit
    from dicecall.api.schemas.rolls import RollIn
    from dicecall.api.services.rolls import body_hash
    body = {"roll_id": str(uuid.uuid4()), "seq": 3, "verdict": "no_roll", "faces": [3],
            "reasons": [{"code": "die_missing", "section": "623a.8(b)"}],
            "confidences": [0.99], "captured_at": None,
            "evidence": {"clean_sha256": "a" * 64, "annotated_sha256": "b" * 64,
                         "clean_jpeg_b64": None, "annotated_jpeg_b64": None}}
    before = hashlib.sha256(audit.canonical(body).encode()).hexdigest()
    assert body_hash(RollIn(**body)) == before
    body["reasons"][0]["status"] = "no_roll"
    assert body_hash(RollIn(**body)) != before
