"""No wager is made, reduced or removed on dice already thrown (623a.4, 668a.2(a),
675a.2(a)): not while a roll is held or queued for review, and in Craps not after "no more
bets"; on both backends."""

from __future__ import annotations

import pytest

ROLL_PENDING = {"craps": "623a.4(a),(c),(d)", "props-and-hops": "668a.2(a)",
                "high-roll-dice": "675a.2(a)"}


def _held(hb, table, device, seq, faces=(3, 4)):
    r = hb.post_roll(table, device, hb.body(seq, faces, verdict="needs_review")).json()
    assert r["status"] == "held"
    return r["roll_id"]


def _review(hb, roll_id):
    r = hb.client.post(f"/v1/rolls/{roll_id}/review", json={"action": "confirm"},
                       headers=hb.auth("surveillance"))
    assert r.status_code == 200, r.text
    return r.json()


def _refused(r, code, section):
    assert r.status_code == 409, r.text
    assert (r.json()["code"], r.json()["section"]) == (code, section)


def _reduce(hb, table, wager_id, amount):
    return hb.client.patch(f"/v1/tables/{table}/wagers/{wager_id}", json={"amount": amount},
                           headers=hb.auth())


def _remove(hb, table, wager_id):
    return hb.client.delete(f"/v1/tables/{table}/wagers/{wager_id}", headers=hb.auth())


def test_no_pass_bet_on_a_held_come_out_seven(hb):
    """The dice showed 7 and the roll is held: a Pass Bet made now would win it."""
    table = hb.table()
    device = hb.device(table)
    held = _held(hb, table, device, 0)
    r = hb.wager(table, "pass", 1000)
    _refused(r, "roll_pending", ROLL_PENDING["craps"])
    assert held in r.json()["message"]
    assert _review(hb, held)["settlement"]["lines"] == []  # nothing rode on the 7
    assert hb.wager(table, "pass", 1000).status_code == 201  # the next roll is open


def test_no_reduction_or_removal_while_a_roll_is_held_or_queued(hb):
    """A place bet on 6 and a Don't Pass (removable "at any time", 623a.4(d)) stay up while
    the seven that decides them waits for review, and while a roll is queued behind it."""
    table = hb.table()
    device = hb.device(table)
    assert hb.wager(table, "pass", 1000).status_code == 201
    assert hb.wager(table, "dont_pass", 1000).status_code == 201
    assert hb.post_roll(table, device, hb.body(0, (2, 4))).json()["status"] == "settled"
    place = hb.wager(table, "place_to_win", 1200, number=6).json()["wager"]["id"]
    dont = next(w["id"] for w in hb.client.get(f"/v1/tables/{table}/wagers",
                                               headers=hb.auth()).json()
                if w["name"] == "dont_pass")
    held = _held(hb, table, device, 1)
    queued = hb.post_roll(table, device, hb.body(2, (5, 5))).json()
    assert queued["status"] == "queued"
    for wager_id in (place, dont):
        _refused(_remove(hb, table, wager_id), "roll_pending", ROLL_PENDING["craps"])
        _refused(_reduce(hb, table, wager_id, 600), "roll_pending", ROLL_PENDING["craps"])
    _refused(hb.wager(table, "field", 500), "roll_pending", ROLL_PENDING["craps"])
    lines = {ln["name"]: ln["result"] for ln in _review(hb, held)["settlement"]["lines"]}
    assert lines == {"pass": "lose", "place_to_win": "lose", "dont_pass": "win"}


def test_craps_wagers_stay_up_after_no_more_bets(hb):
    """In Craps "no more bets" marks the throw (623a.4(a)): a wager may be removed or
    reduced only before the roll that decides it (623a.4(c),(d))."""
    table = hb.table()
    assert hb.wager(table, "pass", 1000).status_code == 201
    wagers = hb.client.get(f"/v1/tables/{table}/wagers", headers=hb.auth()).json()
    closed = hb.client.post(f"/v1/tables/{table}/rounds/current/no-more-bets",
                            headers=hb.auth())
    assert closed.status_code == 200
    _refused(_remove(hb, table, wagers[0]["id"]), "not_removable", "623a.4(a),(c),(d)")
    _refused(_reduce(hb, table, wagers[0]["id"], 500), "not_removable", "623a.4(a),(c),(d)")


