"""The console's API through TestClient: login and CSRF, roles, alerts, labels, fairness."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import zipfile

import cv2
import numpy as np
import pytest


def jpeg(width: int = 320, height: int = 240, seed: int = 0) -> bytes:
    img = np.full((height, width, 3), 40 + seed % 200, np.uint8)
    cv2.rectangle(img, (50, 60), (90, 100), (250, 250, 250), -1)
    return cv2.imencode(".jpg", img)[1].tobytes()


def with_evidence(body: dict, data: bytes) -> dict:
    sha = hashlib.sha256(data).hexdigest()
    b64 = base64.b64encode(data).decode()
    body["evidence"] = {"clean_sha256": sha, "annotated_sha256": sha,
                        "clean_jpeg_b64": b64, "annotated_jpeg_b64": b64}
    return body


def login(h, role: str) -> dict:
    h.client.cookies.clear()
    r = h.client.post("/console/api/login", json={"token": h.tokens[role]})
    assert r.status_code == 200, r.text
    return {"X-CSRF-Token": r.json()["csrf"]}


def _with_labeler(h):
    from dicecall.api.services.tables import create_token

    h.tokens["labeler"] = create_token(h.db, "lab", "labeler")["token"]
    return h


@pytest.fixture
def hl(h):
    """SQLite, with a labeler token."""
    return _with_labeler(h)


@pytest.fixture
def hlb(hb):
    """Each backend (the console's migration and writes on PostgreSQL too)."""
    return _with_labeler(hb)


def test_login_sets_a_strict_httponly_cookie_and_integration_cannot_log_in(hl):
    r = hl.client.post("/console/api/login", json={"token": hl.tokens["surveillance"]})
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/console" in cookie
    assert hl.client.get("/console/api/me").json()["role"] == "surveillance"
    hl.client.cookies.clear()
    r = hl.client.post("/console/api/login", json={"token": hl.tokens["integration"]})
    assert r.status_code == 403
    r = hl.client.post("/console/api/login", json={"token": "dct_not-a-token"})
    assert r.status_code == 401
    assert hl.client.get("/console/api/tables").status_code == 401


def test_state_change_needs_the_csrf_token(hl):
    headers = login(hl, "admin")
    body = {"name": "x", "role": "labeler"}
    assert hl.client.post("/console/api/tokens", json=body).status_code == 403
    bad = hl.client.post("/console/api/tokens", json=body, headers={"X-CSRF-Token": "0" * 64})
    assert bad.status_code == 403 and bad.json()["code"] == "bad_csrf"
    assert hl.client.post("/console/api/tokens", json=body, headers=headers).status_code == 201


def test_roles_are_enforced(hl):
    headers = login(hl, "surveillance")
    r = hl.client.post("/console/api/tokens", json={"name": "x", "role": "admin"},
                       headers=headers)
    assert r.status_code == 403 and r.json()["code"] == "forbidden"
    assert hl.client.get("/console/api/labels/queue").status_code == 403
    login(hl, "labeler")
    assert hl.client.get("/console/api/labels/queue").status_code == 200
    assert hl.client.get("/console/api/alerts").status_code == 403
    assert hl.client.get("/console/api/tables").status_code == 403


def test_correcting_a_held_roll_settles_the_corrected_faces_and_audits_it(hlb):
    hl = hlb
    table = hl.table()
    device = hl.device(table)
    assert hl.wager(table, "pass", 1000).status_code == 201
    held = hl.body(1, (3, 4), verdict="needs_review")
    assert hl.post_roll(table, device, held).status_code == 201
    headers = login(hl, "surveillance")
    alerts = hl.client.get("/console/api/alerts").json()
    assert [a["kind"] for a in alerts] == ["needs_review"]
    r = hl.client.post(f"/console/api/alerts/needs_review/{held['roll_id']}", headers=headers,
                       json={"action": "correct", "faces": [1, 1]})
    assert r.status_code == 200, r.text
    view = r.json()
    # 7 would win the pass line on the come out; the corrected 2 loses it (623a.3).
    assert view["final_faces"] == [1, 1] and view["settlement"]["collected"] == 1000
    kinds = [e for e in hl.client.get("/v1/events", params={"follow": "false"},
                                      headers=hl.auth()).text.split("\n")
             if e.startswith("event: ")]
    assert "event: review" in kinds
    from dicecall.api.audit import verify
    from dicecall.api.db.models import Event

    with hl.db.read() as session:
        assert verify(session).ok
        actions = [json.loads(e.payload) for e in session.query(Event)
                   .filter(Event.kind == "alert_action")]
    assert actions[0]["action"] == "correct" and actions[0]["faces"] == [1, 1]
    assert hl.client.get("/console/api/alerts").json() == []


def test_a_dealer_call_mismatch_on_a_settled_roll_is_corrected_through_the_engine(hlb):
    hl = hlb
    table = hl.table()
    device = hl.device(table)
    assert hl.wager(table, "pass", 1000).status_code == 201
    body = hl.body(1, (3, 4))
    assert hl.post_roll(table, device, body).json()["settlement"]["paid"] == 1000
    r = hl.client.post(f"/v1/rolls/{body['roll_id']}/dealer-call", json={"total": 2},
                       headers=hl.auth())
    assert r.json()["matches"] is False
    headers = login(hl, "surveillance")
    [alert] = hl.client.get("/console/api/alerts").json()
    assert alert["kind"] == "dealer_call" and alert["roll"]["status"] == "settled"
    url = f"/console/api/alerts/dealer_call/{alert['ref']}"
    # The dealer was right: the 7 that won the pass line was a 2, which loses it (623a.3).
    r = hl.client.post(url, headers=headers, json={"action": "correct", "faces": [1, 1]})
    assert r.status_code == 200, r.text
    assert r.json()["final_faces"] == [1, 1]
    assert r.json()["settlement"]["collected"] == 1000
    assert r.json()["settlement"]["paid"] == 0
    assert hl.client.get("/console/api/alerts").json() == []
    grid = hl.client.get("/console/api/tables").json()
    assert grid[0]["open_alerts"] == 0 and grid[0]["last_roll"]["final_faces"] == [1, 1]
    from dicecall.api.audit import verify
    from dicecall.api.db.models import Event

    with hl.db.read() as session:
        assert verify(session).ok
        kinds = [e.kind for e in session.query(Event).filter(Event.table_id == table)
                 .order_by(Event.id)]
    # The dealer's 2 is compared again with the decided faces, in the review's transaction.
    assert kinds[-4:] == ["correction", "settlement", "dealer_call_rechecked", "alert_action"]
    [done] = hl.client.get("/console/api/alerts", params={"handled": True}).json()
    assert (done["open"], done["matches"], done["original_matches"]) == (False, True, False)
    assert done["detail"] == "matches the review ([1, 1], total 2)"
    assert done["original_detail"] == "dealer called 2, the camera read 7"


def test_a_settled_roll_followed_by_another_cannot_be_corrected_from_an_alert(hl):
    table = hl.table()
    device = hl.device(table)
    body = hl.body(1, (3, 4))
    hl.post_roll(table, device, body)
    hl.post_roll(table, device, hl.body(2, (5, 5)))
    hl.client.post(f"/v1/rolls/{body['roll_id']}/dealer-call", json={"total": 8},
                   headers=hl.auth())
    headers = login(hl, "surveillance")
    [alert] = hl.client.get("/console/api/alerts").json()
    url = f"/console/api/alerts/dealer_call/{alert['ref']}"
    r = hl.client.post(url, headers=headers, json={"action": "correct", "faces": [4, 4]})
    assert r.status_code == 409 and r.json()["code"] == "superseded"
    r = hl.client.post(url, headers=headers, json={"action": "acknowledge"})
    assert r.status_code == 200
    assert hl.client.get("/console/api/alerts").json() == []
    grid = hl.client.get("/console/api/tables").json()
    assert grid[0]["open_alerts"] == 0 and grid[0]["last_roll"]["final_faces"] == [5, 5]


def test_history_is_searchable(hl):
    table = hl.table()
    device = hl.device(table)
    for seq, faces in enumerate([(3, 4), (6, 6), (2, 5)], start=1):
        hl.post_roll(table, device, hl.body(seq, faces))
    login(hl, "surveillance")
    h = hl.client.get(f"/console/api/tables/{table}/rolls", params={"q": "6,6"}).json()
    assert h["total_rolls"] == 3 and [r["faces"] for r in h["rolls"]] == [[6, 6]]
    everything = hl.client.get(f"/console/api/tables/{table}/rolls").json()
    assert [r["arrival"] for r in everything["rolls"]] == [3, 2, 1]
    future = hl.client.get(f"/console/api/tables/{table}/rolls",
                           params={"start": 4e9}).json()
    assert future["rolls"] == []


def test_label_queue_labels_and_export(hlb, tmp_path, monkeypatch):
    hl = hlb
    table = hl.table()
    device = hl.device(table)
    low = with_evidence(hl.body(1, (2, 5), confidences=[0.55, 0.99]), jpeg())
    sure = with_evidence(hl.body(2, (3, 3)), jpeg(seed=1))
    for b in (low, sure):
        assert hl.post_roll(table, device, b).status_code == 201
    headers = login(hl, "labeler")
    queue = hl.client.get("/console/api/labels/queue").json()
    assert [q["roll_id"] for q in queue] == [low["roll_id"]]
    assert queue[0]["why"] == ["low confidence 0.55"]
    dice = [{"face": 2, "box": [50, 60, 90, 100], "cocked": True},
            {"face": 6, "box": [150, 100, 190, 140], "outside": True}]
    url = f"/console/api/labels/{low['roll_id']}"
    assert hl.client.put(url, json={"dice": dice}).status_code == 403  # no CSRF token
    bad = hl.client.put(url, json={"dice": [{"face": 7, "box": [0, 0, 1, 1]}]},
                        headers=headers)
    assert bad.status_code == 422
    r = hl.client.put(url, json={"dice": dice}, headers=headers)
    assert r.status_code == 200 and [d["face"] for d in r.json()] == [2, 6]
    assert hl.client.get("/console/api/labels/queue").json() == []
    z = zipfile.ZipFile(io.BytesIO(hl.client.get("/console/api/labels/export.zip").content))
    root = "dicecall-labels/"
    yolo = z.read(f"{root}labels/{low['roll_id']}.txt").decode().split("\n")
    assert yolo[0] == "1 0.218750 0.333333 0.125000 0.166667"
    coco = json.loads(z.read(f"{root}annotations.json"))
    assert coco["images"][0]["width"] == 320 and coco["images"][0]["height"] == 240
    assert [a["category_id"] for a in coco["annotations"]] == [2, 6]
    assert coco["annotations"][0]["attributes"]["cocked"] is True
    z.extractall(tmp_path)
    from dicecall.calibration.collect import labelled_items
    from dicecall.vision.labelled import read_yolo

    [item] = list(read_yolo(tmp_path / "dicecall-labels"))
    assert item.faces.tolist() == [2, 6]
    np.testing.assert_allclose(item.boxes[0], [50, 60, 90, 100], atol=0.01)
    [(_, boxes, faces, _, _)] = list(labelled_items(tmp_path / "dicecall-labels"))
    assert faces.tolist() == [2, 6] and boxes[1].tolist() == [150, 100, 190, 140]
    # The same export from the command line, against the service's database.
    from typer.testing import CliRunner

    from dicecall.api.settings import get_settings
    from dicecall.cli import app

    for key, value in (("DATABASE_URL", hl.settings.database_url),
                       ("EVIDENCE_DIR", str(hl.settings.evidence_dir)),
                       ("SECRET_KEY", "test-server-key")):
        monkeypatch.setenv(f"DICECALL_{key}", value)
    get_settings.cache_clear()
    try:
        out = CliRunner().invoke(app, ["admin", "export-labels", str(tmp_path / "cli")])
    finally:
        get_settings.cache_clear()
    assert out.exit_code == 0 and "1 labelled frames" in out.output, out.output
    assert (tmp_path / "cli" / "labels" / f"{low['roll_id']}.txt").read_text() == \
        z.read(f"{root}labels/{low['roll_id']}.txt").decode()


def test_fairness_report_alerts_on_a_loaded_die(hl):
    table = hl.table()
    device = hl.device(table)
    rolls = [(6, k % 6 + 1) for k in range(60)]  # die 1 always shows six
    for seq, faces in enumerate(rolls, start=1):
        hl.post_roll(table, device, hl.body(seq, faces))
    login(hl, "surveillance")
    f = hl.client.get(f"/console/api/fairness/{table}").json()
    # No dice set recorded on this table: one group, named as such.
    [group] = f["sets"]
    assert f["rolls"] == 60 and f["alert"] and group["dice_set"] is None
    assert group["biased"] == ["die 1", "all dice"]
    assert group["tests"][0]["counts"] == [0, 0, 0, 0, 0, 60]
    assert group["tests"][1]["counts"] == [10] * 6 and not group["tests"][1]["biased"]
    assert f["svg"].startswith("<svg") and "No dice set recorded" in f["svg"]
    [sweep] = hl.client.get("/console/api/fairness-alerts").json()
    assert sweep["table_id"] == table and sweep["dice_set"] is None
    assert [b["label"] for b in sweep["biased"]] == ["die 1", "all dice"]
    r = hl.client.get(f"/v1/tables/{table}/fairness", headers=hl.auth("surveillance"))
    assert r.json()["sets"][0]["biased"] == ["die 1", "all dice"]
    assert hl.client.get(f"/v1/tables/{table}/fairness", headers=hl.auth()).status_code == 403


def test_migrations_match_the_models(sqlite_url):
    """Alembic at head creates exactly the tables and columns the models declare (the
    console's `die_labels` and `alert_actions` included)."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlalchemy import create_engine

    from dicecall.api.db import console_models  # noqa: F401
    from dicecall.api.db.migrate import upgrade
    from dicecall.api.db.models import Base

    upgrade(sqlite_url)
    engine = create_engine(sqlite_url)
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    engine.dispose()


def test_an_alert_ref_that_is_not_an_id_is_unknown_not_a_server_error(hl):
    headers = login(hl, "surveillance")
    # "²" is a digit to str.isdigit() but not to int(); 10**23 overflows an id column.
    for ref in ("%C2%B2", "9" * 23, "-1", "abc"):
        r = hl.client.post(f"/console/api/alerts/dealer_call/{ref}", headers=headers,
                           json={"action": "acknowledge"})
        assert r.status_code == 404 and r.json()["code"] == "unknown_alert", (ref, r.text)


def test_a_label_box_must_be_finite_and_inside_the_frame(hl):
    """NaN was a 500 (NOT NULL on SQLite), Infinity was stored as null, and a box past the
    frame was kept and exported with YOLO coordinates above 1; each is now a 422 and the
    labels already saved stay."""
    table = hl.table()
    device = hl.device(table)
    low = with_evidence(hl.body(1, (2, 5), confidences=[0.55, 0.99]), jpeg(320, 240))
    assert hl.post_roll(table, device, low).status_code == 201
    headers = {**login(hl, "labeler"), "Content-Type": "application/json"}
    url = f"/console/api/labels/{low['roll_id']}"
    good = {"dice": [{"face": 2, "box": [50, 60, 90, 100]}]}
    assert hl.client.put(url, json=good, headers=headers).status_code == 200
    for raw in (b'{"dice": [{"face": 3, "box": [1, 1, NaN, 9]}]}',
                b'{"dice": [{"face": 3, "box": [1, 1, Infinity, 9]}]}',
                b'{"dice": [{"face": 3, "box": [-Infinity, 1, 5, 9]}]}'):
        r = hl.client.put(url, content=raw, headers=headers)
        assert r.status_code == 422, (raw, r.text)
    for box in ([300, 200, 321, 230], [10, 10, 40, 241]):
        r = hl.client.put(url, json={"dice": [{"face": 3, "box": box}]}, headers=headers)
        assert r.status_code == 422 and r.json()["code"] == "box_outside_frame", r.text
    edge = {"dice": [{"face": 4, "box": [280, 200, 320, 240]}]}  # up to the frame's edge
    saved = hl.client.get(url).json()
    assert [d["box"] for d in saved] == [[50.0, 60.0, 90.0, 100.0]]
    assert hl.client.put(url, json=edge, headers=headers).status_code == 200


def test_a_token_name_or_note_with_a_nul_or_blank_name_is_refused(hlb):
    """PostgreSQL text cannot hold NUL: a token named "a\\x00b" or a note with one was a
    500 there; a blank or multi-line name is refused too (it names who acted)."""
    hl = hlb
    table = hl.table()
    device = hl.device(table)
    held = hl.body(1, (3, 4), verdict="needs_review")
    assert hl.post_roll(table, device, held).status_code == 201
    headers = login(hl, "admin")
    for name in ("a\x00b", "   ", "a\nb"):
        r = hl.client.post("/console/api/tokens", json={"name": name, "role": "labeler"},
                           headers=headers)
        assert r.status_code == 422 and r.json()["code"] == "bad_name", (name, r.text)
    r = hl.client.post(f"/console/api/alerts/needs_review/{held['roll_id']}",
                       headers=headers, json={"action": "acknowledge", "note": "x\x00"})
    assert r.status_code == 422, r.text
    r = hl.client.post(f"/console/api/alerts/needs_review/{held['roll_id']}",
                       headers=headers, json={"action": "acknowledge", "note": "seen\nok"})
    assert r.status_code == 200, r.text
    assert hl.client.post("/console/api/tokens", json={"name": "floor 2", "role": "labeler"},
                          headers=headers).status_code == 201


def test_a_dealer_no_roll_on_a_settled_roll_voids_it_from_the_alert_623a_9_c(hl):
    """The dealer called no roll on a throw the camera settled: surveillance orders it void
    (623a.9(c)) while it is the table's latest change; the pass line is up again."""
    table = hl.table()
    device = hl.device(table)
    assert hl.wager(table, "pass", 1000).status_code == 201
    body = hl.body(1, (3, 4))
    assert hl.post_roll(table, device, body).json()["settlement"]["paid"] == 1000
    r = hl.client.post(f"/v1/rolls/{body['roll_id']}/dealer-call", json={"no_roll": True},
                       headers=hl.auth())
    assert r.json()["matches"] is False
    headers = login(hl, "surveillance")
    [alert] = hl.client.get("/console/api/alerts").json()
    url = f"/console/api/alerts/dealer_call/{alert['ref']}"
    r = hl.client.post(url, headers=headers, json={"action": "no_roll"})
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "no_roll" and r.json()["settlement"] is None
    assert [w["name"] for w in hl.client.get(f"/v1/tables/{table}/wagers",
                                             headers=hl.auth()).json()] == ["pass"]
    # The roll is voided, not settled: surveillance is told so (623a.9(c)), whatever it
    # tries next; acknowledging is still recorded.
    for again in ({"action": "no_roll"}, {"action": "correct", "faces": [1, 1]}):
        r = hl.client.post(url, headers=headers, json=again)
        assert (r.status_code, r.json()["code"]) == (409, "roll_voided"), again
        assert r.json()["section"] == "623a.9(c)" and "voided" in r.json()["message"]
    assert hl.client.post(url, headers=headers,
                          json={"action": "acknowledge"}).status_code == 200


def test_a_camera_no_roll_is_still_already_settled_from_the_alert(hl):
    """A roll the camera called no roll was never settled nor voided by a review: correcting
    it from the console keeps its own refusal, `already_settled`."""
    table = hl.table()
    device = hl.device(table)
    body = hl.body(1, (3, 4), verdict="no_roll")
    assert hl.post_roll(table, device, body).json()["status"] == "no_roll"
    r = hl.client.post(f"/v1/rolls/{body['roll_id']}/dealer-call", json={"total": 7},
                       headers=hl.auth())
    assert r.json()["matches"] is False
    headers = login(hl, "surveillance")
    [alert] = hl.client.get("/console/api/alerts").json()
    for action in ({"action": "no_roll"}, {"action": "correct", "faces": [3, 4]}):
        r = hl.client.post(f"/console/api/alerts/dealer_call/{alert['ref']}",
                           headers=headers, json=action)
        assert (r.status_code, r.json()["code"]) == (409, "already_settled"), action
