"""Tables, rounds, shooters and wagers through their routers (engine refusals as errors)."""

from __future__ import annotations


def test_create_and_read_a_table(h):
    r = h.client.post("/v1/tables", headers=h.auth("admin"), json={
        "game": "props-and-hops", "name": "P&H 1", "options": {"table_min": 200}})
    assert r.status_code == 201
    table = r.json()
    assert table["options"]["table_min"] == 200 and table["round"]["betting_open"]
    got = h.client.get(f"/v1/tables/{table['id']}", headers=h.auth("surveillance")).json()
    assert got["game"] == "props-and-hops"
    assert [t["id"] for t in h.client.get("/v1/tables", headers=h.auth()).json()] == \
        [table["id"]]
    assert h.client.get("/v1/tables/nope", headers=h.auth()).status_code == 404


def test_options_the_rules_refuse_are_422_with_the_section(h):
    r = h.client.post("/v1/tables", headers=h.auth("admin"),
                      json={"game": "craps", "options": {"odds_multiple": 20}})
    assert r.status_code == 422
    assert (r.json()["code"], r.json()["section"]) == ("bad_option", "623a.6(e)")


def test_place_list_reduce_remove(h):
    table = h.table()
    r = h.wager(table, "place_to_win", 1200, 2, number=6)
    assert r.status_code == 201
    wid = r.json()["wager"]["id"]
    r = h.client.patch(f"/v1/tables/{table}/wagers/{wid}", json={"amount": 600},
                       headers=h.auth())
    assert r.status_code == 200 and r.json()["returned"] == 600
    listed = h.client.get(f"/v1/tables/{table}/wagers", headers=h.auth()).json()
    assert [(w["name"], w["amount"], w["params"]) for w in listed] == \
        [("place_to_win", 600, {"number": 6})]
    r = h.client.delete(f"/v1/tables/{table}/wagers/{wid}", headers=h.auth())
    assert r.status_code == 200 and r.json()["amount"] == 0
    r = h.client.delete(f"/v1/tables/{table}/wagers/{wid}", headers=h.auth())
    assert r.status_code == 404


def test_engine_refusals_keep_code_and_section(h):
    table = h.table()
    r = h.wager(table, "come", 1000)
    assert r.status_code == 409
    assert (r.json()["code"], r.json()["section"]) == ("bet_closed", "623a.3(a)(3),(4)")
    r = h.wager(table, "no_such_wager", 1000)
    assert r.status_code == 422 and r.json()["code"] == "unknown_wager"
    r = h.wager(table, "pass", 100)
    assert r.status_code == 422 and r.json()["code"] == "outside_limits"


def test_pass_bet_cannot_be_removed_after_the_point(h):
    table = h.table()
    device = h.device(table)
    wid = h.wager(table, "pass", 1000).json()["wager"]["id"]
    assert h.post_roll(table, device, h.body(1, (2, 4))).json()["status"] == "settled"
    r = h.client.delete(f"/v1/tables/{table}/wagers/{wid}", headers=h.auth())
    assert r.status_code == 409
    assert (r.json()["code"], r.json()["section"]) == ("not_removable", "623a.4(c)(1)")


def _close(h, table, **body):
    return h.client.post(f"/v1/tables/{table}/rounds/current/no-more-bets",
                         headers=h.auth(), json=body or None)


def test_wagers_after_no_more_bets_are_409_with_the_section(h):
    for game, name, params, section in (
            ("craps", "field", {}, "623a.4(a)"),
            ("props-and-hops", "field", {}, "668a.2(a), 668a.3(e)"),
            ("high-roll-dice", "pip_street", {"face": 1}, "675a.2(a), 675a.4(a)")):
        table = h.table(game)
        r = _close(h, table, round=1)
        assert r.status_code == 200 and r.json()["betting_open"] is False
        r = h.wager(table, name, 1000, 1, **params)
        assert r.status_code == 409, (game, r.text)
        assert (r.json()["code"], r.json()["section"]) == ("bet_closed", section)


def test_the_roll_reopens_betting_and_a_stale_close_is_refused(h):
    table = h.table("props-and-hops")
    device = h.device(table)
    assert h.wager(table, "field", 500, 1).status_code == 201
    assert _close(h, table).status_code == 200
    assert h.post_roll(table, device, h.body(1, (1, 2))).json()["status"] == "settled"
    assert h.wager(table, "field", 500, 1).status_code == 201
    r = _close(h, table, round=1)
    assert r.status_code == 409 and r.json()["code"] == "not_current_round"


def test_new_shooter_is_craps_only(h):
    craps = h.table()
    r = h.client.post(f"/v1/tables/{craps}/shooters", headers=h.auth())
    assert r.status_code == 201 and r.json()["shooter"] == 2
    props = h.table("props-and-hops")
    r = h.client.post(f"/v1/tables/{props}/shooters", headers=h.auth())
    assert r.status_code == 409 and r.json()["section"] == "668a.3(k)"


