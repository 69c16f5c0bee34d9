"""Craps house options through the API: odds limits per point (623a.6(e),(f))."""

from __future__ import annotations

THREE_FOUR_FIVE = {"4": 3, "5": 4, "6": 5, "8": 5, "9": 4, "10": 3}


def _create(h, **options):
    return h.client.post("/v1/tables", headers=h.auth("admin"),
                         json={"game": "craps", "options": options})


def test_a_table_takes_odds_limits_per_point_623a_6_e(h):
    r = _create(h, odds_multiple=THREE_FOUR_FIVE, odds_whole_payout=100)
    assert r.status_code == 201, r.text
    table = r.json()["id"]
    got = h.client.get(f"/v1/tables/{table}", headers=h.auth()).json()["options"]
    assert got["odds_multiple"] == THREE_FOUR_FIVE and got["lay_odds_multiple"] is None
    device = h.device(table)
    assert h.wager(table, "pass", 1000).status_code == 201
    assert h.post_roll(table, device, h.body(1, (2, 4))).json()["status"] == "settled"
    r = h.wager(table, "pass_odds", 5001)  # 5x on the 6
    assert r.status_code == 422
    assert (r.json()["code"], r.json()["section"]) == ("outside_limits", "623a.6(e)")
    assert h.wager(table, "pass_odds", 5000).status_code == 201


def test_per_point_odds_outside_the_regulation_are_422(h):
    for value in ({**THREE_FOUR_FIVE, "6": 11}, {"4": 3, "5": 4}, {**THREE_FOUR_FIVE, "x": 2}):
        r = _create(h, odds_multiple=value)
        assert r.status_code == 422, value
        assert (r.json()["code"], r.json()["section"]) == ("bad_option", "623a.6(e)")