@pytest.mark.parametrize("game,name,params,faces", [
    ("props-and-hops", "six_eight_shake", {}, (1, 6)),
    ("high-roll-dice", "pip_street", {"face": 1}, (1,) * 10)])
def test_other_games_refuse_wagers_while_a_roll_is_held(hb, game, name, params, faces):
    """A Six Eight Shake may come down "at any time prior to a 7" (668a.1(b)(5)), but not
    once the 7 is thrown and held."""
    table = hb.table(game)
    device = hb.device(table)
    placed = hb.wager(table, name, 1000, **params)
    assert placed.status_code == 201, placed.text
    wager_id = placed.json()["wager"]["id"]
    held = hb.post_roll(table, device, hb.body(0, faces, verdict="needs_review",
                                               confidences=[0.99] * len(faces))).json()
    assert held["status"] == "held"
    _refused(hb.wager(table, name, 1000, seat=1, **params), "roll_pending",
             ROLL_PENDING[game])
    _refused(_remove(hb, table, wager_id), "roll_pending", ROLL_PENDING[game])


def _no_more_bets(hb, table):
    r = hb.client.post(f"/v1/tables/{table}/rounds/current/no-more-bets", headers=hb.auth())
    assert r.status_code == 200, r.text


def test_after_the_throw_only_a_wager_the_roll_cannot_decide_comes_down(hb):
    """623a.4(c): a wager comes down "at any time prior to a roll that decides the outcome of
    the wager". On the come out roll a Place Bet or Hardway without an "on" marker is inactive
    (623a.3(a)(5),(9)): the dice thrown cannot decide it, so it may still be reduced or removed;
    it was refused like the rest. A Don't Pass is removable "at any time" (623a.4(d)) but the
    thrown roll can decide it: taking it down now would be past-posting, so it stays up, as
    does every wager the roll can decide. Nothing is made after the throw (623a.4(a))."""
    table = hb.table()
    device = hb.device(table)
    ids = {}
    for name, amount, params in (("pass", 1000, {}), ("dont_pass", 1000, {}),
                                 ("place_to_win", 1200, {"number": 6}),
                                 ("hardway", 500, {"number": 8}), ("field", 500, {})):
        r = hb.wager(table, name, amount, **params)
        assert r.status_code == 201, r.text
        ids[name] = r.json()["wager"]["id"]
    _no_more_bets(hb, table)
    for name in ("pass", "dont_pass", "field"):
        _refused(_remove(hb, table, ids[name]), "not_removable", "623a.4(a),(c),(d)")
        _refused(_reduce(hb, table, ids[name], 500), "not_removable", "623a.4(a),(c),(d)")
    r = _reduce(hb, table, ids["place_to_win"], 600)
    assert r.status_code == 200 and r.json()["returned"] == 600, r.text
    r = _remove(hb, table, ids["hardway"])
    assert r.status_code == 200 and r.json()["returned"] == 500, r.text
    _refused(hb.wager(table, "place_to_win", 600, seat=1, number=6), "bet_closed", "623a.4(a)")
    lines = {ln["name"]: ln["result"] for ln in
             hb.post_roll(table, device, hb.body(0, (1, 6))).json()["settlement"]["lines"]}
    assert lines == {"pass": "win", "dont_pass": "lose", "field": "lose"}


def test_a_dont_pass_on_a_point_stays_up_once_the_dice_are_thrown(hb):
    """623a.4(d)'s "at any time" lifts the Pass Bet's lock (623a.4(c)(1)) from the Don't Pass
    while a point is on, not the line of 623a.4(a),(c): the dice thrown at the point decide it."""
    table = hb.table()
    device = hb.device(table)
    dont = hb.wager(table, "dont_pass", 1000).json()["wager"]["id"]
    assert hb.post_roll(table, device, hb.body(0, (2, 2))).json()["status"] == "settled"
    assert _reduce(hb, table, dont, 500).status_code == 200  # before the throw: any time
    _no_more_bets(hb, table)
    _refused(_remove(hb, table, dont), "not_removable", "623a.4(a),(c),(d)")


