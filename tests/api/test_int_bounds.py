"""Integers from the query or a header are bounded by their column, on both backends: a
value PostgreSQL cannot compare with an INTEGER or BIGINT column is a 422, never a 500."""

from __future__ import annotations

import pytest

INT4, INT8 = 2**31 - 1, 2**63 - 1


def _login(hb) -> None:
    hb.client.cookies.clear()
    assert hb.client.post("/console/api/login",
                          json={"token": hb.tokens["surveillance"]}).status_code == 200


def test_rolls_paging_is_bounded_by_the_arrival_column(hb):
    table = hb.table()
    url = f"/v1/tables/{table}/rolls"
    assert hb.client.get(url, params={"after": INT4}, headers=hb.auth()).json() == []
    r = hb.client.get(url, params={"after": INT4 + 1}, headers=hb.auth())
    assert r.status_code == 422, r.text


@pytest.mark.parametrize("value", [str(INT8 + 1), "-1", "99999999999999999999", "+1", "1_0",
                                   "abc"])
def test_a_last_event_id_outside_the_id_column_is_422(hb, value):
    r = hb.client.get("/v1/events", params={"follow": "false"}, headers={
        **hb.auth(), "Last-Event-ID": value})
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "bad_last_event_id"


def test_the_largest_event_id_is_accepted(hb):
    r = hb.client.get("/v1/events", params={"follow": "false", "after": INT8},
                      headers={**hb.auth(), "Last-Event-ID": str(INT8)})
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("after,header", [
    ("abc", None), ("-1", None), (str(INT8 + 1), None), ("1.5", None), ("\u00b2", None),
    (None, "-1"), (None, str(INT8 + 1))])
def test_console_stream_position_is_validated(hb, after, header):
    _login(hb)
    r = hb.client.get("/console/api/events", params={"after": after} if after else None,
                      headers={"Last-Event-ID": header} if header else None)
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "bad_last_event_id"
