"""Dice sets per table (603a.13): who may change them, one in service at a time, every
change on the audit chain, and the fairness report tested per set, never pooled."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from dicecall.api import audit
from dicecall.api.db.models import DiceSet, Event


def put(h, table: str, label: str, role: str = "surveillance"):
    return h.client.post(f"/v1/tables/{table}/dice-sets", json={"label": label},
                         headers=h.auth(role))


def fairness(h, table: str, **params) -> dict:
    r = h.client.get(f"/v1/tables/{table}/fairness", params=params,
                     headers=h.auth("surveillance"))
    assert r.status_code == 200, r.text
    return r.json()


def post_rolls(h, table, device, faces, first_seq: int, **extra) -> int:
    for k, pair in enumerate(faces):
        r = h.post_roll(table, device, h.body(first_seq + k, pair, **extra))
        assert r.status_code == 201 and r.json()["status"] == "settled", r.text
    return first_seq + len(faces)


LOADED = [(6, k % 6 + 1) for k in range(60)]  # die 1 always shows six
FAIR = [(k % 6 + 1, (k + 3) % 6 + 1) for k in range(60)]  # every face ten times per die


def test_only_surveillance_and_admin_change_or_list_dice_sets(h):
    from dicecall.api.services.tables import create_token

    table = h.table()
    assert put(h, table, "A1 A2", "integration").status_code == 403
    assert h.client.get(f"/v1/tables/{table}/dice-sets",
                        headers=h.auth("integration")).status_code == 403
    labeler = create_token(h.db, "lab", "labeler")["token"]
    r = h.client.post(f"/v1/tables/{table}/dice-sets", json={"label": "A1 A2"},
                      headers={"Authorization": f"Bearer {labeler}"})
    assert r.status_code == 403
    assert h.client.post(f"/v1/tables/{table}/dice-sets",
                         json={"label": "A1 A2"}).status_code == 401
    r = put(h, table, "A1 A2")
    assert r.status_code == 201 and r.json()["dice_set"]["put_in_service_by"] == "surveillance"
    assert put(h, table, "B1 B2", "admin").json()["retired"]["label"] == "A1 A2"
    assert put(h, "no-such-table", "C1").status_code == 404
    for bad in ({"label": ""}, {"label": "   "}, {"label": "a\nb"}, {"label": "x", "y": 1}):
        r = h.client.post(f"/v1/tables/{table}/dice-sets", json=bad,
                          headers=h.auth("admin"))
        assert r.status_code == 422, bad
    listed = h.client.get(f"/v1/tables/{table}/dice-sets", headers=h.auth("surveillance"))
    assert [s["label"] for s in listed.json()] == ["B1 B2", "A1 A2"]


def test_one_set_in_service_and_every_change_on_the_chain(hb):
    table, other = hb.table(), hb.table()
    first = put(hb, table, "A1 A2").json()
    assert first["retired"] is None and first["dice_set"]["in_service"]
    put(hb, other, "Z1 Z2")  # another table's set is not retired by this one's changes
    second = put(hb, table, "B1 B2").json()
    new, old = second["dice_set"], second["retired"]
    assert old["id"] == first["dice_set"]["id"] and not old["in_service"]
    # Retired at the very instant the new set went in: no gap, no overlap.
    assert old["retired_at"] == new["put_in_service_at"] and old["retired_by"] == "surveillance"
    listed = hb.client.get(f"/v1/tables/{table}/dice-sets", headers=hb.auth("admin")).json()
    assert [(s["label"], s["in_service"]) for s in listed] == [("B1 B2", True),
                                                               ("A1 A2", False)]
    assert hb.client.get(f"/v1/tables/{other}/dice-sets",
                         headers=hb.auth("admin")).json()[0]["in_service"]
    with hb.db.read() as session:
        kinds = session.scalars(select(Event.kind).where(Event.table_id == table)
                                .order_by(Event.id)).all()
        assert kinds[-3:] == ["dice_set_in_service", "dice_set_retired",
                              "dice_set_in_service"]
        assert audit.verify(session).ok
    # The database itself refuses a second set in service (a writer bypassing the service).
    with pytest.raises(IntegrityError), hb.db.write() as session:
        session.add(DiceSet(id="00000000-0000-4000-8000-000000000001", table_id=table,
                            label="rogue", put_in_service_at=time.time(),
                            put_in_service_by="x"))


def test_concurrent_changes_leave_one_set_in_service_and_no_overlap(hb):
    from dicecall.api.services.dice_sets import put_in_service

    table = hb.table()
    with ThreadPoolExecutor(6) as pool:
        list(pool.map(lambda k: put_in_service(hb.db, table, f"set {k}", "ops"), range(12)))
    with hb.db.read() as session:
        rows = session.scalars(select(DiceSet).where(DiceSet.table_id == table)
                               .order_by(DiceSet.put_in_service_at)).all()
        assert len(rows) == 12 and [r.retired_at is None for r in rows] == [False] * 11 + [True]
        for before, after in pairwise(rows):
            assert before.retired_at == after.put_in_service_at
        n = session.scalar(select(func.count()).select_from(Event)
                           .where(Event.kind == "dice_set_retired", Event.table_id == table))
        assert n == 11 and audit.verify(session).ok


def test_fairness_restricted_to_a_set_and_a_change_mid_range_reported_apart(hb):
    table = hb.table()
    device = hb.device(table)
    seq = post_rolls(hb, table, device, FAIR[:6], 1)  # before any set was recorded
    a = put(hb, table, "A1 A2").json()["dice_set"]
    seq = post_rolls(hb, table, device, LOADED[:30], seq)
    mid_a = time.time()
    seq = post_rolls(hb, table, device, LOADED[30:], seq)
    b = put(hb, table, "B1 B2").json()["dice_set"]
    seq = post_rolls(hb, table, device, FAIR[:30], seq)
    mid_b = time.time()
    seq = post_rolls(hb, table, device, FAIR[30:], seq)

    whole = fairness(hb, table)
    assert [g["dice_set"] and g["dice_set"]["label"] for g in whole["sets"]] == [
        None, "A1 A2", "B1 B2"]
    loose, ga, gb = whole["sets"]
    assert (loose["rolls"], ga["rolls"], gb["rolls"], whole["rolls"]) == (6, 60, 60, 126)
    # Set A's loaded die alerts; set B's faces are its own, not pooled with A's.
    assert ga["alert"] and ga["biased"] == ["die 1", "all dice"] and whole["alert"]
    assert not gb["alert"] and [t["counts"] for t in gb["tests"]] == [[10] * 6, [10] * 6,
                                                                      [20] * 6]
    assert ga["end"] == gb["start"] == b["put_in_service_at"] and gb["end"] is None
    assert "Dice set A1 A2" in whole["svg"] and "Dice set B1 B2 (in service)" in whole["svg"]

    only_b = fairness(hb, table, dice_set=b["id"])
    [g] = only_b["sets"]
    assert only_b["dice_set_id"] == b["id"] and g["dice_set"]["id"] == b["id"]
    assert g["rolls"] == 60 and not only_b["alert"] and only_b["start"] == b["put_in_service_at"]
    only_a = fairness(hb, table, dice_set=a["id"])
    assert only_a["sets"][0]["rolls"] == 60 and only_a["alert"]
    assert (only_a["start"], only_a["end"]) == (a["put_in_service_at"], b["put_in_service_at"])
    # The range intersected with the set's time in service.
    late_a = fairness(hb, table, dice_set=a["id"], start=mid_a, end=mid_b)
    assert late_a["sets"][0]["rolls"] == 30 and late_a["end"] == b["put_in_service_at"]
    across = fairness(hb, table, start=mid_a, end=mid_b)
    assert [(g["dice_set"]["label"], g["rolls"]) for g in across["sets"]] == [
        ("A1 A2", 30), ("B1 B2", 30)]
    assert across["sets"][0]["start"] == mid_a and across["sets"][1]["end"] == mid_b


def test_a_roll_counts_for_the_set_it_was_thrown_with(hb):
    table = hb.table()
    device = hb.device(table)
    a = put(hb, table, "A1 A2").json()["dice_set"]
    thrown = time.time()
    b = put(hb, table, "B1 B2").json()["dice_set"]
    # Held back by the edge during an outage: thrown with set A, arrives under set B.
    post_rolls(hb, table, device, [(2, 5)], 1, captured_at=thrown)
    # A device clock running ahead cannot put a roll after its own arrival.
    post_rolls(hb, table, device, [(4, 4)], 2, captured_at=time.time() + 25)
    counts = {g["dice_set"]["id"]: g["tests"][0]["counts"]
              for g in fairness(hb, table)["sets"]}
    assert counts == {a["id"]: [0, 1, 0, 0, 0, 0], b["id"]: [0, 0, 0, 1, 0, 0]}


def test_bad_dice_set_requests_are_refused(h):
    table, other = h.table(), h.table()
    theirs = put(h, other, "Z1").json()["dice_set"]
    r = h.client.get(f"/v1/tables/{table}/fairness", params={"dice_set": theirs["id"]},
                     headers=h.auth("surveillance"))
    assert r.status_code == 404 and r.json()["code"] == "unknown_dice_set"
    old = put(h, table, "A1").json()["dice_set"]
    put(h, table, "B1")
    r = h.client.get(f"/v1/tables/{table}/fairness", headers=h.auth("surveillance"),
                     params={"dice_set": old["id"], "start": time.time()})
    assert r.status_code == 422 and r.json()["code"] == "bad_range"
    r = h.client.get(f"/v1/tables/{table}/fairness", headers=h.auth("surveillance"),
                     params={"dice_set": "not-a-uuid"})
    assert r.status_code == 422


def test_console_changes_dice_with_its_csrf_token_and_reports_per_set(h):
    table = h.table()
    h.client.cookies.clear()
    csrf = h.client.post("/console/api/login",
                         json={"token": h.tokens["surveillance"]}).json()["csrf"]
    path = f"/console/api/tables/{table}/dice-sets"
    refused = h.client.post(path, json={"label": "A1 A2"})
    assert refused.status_code == 403 and refused.json()["code"] == "bad_csrf"
    r = h.client.post(path, json={"label": "A1 A2"}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201 and r.json()["dice_set"]["put_in_service_by"] == "surveillance"
    [listed] = h.client.get(path).json()
    assert listed["label"] == "A1 A2" and listed["in_service"]
    f = h.client.get(f"/console/api/fairness/{table}", params={"dice_set": listed["id"]})
    assert f.status_code == 200 and f.json()["sets"][0]["dice_set"]["label"] == "A1 A2"
    svg = h.client.get(f"/console/api/fairness/{table}.svg")
    assert svg.headers["content-type"].startswith("image/svg+xml")
    assert "Dice set A1 A2 (in service), 0 rolls" in svg.text