def test_a_wager_no_pending_roll_can_decide_comes_down_while_it_is_held(hb):
    """623a.4(c): a wager comes down "at any time prior to a roll that decides the outcome of
    the wager". A come out roll held for review cannot decide a Place Bet or a Hardway
    without an "on" marker (623a.3(a)(5),(9)), whatever faces the review gives it: they may
    be reduced or removed as after "no more bets"; every removal was `roll_pending`. The
    Pass Bet the roll decides stays up, and once a roll is queued behind the held one, the
    Place Bet stays up too: the held come out may set its point and the queued roll make it."""
    table = hb.table()
    device = hb.device(table)
    ids = {}
    for name, amount, params in (("pass", 1000, {}), ("place_to_win", 1200, {"number": 6}),
                                 ("hardway", 500, {"number": 8})):
        r = hb.wager(table, name, amount, **params)
        assert r.status_code == 201, r.text
        ids[name] = r.json()["wager"]["id"]
    _no_more_bets(hb, table)
    held = _held(hb, table, device, 0, faces=(3, 3))
    _refused(_remove(hb, table, ids["pass"]), "roll_pending", ROLL_PENDING["craps"])
    r = _reduce(hb, table, ids["place_to_win"], 600)
    assert r.status_code == 200 and r.json()["returned"] == 600, r.text
    r = _remove(hb, table, ids["hardway"])
    assert r.status_code == 200 and r.json()["returned"] == 500, r.text
    _refused(hb.wager(table, "hardway", 500, number=8), "roll_pending", ROLL_PENDING["craps"])
    assert hb.post_roll(table, device, hb.body(1, (2, 4))).json()["status"] == "queued"
    _refused(_remove(hb, table, ids["place_to_win"]), "roll_pending", ROLL_PENDING["craps"])
    assert _review(hb, held)["settlement"]["events"] == ["point_on:6"]
    rolls = hb.client.get(f"/v1/tables/{table}/rolls", headers=hb.auth()).json()
    lines = {ln["name"]: (ln["result"], ln["paid"]) for ln in rolls[-1]["settlement"]["lines"]}
    assert lines == {"pass": ("win", 1000), "place_to_win": ("win", 700)}


def _mark(hb, table, wager_id, working):
    return hb.client.put(f"/v1/tables/{table}/wagers/{wager_id}/working",
                         json={"working": working}, headers=hb.auth())


def test_no_marker_changes_whether_the_thrown_dice_decide_a_wager_623a_4_a_c(hb):
    """Called "on" or "off" once the dice are thrown, a marker would choose, dice in sight,
    whether the roll decides the wager: a Lay called off on a come out 7, a Place Bet called
    on at its number. Refused after "no more bets" (`bet_closed`) and while a roll is held
    (`roll_pending`); a marker the roll cannot make matter (a Place Bet marked "off" on the
    come out, where it is off anyway) is still recorded."""
    table = hb.table()
    device = hb.device(table)
    lay = hb.wager(table, "lay", 2000, number=4).json()["wager"]["id"]
    place = hb.wager(table, "place_to_win", 1200, number=6).json()["wager"]["id"]
    _no_more_bets(hb, table)
    for wager_id, working in ((lay, False), (place, True)):
        _refused(_mark(hb, table, wager_id, working), "bet_closed",
                 "623a.4(a),(c), 623a.3(a)(5)-(10),(41),(42)")
    held = _held(hb, table, device, 0, faces=(3, 3))
    for wager_id, working in ((lay, False), (place, True)):
        _refused(_mark(hb, table, wager_id, working), "roll_pending", ROLL_PENDING["craps"])
    r = _mark(hb, table, place, False)
    assert r.status_code == 200 and r.json()["wager"]["working"] is False, r.text
    assert _review(hb, held)["settlement"]["events"] == ["point_on:6"]
    lines = hb.post_roll(table, device, hb.body(1, (2, 4))).json()["settlement"]["lines"]
    assert lines == []  # the Place Bet on 6 was called off before the throw
