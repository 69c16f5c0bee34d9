"""A dealer call is judged against the faces finally decided, on both backends.

The call is compared with the camera when it is made; when surveillance then corrects the
roll's faces or voids it (623a.9(c)), the call is compared again in the same transaction,
so a dealer who called right is not left shown as a mismatch. The comparison made when
the call came in is kept on the row and in the chain's `dealer_call` event.
"""

from __future__ import annotations

import json

from sqlalchemy import select, text

from .test_correct_settled import _pass_line_seven


def _call(hb, roll_id: str, **call) -> dict:
    r = hb.client.post(f"/v1/rolls/{roll_id}/dealer-call", json=call, headers=hb.auth())
    assert r.status_code == 201, r.text
    return r.json()


def _review(hb, roll_id: str, action: str, faces=None):
    body = {"action": action, **({"faces": faces} if faces else {})}
    r = hb.client.post(f"/v1/rolls/{roll_id}/review", headers=hb.auth("surveillance"),
                       json=body)
    assert r.status_code == 200, r.text
    return r.json()


def _alerts(hb, table: str) -> list[dict]:
    return hb.client.get("/v1/alerts", params={"table": table},
                         headers=hb.auth("surveillance")).json()


def _verify(hb):
    from dicecall.api.audit import verify

    with hb.db.read() as session:
        return verify(session)


def test_a_dealer_who_called_right_is_no_longer_a_mismatch_after_the_correction(hb):
    table, _, roll = _pass_line_seven(hb)
    call = _call(hb, roll["roll_id"], total=2)
    assert call["matches"] is False
    _review(hb, roll["roll_id"], "correct", [1, 1])
    assert _alerts(hb, table) == []
    from dicecall.api.db.models import DealerCall, Event

    with hb.db.read() as session:
        row = session.get(DealerCall, call["id"])
        assert (row.matches, row.original_matches) == (True, False)
        assert row.detail == "matches the review ([1, 1], total 2)"
        assert row.original_detail == call["detail"]
        [event] = session.scalars(select(Event.payload).where(
            Event.kind == "dealer_call_rechecked")).all()
    event = json.loads(event)
    assert (event["call_id"], event["matches"], event["from_matches"]) == (call["id"], True,
                                                                          False)
    assert event["faces"] == [1, 1]
    assert _verify(hb).ok


def test_voiding_a_roll_the_dealer_called_seven_makes_the_call_a_mismatch(hb):
    table, _, roll = _pass_line_seven(hb)
    call = _call(hb, roll["roll_id"], total=7)
    assert call["matches"] is True
    _review(hb, roll["roll_id"], "no_roll")
    [alert] = _alerts(hb, table)
    assert (alert["id"], alert["matches"], alert["original_matches"]) == (call["id"], False,
                                                                          True)
    assert alert["detail"] == "the review called no roll"
    assert _verify(hb).ok


def test_a_dealer_no_roll_matches_once_surveillance_voids_the_roll(hb):
    table, _, roll = _pass_line_seven(hb)
    assert _call(hb, roll["roll_id"], no_roll=True)["matches"] is False
    _review(hb, roll["roll_id"], "no_roll")
    assert _alerts(hb, table) == []
    assert _verify(hb).ok


def test_a_recheck_edited_back_in_the_row_is_named_by_verify(hb):
    _, _, roll = _pass_line_seven(hb)
    call = _call(hb, roll["roll_id"], total=2)
    _review(hb, roll["roll_id"], "correct", [1, 1])
    with hb.db.write() as session:
        session.execute(text("UPDATE dealer_calls SET matches = :m WHERE id = :i"),
                        {"m": False, "i": call["id"]})
    problems = " | ".join(_verify(hb).problems)
    assert f"dealer call {call['id']} (roll {roll['roll_id']}): matches edited" in problems
