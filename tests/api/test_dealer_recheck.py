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
    assert alert["raised_at"] > call["created_at"]  # the review's raise, not the call's time
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
    assert call["raised_at"] is None
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
    assert alert["raised_at"] > call["created_at"]  # the review's raise, not the call's time
    raised = alert["raised_at"]
    [console], open_alerts = _console(hb, table)
    assert (console["ref"], console["open"], open_alerts) == (str(call["id"]), True, 1)
    # Still wrong after a second correction: rechecked (a new detail), not raised again.
    _review(hb, roll["roll_id"], "correct", [2, 2])
    assert len(_mismatch_events(hb, table)) == 1 and _mismatches() == before + 1
    [alert] = _alerts(hb, table)
    assert alert["detail"] == "dealer called 7, the review decided 4"
    assert alert["raised_at"] == raised
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


def _open(hb, table: str) -> tuple[list[dict], int]:
    """The table's console alerts (handled too) and open-alert count; the open list (no
    `handled`) holds exactly those marked open."""
    alerts, count = _console(hb, table)
    alerts = [a for a in alerts if a["table_id"] == table]
    listed = hb.client.get("/console/api/alerts").json()
    assert [a["ref"] for a in listed if a["kind"] == "dealer_call"
            and a["table_id"] == table] == [a["ref"] for a in alerts if a["open"]]
    return alerts, count


def _act(hb, ref: str, action: str, faces=None) -> dict:
    from .test_console import login

    headers = login(hb, "surveillance")
    r = hb.client.post(f"/console/api/alerts/dealer_call/{ref}", headers=headers,
                       json={"action": action, **({"faces": faces} if faces else {})})
    assert r.status_code == 200, r.text
    return r.json()


def test_a_handled_mismatch_a_review_raises_again_is_open_again(hb):
    """Surveillance acknowledged the dealer's 2 against the camera's 7; a review decided 2
    (the call agrees), a later one 7 again (623a.9(c)): the mismatch is raised again after
    the acknowledgement, so the alert is open again in the console's list and count, with
    the earlier action still shown, until surveillance acts on it again."""
    table, _, roll = _pass_line_seven(hb)
    call = _call(hb, roll["roll_id"], total=2)
    ref = str(call["id"])
    _act(hb, ref, "acknowledge")
    [alert], count = _open(hb, table)
    assert (alert["open"], count) == (False, 0)
    _review(hb, roll["roll_id"], "correct", [1, 1])
    [alert], count = _open(hb, table)
    assert (alert["open"], alert["matches"], count) == (False, True, 0)
    raised, before = len(_mismatch_events(hb, table)), _mismatches()
    _review(hb, roll["roll_id"], "correct", [3, 4])
    assert len(_mismatch_events(hb, table)) == raised + 1 and _mismatches() == before + 1
    [v1] = _alerts(hb, table)
    # Back to the camera's faces: compared with the camera's read again.
    assert (v1["id"], v1["matches"], v1["detail"]) == (call["id"], False,
                                                      "dealer called 2, the camera read 7")
    [alert], count = _open(hb, table)
    assert (alert["ref"], alert["open"], count) == (ref, True, 1)
    assert [a["action"] for a in alert["actions"]] == ["acknowledge"]
    assert alert["raised_at"] > alert["actions"][0]["at"] > alert["at"]
    # Acted on after it was raised again: handled.
    _act(hb, ref, "acknowledge")
    [alert], count = _open(hb, table)
    assert (alert["open"], count) == (False, 0)
    assert _verify(hb).ok


def test_a_mismatch_corrected_from_the_console_then_raised_by_a_review_is_open_again(hb):
    """The console's own correction (a review, then the action) made the dealer's 2 agree
    and handled the alert; a later review through the JSON API decides 4: open again. A
    correction pressed on the alert that itself makes the call disagree is surveillance's
    own decision, recorded after the raise it causes: the alert stays handled."""
    table, _, roll = _pass_line_seven(hb)
    call = _call(hb, roll["roll_id"], total=2)
    ref = str(call["id"])
    assert _act(hb, ref, "correct", [1, 1])["final_faces"] == [1, 1]
    [alert], count = _open(hb, table)
    assert (alert["open"], alert["matches"], count) == (False, True, 0)
    _review(hb, roll["roll_id"], "correct", [2, 2])
    [alert], count = _open(hb, table)
    assert (alert["open"], alert["matches"], count) == (True, False, 1)
    assert alert["detail"] == "dealer called 2, the review decided 4"
    assert _act(hb, ref, "correct", [1, 1])["final_faces"] == [1, 1]  # agrees: handled
    raised = len(_mismatch_events(hb, table))
    assert _act(hb, ref, "correct", [2, 3])["final_faces"] == [2, 3]
    assert len(_mismatch_events(hb, table)) == raised + 1
    [alert], count = _open(hb, table)
    assert (alert["open"], alert["matches"], count) == (False, False, 0)
    assert _verify(hb).ok


