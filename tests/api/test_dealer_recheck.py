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


def _mismatches() -> float:
    from prometheus_client import REGISTRY

    return REGISTRY.get_sample_value("dicecall_dealer_call_mismatches_total") or 0.0


def _mismatch_events(hb, table: str) -> list[dict]:
    r = hb.client.get("/v1/events", headers=hb.auth(),
                      params={"table": table, "follow": "false",
                              "kinds": "dealer_call_mismatch"})
    return [json.loads(line[len("data: "):])["data"] for line in r.text.splitlines()
            if line.startswith("data: ")]


def _console(hb, table: str) -> tuple[list[dict], int]:
    """The console's dealer-call alerts (handled too) and the table's open-alert count."""
    from .test_console import login

    login(hb, "surveillance")
    alerts = [a for a in hb.client.get("/console/api/alerts", params={"handled": True}).json()
              if a["kind"] == "dealer_call"]
    [row] = [t for t in hb.client.get("/console/api/tables").json() if t["id"] == table]
    return alerts, row["open_alerts"]


def test_a_right_call_the_review_makes_wrong_raises_the_mismatch_alert_once(hb):
    """The dealer called the camera's 7; surveillance decides the dice showed 2 (623a.9(c)):
    the call now disagrees with the roll, and surveillance hears it as of a fresh mismatch:
    the event (the console's toast, the stream), the counter, an open alert. A further
    correction that leaves it wrong raises nothing more."""
    table, _, roll = _pass_line_seven(hb)
    call = _call(hb, roll["roll_id"], total=7, dealer="stick")
    assert call["matches"] is True and _mismatch_events(hb, table) == []
    before = _mismatches()
    _review(hb, roll["roll_id"], "correct", [1, 1])
    [event] = _mismatch_events(hb, table)
    assert (event["call_id"], event["matches"], event["rechecked"]) == (call["id"], False,
                                                                         True)
    assert event["detail"] == "dealer called 7, the review decided 2"
    assert event["call"] == call["call"] and event["call"]["dealer"] == "stick"
    assert event["camera_faces"] == [1, 1] and event["roll_id"] == roll["roll_id"]
    assert _mismatches() == before + 1
    [alert] = _alerts(hb, table)
    assert (alert["id"], alert["matches"], alert["original_matches"]) == (call["id"], False,
                                                                          True)
    [console], open_alerts = _console(hb, table)
    assert (console["ref"], console["open"], open_alerts) == (str(call["id"]), True, 1)
    # Still wrong after a second correction: rechecked (a new detail), not raised again.
    _review(hb, roll["roll_id"], "correct", [2, 2])
    assert len(_mismatch_events(hb, table)) == 1 and _mismatches() == before + 1
    [alert] = _alerts(hb, table)
    assert alert["detail"] == "dealer called 7, the review decided 4"
    assert _verify(hb).ok


def test_voiding_a_roll_the_dealer_called_raises_the_mismatch_alert(hb):
    table, _, roll = _pass_line_seven(hb)
    call = _call(hb, roll["roll_id"], faces=[3, 4])
    before = _mismatches()
    _review(hb, roll["roll_id"], "no_roll")
    [event] = _mismatch_events(hb, table)
    assert (event["call_id"], event["detail"], event["camera_faces"]) == (
        call["id"], "the review called no roll", None)
    assert _mismatches() == before + 1
    assert _verify(hb).ok


def test_a_wrong_call_the_review_makes_right_is_no_open_alert(hb):
    """The reverse: the dealer's 2 against the camera's 7 was an open alert; the review
    decides 2, and the call leaves /v1/alerts and the console's open alerts (shown under
    handled with both comparisons), raising no mismatch and counting none."""
    table, _, roll = _pass_line_seven(hb)
    call = _call(hb, roll["roll_id"], total=2)
    [console], open_alerts = _console(hb, table)
    assert (console["open"], open_alerts) == (True, 1)
    raised, before = len(_mismatch_events(hb, table)), _mismatches()
    assert raised == 1
    _review(hb, roll["roll_id"], "correct", [1, 1])  # the JSON API: no console action
    assert _alerts(hb, table) == []
    [console], open_alerts = _console(hb, table)
    assert console["ref"] == str(call["id"]) and console["actions"] == []
    assert (console["open"], console["matches"], console["original_matches"]) == (False, True,
                                                                                 False)
    assert open_alerts == 0
    assert len(_mismatch_events(hb, table)) == raised and _mismatches() == before
