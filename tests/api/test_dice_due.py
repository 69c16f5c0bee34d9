"""Dice overdue for a change: 24 h per set in service (623a.7(d) Craps and Mini-Craps,
668a.3(b)(1) Props & Hops, 675a.3(b)(1) High Roll Dice), the boundary, and where
surveillance sees it (the dice-set listing and the console's table grid)."""

from __future__ import annotations

import time

import pytest
from pydantic import ValidationError
from sqlalchemy import update

from dicecall.api.db.models import DiceSet
from dicecall.api.services.dice_due import dice_due, section_for

GAMES = {"craps": "623a.7(d)", "mini-craps": "623a.7(d)", "props-and-hops": "668a.3(b)(1)",
         "high-roll-dice": "675a.3(b)(1)", "high-roll-dice-6": "675a.3(b)(1)"}
T0 = 1_767_225_600.0
DAY = 24 * 3600.0


@pytest.mark.parametrize(("game", "section"), GAMES.items())
def test_status_at_the_boundaries_for_each_game(game, section):
    def at(elapsed: float, **kw) -> dict:
        return dice_due(game, T0, T0 + elapsed, **kw)

    assert at(0) == {"status": "ok", "section": section, "deadline": T0 + DAY, "age_s": 0.0}
    assert at(DAY - 3600 - 1)["status"] == "ok"
    assert at(DAY - 3600)["status"] == "due_soon"  # the 1 h warning window starts
    assert at(DAY - 1)["status"] == "due_soon"  # 23:59:59
    assert at(DAY - 1, warn_hours=0)["status"] == "ok"
    # At exactly 24 h the set is overdue: the change was due by then (module docstring).
    assert at(DAY) == {"status": "overdue", "section": section, "deadline": T0 + DAY,
                       "age_s": DAY}
    assert at(25 * 3600)["status"] == "overdue"
    # A house limit tighter than the rules' moves the deadline with it.
    assert at(8 * 3600, max_age_hours=8)["status"] == "overdue"
    assert at(7 * 3600, max_age_hours=8)["status"] == "due_soon"
    assert dice_due(game, None, T0) == {"status": "no_set", "section": section,
                                        "deadline": None, "age_s": None}


def test_a_clock_stepped_back_gives_no_negative_age_and_unknown_games_fail_loudly():
    assert dice_due("craps", T0, T0 - 60)["age_s"] == 0.0
    with pytest.raises(KeyError):
        section_for("roulette")


def test_the_rules_limit_caps_the_setting():
    from dicecall.api.settings import Settings

    assert Settings().dice_max_age_hours == 24 and Settings().dice_warn_hours == 1
    with pytest.raises(ValidationError):
        Settings(dice_max_age_hours=25)
    with pytest.raises(ValidationError):
        Settings(dice_warn_hours=-1)


def age(h, dice_set_id: str, hours: float, retired_hours: float | None = None) -> None:
    """Backdates a set's put in service (and retirement), as if it went in `hours` ago."""
    at = time.time()
    values = {"put_in_service_at": at - hours * 3600}
    if retired_hours is not None:
        values["retired_at"] = at - retired_hours * 3600
    with h.db.write() as session:
        session.execute(update(DiceSet).where(DiceSet.id == dice_set_id).values(**values))


def test_a_set_in_service_25_hours_is_listed_overdue_with_its_games_section(hb):
    for game, section in GAMES.items():
        table = hb.table(game)
        old = hb.client.post(f"/v1/tables/{table}/dice-sets", json={"label": "A1 A2"},
                             headers=hb.auth("admin")).json()["dice_set"]
        new = hb.client.post(f"/v1/tables/{table}/dice-sets", json={"label": "B1 B2"},
                             headers=hb.auth("admin")).json()["dice_set"]
        age(hb, old["id"], 30, retired_hours=25)
        age(hb, new["id"], 25)
        listed = hb.client.get(f"/v1/tables/{table}/dice-sets",
                               headers=hb.auth("surveillance")).json()
        cur, retired = listed
        assert cur["id"] == new["id"] and retired["id"] == old["id"], game
        due = cur["due"]
        assert due["status"] == "overdue" and due["section"] == section, game
        assert due["deadline"] == pytest.approx(time.time() - 3600, abs=60)
        assert due["age_s"] == pytest.approx(25 * 3600, abs=60)
        assert retired["due"] is None  # a retired set is off the table: nothing is due
        # Changing the dice clears it.
        hb.client.post(f"/v1/tables/{table}/dice-sets", json={"label": "C1 C2"},
                       headers=hb.auth("admin"))
        fresh = hb.client.get(f"/v1/tables/{table}/dice-sets",
                              headers=hb.auth("surveillance")).json()[0]["due"]
        assert fresh["status"] == "ok" and fresh["section"] == section


def test_console_grid_and_listing_show_each_tables_dice_status(make_harness, sqlite_url):
    h = make_harness(sqlite_url, dice_warn_hours=2)
    tables = {g: h.table(g) for g in ("craps", "props-and-hops", "high-roll-dice")}
    sets = {g: h.client.post(f"/v1/tables/{t}/dice-sets", json={"label": g},
                             headers=h.auth("admin")).json()["dice_set"]["id"]
            for g, t in tables.items() if g != "high-roll-dice"}
    age(h, sets["craps"], 22.5)  # within the configured 2 h warning
    age(h, sets["props-and-hops"], 24.5)
    r = h.client.post("/console/api/login", json={"token": h.tokens["surveillance"]})
    assert r.status_code == 200, r.text
    grid = {t["id"]: t["dice"] for t in h.client.get("/console/api/tables").json()}
    assert grid[tables["craps"]]["status"] == "due_soon"
    assert grid[tables["props-and-hops"]]["status"] == "overdue"
    assert grid[tables["props-and-hops"]]["section"] == "668a.3(b)(1)"
    assert grid[tables["high-roll-dice"]] == {"status": "no_set", "section": "675a.3(b)(1)",
                                              "deadline": None, "age_s": None}
    listed = h.client.get(f"/console/api/tables/{tables['props-and-hops']}/dice-sets").json()
    assert listed[0]["due"]["status"] == "overdue"