def test_an_old_call_raised_again_is_listed_ahead_of_newer_handled_ones(hb):
    """The list keeps the newest alerts: a call raised again counts as of its new raise, so
    older calls' ids do not push it out of the open list."""
    from dicecall.api.console.queries import alerts

    _, _, old = _pass_line_seven(hb)
    old_call = _call(hb, old["roll_id"], total=2)
    _act(hb, str(old_call["id"]), "acknowledge")
    _, _, new = _pass_line_seven(hb)
    new_call = _call(hb, new["roll_id"], total=3)
    _act(hb, str(new_call["id"]), "acknowledge")
    _review(hb, old["roll_id"], "correct", [1, 1])
    _review(hb, old["roll_id"], "correct", [3, 4])
    assert [a["ref"] for a in alerts(hb.db, limit=1)] == [str(old_call["id"])]
    assert [a["ref"] for a in alerts(hb.db, include_handled=True, limit=2)] == [
        str(old_call["id"]), str(new_call["id"])]


def test_v1_alerts_keeps_the_latest_raised_calls_up_to_its_limit(hb):
    """Like the console's list, /v1/alerts orders by the raise: an old call a review made
    disagree again (623a.9(c)) comes ahead of a newer call, not past the limit."""
    _, _, old = _pass_line_seven(hb)
    old_call = _call(hb, old["roll_id"], total=2)
    _, _, new = _pass_line_seven(hb)
    new_call = _call(hb, new["roll_id"], total=3)
    _review(hb, old["roll_id"], "correct", [1, 1])
    _review(hb, old["roll_id"], "correct", [3, 4])

    def listed(limit: int) -> list[int]:
        r = hb.client.get("/v1/alerts", params={"limit": limit},
                          headers=hb.auth("surveillance"))
        assert r.status_code == 200, r.text
        out = r.json()
        assert [a["raised_at"] for a in out] == sorted((a["raised_at"] for a in out),
                                                       reverse=True)
        return [a["id"] for a in out]

    assert new_call["raised_at"] is not None  # a call that disagrees when it comes in
    assert listed(1) == [old_call["id"]]
    assert listed(2) == [old_call["id"], new_call["id"]]


def test_a_raise_moved_back_to_close_the_alert_is_named_by_verify(hb):
    """The raise time a review stores is its dealer_call_mismatch event's: moving it before
    surveillance's earlier acknowledgement would close the reopened alert unseen."""
    table, _, roll = _pass_line_seven(hb)
    call = _call(hb, roll["roll_id"], total=2)
    _act(hb, str(call["id"]), "acknowledge")
    _review(hb, roll["roll_id"], "correct", [1, 1])
    _review(hb, roll["roll_id"], "correct", [3, 4])
    [alert], _ = _open(hb, table)
    assert alert["open"] is True
    assert _verify(hb).ok
    with hb.db.write() as session:
        session.execute(text("UPDATE dealer_calls SET mismatch_raised_at = created_at "
                             "WHERE id = :i"), {"i": call["id"]})
    [alert], _ = _open(hb, table)
    assert alert["open"] is False
    problems = " | ".join(_verify(hb).problems)
    assert (f"dealer call {call['id']} (roll {roll['roll_id']}): mismatch_raised_at edited"
            in problems)


