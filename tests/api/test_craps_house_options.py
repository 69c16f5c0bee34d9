"""Craps house options through the API: odds limits per point (623a.6(e),(f)), Buy, Lay and
Place Bets to Lose (623a.3(a)(6),(41),(42)), and a Don't bet removed with its lay odds
(623a.4(d), 623a.6(b))."""

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


def test_buy_and_lay_are_separate_and_lay_may_replace_place_to_lose_623a_3_a_41_42(h):
    r = _create(h, buy=False, place_to_lose=False)
    assert r.status_code == 201, r.text
    table = r.json()["id"]
    assert h.wager(table, "lay", 2000, number=4).status_code == 201
    for name, section in (("buy", "623a.3(a)(41)"), ("place_to_lose", "623a.3(a)(6),(42)")):
        r = h.wager(table, name, 2000, number=4)
        assert r.status_code == 422
        assert (r.json()["code"], r.json()["section"]) == ("unknown_wager", section)
    r = _create(h, lay=False, place_to_lose=False)
    assert r.status_code == 422
    assert (r.json()["code"], r.json()["section"]) == ("bad_option", "623a.3(a)(42)")


def test_tables_with_the_older_buy_lay_option_keep_working(h):
    """A request with `buy_lay`, and a table stored with it, mean Buy and Lay both."""
    from dicecall.api.db.models import Table
    from dicecall.api.games import serialize

    r = _create(h, buy_lay=False)
    assert r.status_code == 201, r.text
    options = r.json()["options"]
    assert (options["buy"], options["lay"]) == (False, False) and "buy_lay" not in options
    table = h.table()
    with h.db.write() as session:  # as a table stored before `buy` and `lay`
        row = session.get(Table, table)
        data = serialize.to_json("craps", serialize.loads(row.state_json))
        for name in ("buy", "lay", "place_to_lose", "lay_odds_multiple", "odds_whole_payout"):
            del data["options"][name]
        data["options"]["buy_lay"] = False
        row.state_json = serialize.dumps("craps", serialize.from_json(data))
        row.version += 1
    r = h.wager(table, "lay", 2000, number=4)
    assert r.status_code == 422 and r.json()["section"] == "623a.3(a)(42)"
    assert h.wager(table, "place_to_lose", 1100, number=4).status_code == 201


def test_removing_a_dont_pass_returns_its_lay_odds_too_623a_4_d(h):
    table = h.table()
    device = h.device(table)
    flat = h.wager(table, "dont_pass", 1000).json()["wager"]["id"]
    assert h.post_roll(table, device, h.body(1, (1, 3))).json()["status"] == "settled"
    odds = h.wager(table, "dont_pass_odds", 6000).json()["wager"]["id"]
    r = h.client.patch(f"/v1/tables/{table}/wagers/{flat}", json={"amount": 500},
                       headers=h.auth())
    assert r.status_code == 200, r.text
    assert r.json()["returned"] == 500 + 3000
    assert r.json()["also"] == [{"wager_id": odds, "amount": 3000, "returned": 3000,
                                 "section": "623a.4(c), 623a.6(b),(e)"}]
    r = h.client.delete(f"/v1/tables/{table}/wagers/{flat}", headers=h.auth())
    assert r.status_code == 200, r.text
    assert (r.json()["returned"], [x["amount"] for x in r.json()["also"]]) == (3500, [0])
    assert h.client.get(f"/v1/tables/{table}/wagers", headers=h.auth()).json() == []
    r = h.client.patch(f"/v1/tables/{table}/wagers/nope", json={"amount": 0}, headers=h.auth())
    assert r.status_code == 404
