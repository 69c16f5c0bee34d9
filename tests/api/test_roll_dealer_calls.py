"""A roll's detail lists the dealer's calls of it, on both backends.

Surveillance reads on the roll what the dealer announced (`call`) and what it was compared
with: the roll as decided now (`matches`, `detail`, which follow a later review) and the
camera's read when the call came in (`original_matches`, `original_detail`). Only the
single-roll detail carries them.
"""

from __future__ import annotations

from .test_correct_settled import _pass_line_seven
from .test_dealer_recheck import _call, _review


def _detail(hb, roll_id: str) -> dict:
    r = hb.client.get(f"/v1/rolls/{roll_id}", headers=hb.auth())
    assert r.status_code == 200, r.text
    return r.json()


def _shown(call: dict) -> tuple:
    return (call["id"], call["matches"], call["detail"], call["original_matches"],
            call["original_detail"])


def test_a_roll_without_calls_lists_none_and_the_list_carries_no_calls(hb):
    table, _, roll = _pass_line_seven(hb)
    assert _detail(hb, roll["roll_id"])["dealer_calls"] == []
    _call(hb, roll["roll_id"], total=7)
    [listed] = hb.client.get(f"/v1/tables/{table}/rolls", headers=hb.auth()).json()
    assert "dealer_calls" not in listed


def test_a_matching_call_is_shown_on_the_roll(hb):
    table, _, roll = _pass_line_seven(hb)
    call = _call(hb, roll["roll_id"], total=7)
    [shown] = _detail(hb, roll["roll_id"])["dealer_calls"]
    assert _shown(shown) == (call["id"], True, "matches the camera ([3, 4], total 7)",
                             True, "matches the camera ([3, 4], total 7)")
    assert (shown["roll_id"], shown["table_id"], shown["created_at"]) == (
        roll["roll_id"], table, call["created_at"])
    # What the dealer announced, as the call's own response gave it.
    assert shown["call"]["total"] == 7 and shown["call"] == call["call"]


def test_a_mismatching_call_is_shown_on_the_roll_only(hb):
    table, device, roll = _pass_line_seven(hb)
    other = hb.post_roll(table, device, hb.body(2, (2, 2))).json()
    call = _call(hb, roll["roll_id"], total=2)
    [shown] = _detail(hb, roll["roll_id"])["dealer_calls"]
    assert _shown(shown) == (call["id"], False, "dealer called 2, the camera read 7",
                             False, "dealer called 2, the camera read 7")
    assert _detail(hb, other["roll_id"])["dealer_calls"] == []


def test_after_a_correction_the_roll_shows_the_flipped_calls_in_order(hb):
    _, _, roll = _pass_line_seven(hb)
    wrong = _call(hb, roll["roll_id"], total=2)   # the camera read 7
    right = _call(hb, roll["roll_id"], faces=[3, 4])
    _review(hb, roll["roll_id"], "correct", [1, 1])
    shown = _detail(hb, roll["roll_id"])["dealer_calls"]
    assert [_shown(c) for c in shown] == [
        (wrong["id"], True, "matches the review ([1, 1], total 2)",
         False, "dealer called 2, the camera read 7"),
        (right["id"], False, "dealer called faces [3, 4], the review decided [1, 1]",
         True, "matches the camera ([3, 4], total 7)")]
    assert [(c["call"].get("total"), c["call"].get("faces")) for c in shown] == [
        (2, None), (None, [3, 4])]