def test_the_migration_takes_the_raise_time_of_stored_calls_from_the_chain(hb, db_url):
    """Rows stored before 0007 get their last raise from the chain's dealer_call_mismatch
    events (the call's own time when there is none), so an alert raised again before the
    upgrade is still open after it, and one handled since is not. The backfilled rows
    verify: audit_rows holds the column to the same events (and a call a review made
    disagree before reviews raised alerts, with no mismatch event, to its own time)."""
    from alembic import command

    from dicecall.api import audit
    from dicecall.api.db.migrate import alembic_config, upgrade
    from dicecall.api.db.models import DealerCall, Event

    table, _, roll = _pass_line_seven(hb)
    again = _call(hb, roll["roll_id"], total=2)
    _act(hb, str(again["id"]), "acknowledge")
    _review(hb, roll["roll_id"], "correct", [1, 1])
    _review(hb, roll["roll_id"], "correct", [3, 4])  # raised again: open
    other_table, _, other = _pass_line_seven(hb)
    handled = _call(hb, other["roll_id"], total=3)
    _act(hb, str(handled["id"]), "acknowledge")
    right = _call(hb, other["roll_id"], total=7)
    legacy_table, _, seven = _pass_line_seven(hb)
    legacy = _call(hb, seven["roll_id"], total=7)
    with hb.db.write() as session:  # a recheck as made before 67d6e15: no mismatch event
        audit.append(session, [audit.Pending(legacy_table, "dealer_call_rechecked", {
            "call_id": legacy["id"], "roll_id": seven["roll_id"], "from_matches": True,
            "matches": False, "detail": "dealer called 7, the review decided 2",
            "faces": [1, 1]})])
        session.execute(text("UPDATE dealer_calls SET matches = :f, detail = :d WHERE id = :i"),
                        {"f": False, "d": "dealer called 7, the review decided 2",
                         "i": legacy["id"]})
    with hb.db.read() as session:
        last = {}
        for e in session.scalars(select(Event).where(Event.kind == "dealer_call_mismatch")
                                 .order_by(Event.id)):
            last[json.loads(e.payload)["call_id"]] = e.created_at
    command.downgrade(alembic_config(db_url), "0006")
    upgrade(db_url)
    with hb.db.read() as session:
        stored = {c.id: c.mismatch_raised_at for c in session.scalars(select(DealerCall))}
    assert stored == {again["id"]: last[again["id"]], handled["id"]: last[handled["id"]],
                      right["id"]: None, legacy["id"]: legacy["created_at"]}
    assert _verify(hb).problems == []
    [alert], count = _open(hb, table)
    assert (alert["ref"], alert["open"], count) == (str(again["id"]), True, 1)
    [alert], count = _open(hb, other_table)
    assert (alert["ref"], alert["open"], count) == (str(handled["id"]), False, 0)


def test_a_first_comparison_edited_off_the_handled_list_is_named_by_verify(hb):
    """A call a review made agree stays in the console's handled list by its first
    comparison (original_matches false): the row check holds original_* to the call's
    dealer_call event, not to the recheck, so the call verifies as stored, and editing it to
    agree (the call leaves the list) or its text is named."""
    table, _, roll = _pass_line_seven(hb)
    call = _call(hb, roll["roll_id"], total=2)
    _review(hb, roll["roll_id"], "correct", [1, 1])
    [alert], _ = _open(hb, table)
    assert (alert["matches"], alert["original_matches"]) == (True, False)
    assert _verify(hb).ok
    with hb.db.write() as session:
        session.execute(text("UPDATE dealer_calls SET original_matches = matches, "
                             "original_detail = detail WHERE id = :i"), {"i": call["id"]})
    assert _open(hb, table)[0] == []
    problems = " | ".join(_verify(hb).problems)
    name = f"dealer call {call['id']} (roll {roll['roll_id']})"
    assert f"{name}: original_matches edited" in problems
    assert f"{name}: original_detail edited" in problems
    assert f"{name}: matches edited" not in problems and f"{name}: detail edited" not in (
        problems)


def test_a_downgrade_past_0006_keeps_the_first_comparison_of_rechecked_calls(hb, db_url):
    """Downgrading below 0006 drops original_*; the upgrade takes them again from each
    call's first dealer_call event (its matches and detail), so a call a review rechecked
    keeps its first comparison, stays in the console's handled list and verifies (the
    row's current comparison would be the review's). Rows stored before 0006 were never
    rechecked: for them the event is the row's comparison."""
    from alembic import command

    from dicecall.api.db.migrate import alembic_config, upgrade
    from dicecall.api.db.models import DealerCall

    table, _, roll = _pass_line_seven(hb)
    rechecked = _call(hb, roll["roll_id"], total=2)
    kept = _call(hb, roll["roll_id"], faces=[5, 6])
    _review(hb, roll["roll_id"], "correct", [1, 1])
    with hb.db.read() as session:
        before = {c.id: (c.matches, c.detail, c.original_matches, c.original_detail)
                  for c in session.scalars(select(DealerCall))}
    assert before[rechecked["id"]][:3] == (True, "matches the review ([1, 1], total 2)", False)
    command.downgrade(alembic_config(db_url), "0005")
    upgrade(db_url)
    with hb.db.read() as session:
        after = {c.id: (c.matches, c.detail, c.original_matches, c.original_detail)
                 for c in session.scalars(select(DealerCall))}
    assert after == before
    assert after[rechecked["id"]][3] == rechecked["detail"]
    assert after[kept["id"]][2:] == (False, kept["detail"])
    assert _verify(hb).problems == []
    alerts, count = _open(hb, table)
    assert {a["ref"]: (a["open"], a["original_matches"]) for a in alerts} == {
        str(rechecked["id"]): (False, False), str(kept["id"]): (True, False)}
    assert count == 1
