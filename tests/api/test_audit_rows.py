"""`verify` checks the rows the chain vouches for (audit_rows.py), on both backends: an
edited settlement, a roll or dealer call with no event, an edited dealer-call verdict,
detail or first comparison (original_*)."""

from __future__ import annotations

import uuid

from sqlalchemy import insert, select, text

from dicecall.api import audit
from dicecall.api.db.models import DealerCall, Roll


def _settled(hb) -> tuple[str, str]:
    table = hb.table()
    device = hb.device(table)
    assert hb.wager(table, "pass", 1000).status_code == 201
    roll = hb.post_roll(table, device, hb.body(1, (3, 4))).json()
    assert roll["status"] == "settled"
    return table, roll["roll_id"]


def _problems(hb) -> str:
    with hb.db.read() as session:
        report = audit.verify(session)
    return " | ".join(report.problems)


def test_an_edited_settlement_is_named(hb):
    _, roll_id = _settled(hb)
    assert _problems(hb) == ""
    with hb.db.write() as session:  # the Pass Bet now pays double
        session.execute(text("UPDATE rolls SET settlement_json = replace(settlement_json, "
                             ":old, :new) WHERE roll_id = :r"),
                        {"old": '"paid":1000', "new": '"paid":2000', "r": roll_id})
    assert f"roll {roll_id}: settlement edited" in _problems(hb)


def test_a_deleted_settlement_is_named(hb):
    _, roll_id = _settled(hb)
    with hb.db.write() as session:
        session.execute(text("UPDATE rolls SET settlement_json = NULL, status = 'no_roll' "
                             "WHERE roll_id = :r"), {"r": roll_id})
    assert f"roll {roll_id}: settlement deleted" in _problems(hb)


def test_a_corrected_settlement_verifies_against_the_correction(hb):
    _, roll_id = _settled(hb)
    r = hb.client.post(f"/v1/rolls/{roll_id}/review", headers=hb.auth("surveillance"),
                       json={"action": "correct", "faces": [2, 2]})
    assert r.status_code == 200, r.text
    assert _problems(hb) == ""


def test_rows_without_an_event_are_named(hb):
    _, roll_id = _settled(hb)
    call = hb.client.post(f"/v1/rolls/{roll_id}/dealer-call", headers=hb.auth(),
                          json={"total": 7})
    assert call.status_code == 201 and call.json()["matches"] is True
    forged = str(uuid.uuid4())
    with hb.db.write() as session:
        src = session.execute(select(Roll.__table__).where(Roll.roll_id == roll_id)).one()
        session.execute(insert(Roll.__table__).values({**src._mapping, "roll_id": forged}))
        row = session.execute(select(DealerCall.__table__)).one()._mapping
        session.execute(insert(DealerCall.__table__).values(
            {**row, "id": row["id"] + 100, "roll_id": forged}))
    problems = _problems(hb)
    assert f"roll {forged}: no roll event in the chain" in problems
    assert f"roll {forged}: settlement stored but no settlement event" in problems
    assert f"dealer call {row['id'] + 100} (roll {forged}): no dealer_call event" in problems


def test_an_edited_dealer_call_verdict_is_named(hb):
    _, roll_id = _settled(hb)
    call = hb.client.post(f"/v1/rolls/{roll_id}/dealer-call", headers=hb.auth(),
                          json={"faces": [4, 4]}).json()
    assert call["matches"] is False
    with hb.db.write() as session:  # the alert hidden
        session.execute(text("UPDATE dealer_calls SET matches = :t"), {"t": True})
    assert f"dealer call {call['id']} (roll {roll_id}): matches edited" in _problems(hb)


def test_an_edited_mismatch_raise_time_is_named(hb):
    """`mismatch_raised_at` decides whether the console's alert is open (an action older
    than the raise leaves it open): it must be the time of the call's latest
    dealer_call_mismatch event, so moving it to close or reopen an alert is named."""
    _, roll_id = _settled(hb)
    bad = hb.client.post(f"/v1/rolls/{roll_id}/dealer-call", headers=hb.auth(),
                         json={"faces": [4, 4]}).json()
    good = hb.client.post(f"/v1/rolls/{roll_id}/dealer-call", headers=hb.auth(),
                          json={"total": 7}).json()
    assert (bad["matches"], good["matches"]) == (False, True)
    assert _problems(hb) == ""
    with hb.db.write() as session:  # the raise moved back, before any acknowledgement
        session.execute(text("UPDATE dealer_calls SET mismatch_raised_at = "
                             "mismatch_raised_at - 3600 WHERE id = :i"), {"i": bad["id"]})
    problems = _problems(hb)
    assert f"dealer call {bad['id']} (roll {roll_id}): mismatch_raised_at edited" in problems
    assert f"dealer call {good['id']}" not in problems
    with hb.db.write() as session:  # a call that never disagreed given a raise
        session.execute(text("UPDATE dealer_calls SET mismatch_raised_at = created_at "
                             "WHERE id = :i"), {"i": good["id"]})
    assert f"dealer call {good['id']} (roll {roll_id}): mismatch_raised_at edited" in (
        _problems(hb))


def test_each_edited_dealer_call_comparison_column_is_named(hb):
    """`detail` (the comparison with the roll as decided) is held to the call's latest
    dealer_call event, `original_matches` and `original_detail` (with the camera when the
    call came in: a call a review made agree stays in the console's handled list by them)
    to its first; an edit of any one is named with its column, the others are not."""
    _, roll_id = _settled(hb)
    call = hb.client.post(f"/v1/rolls/{roll_id}/dealer-call", headers=hb.auth(),
                          json={"faces": [4, 4]}).json()
    assert (call["matches"], call["original_matches"]) == (False, False)
    assert _problems(hb) == ""
    name = f"dealer call {call['id']} (roll {roll_id})"
    columns = ("detail", "original_matches", "original_detail")
    edits = {"detail": "matches the camera ([3, 4], total 7)", "original_matches": True,
             "original_detail": "matches the camera ([3, 4], total 7)"}
    for column, value in edits.items():
        with hb.db.write() as session:
            old = session.execute(text(f"SELECT {column} FROM dealer_calls WHERE id = :i"),
                                  {"i": call["id"]}).scalar_one()
            session.execute(text(f"UPDATE dealer_calls SET {column} = :v WHERE id = :i"),
                            {"v": value, "i": call["id"]})
        problems = _problems(hb)
        assert f"{name}: {column} edited" in problems
        assert [c for c in columns if f"{name}: {c} edited" in problems] == [column]
        with hb.db.write() as session:
            session.execute(text(f"UPDATE dealer_calls SET {column} = :v WHERE id = :i"),
                            {"v": old, "i": call["id"]})
        assert _problems(hb) == ""