def test_mini_craps_tables_do_not_offer_the_fire_bet_623a_11(h):
    """623a.11 offers the Fire Bet "in the game of Craps": a new Mini-Craps table is refused
    with it, has none by default, and a table stored with it loads but takes no new one."""
    from dicecall.api.db.models import Table
    from dicecall.api.games import serialize

    r = h.client.post("/v1/tables", headers=h.auth("admin"),
                      json={"game": "mini-craps", "options": {"fire": "A"}})
    assert r.status_code == 422
    assert (r.json()["code"], r.json()["section"]) == ("bad_option", "623a.11(a),(b)")
    table = h.table("mini-craps")
    view = h.client.get(f"/v1/tables/{table}", headers=h.auth()).json()
    assert view["options"]["fire"] is None and view["options"]["bonus_craps"] is True
    with h.db.write() as session:  # as a table created before the refusal was stored
        row = session.get(Table, table)
        state = serialize.loads(row.state_json)
        row.state_json = serialize.dumps("mini-craps", serialize.from_json(
            {**serialize.to_json("mini-craps", state),
             "options": {**serialize.options_to_json(state.options), "fire": "A"}}))
        row.version += 1  # not the state the process cached
    view = h.client.get(f"/v1/tables/{table}", headers=h.auth())
    assert view.status_code == 200 and view.json()["options"]["fire"] == "A"
    r = h.wager(table, "fire", 500)
    assert r.status_code == 422
    assert (r.json()["code"], r.json()["section"]) == ("unknown_wager", "623a.11(a),(b)")
    assert h.wager(table, "all_small", 500).status_code == 201  # Bonus Craps: no game named


def _mark(h, table, wager_id, working):
    return h.client.put(f"/v1/tables/{table}/wagers/{wager_id}/working",
                        json={"working": working}, headers=h.auth())


def test_place_buy_hardway_and_lay_bets_are_called_on_or_off_623a_3_a_5_42(h):
    """A Place, Buy or Hardway Bet is inactive on the come out roll "unless called 'on' by
    the player and confirmed by the dealer", a Lay Bet active "unless called 'off'"
    (623a.3(a)(5)-(10),(41),(42)). The engine had the marker but the service had no way
    to record it: a Lay called off still lost to the come out 4."""
    table = h.table()
    device = h.device(table)
    ids = {}
    for name, amount, params in (("place_to_win", 1200, {"number": 4}),
                                 ("buy", 2000, {"number": 4}), ("hardway", 500, {"number": 4}),
                                 ("lay", 2000, {"number": 4}), ("pass", 1000, {})):
        r = h.wager(table, name, amount, **params)
        assert r.status_code == 201, r.text
        ids[name] = r.json()["wager"]["id"]
    for name, working in (("place_to_win", True), ("buy", True), ("lay", False)):
        r = _mark(h, table, ids[name], working)
        assert r.status_code == 200, r.text
        assert (r.json()["wager"]["working"], r.json()["round"]) == (working, 1)
    listed = {w["name"]: w["working"] for w in
              h.client.get(f"/v1/tables/{table}/wagers", headers=h.auth()).json()}
    assert listed == {"place_to_win": True, "buy": True, "hardway": None, "lay": False,
                      "pass": None}
    r = _mark(h, table, ids["pass"], False)
    assert r.status_code == 409 and r.json()["code"] == "no_marker", r.text
    assert _mark(h, table, "nope", True).status_code == 404
    lines = {ln["name"]: (ln["result"], ln["paid"]) for ln in
             h.post_roll(table, device, h.body(0, (1, 3))).json()["settlement"]["lines"]}
    # Buy on the 4: 2 to 1 less the 5% taken when it was bought (623a.5(g)).
    assert lines == {"place_to_win": ("win", 2160), "buy": ("win", 4000)}
    r = _mark(h, table, ids["lay"], None)  # the rule again: a Lay works
    assert r.status_code == 200 and r.json()["wager"]["working"] is None
    lines = {ln["name"]: ln["result"] for ln in
             h.post_roll(table, device, h.body(1, (3, 4))).json()["settlement"]["lines"]}
    assert lines == {"place_to_win": "lose", "buy": "lose", "hardway": "lose",
                     "lay": "win", "pass": "lose"}


def test_other_games_have_no_on_off_marker(h):
    table = h.table("props-and-hops")
    wid = h.wager(table, "field", 1000).json()["wager"]["id"]
    r = _mark(h, table, wid, False)
    assert r.status_code == 409
    assert (r.json()["code"], r.json()["section"]) == ("not_supported", "668a")
