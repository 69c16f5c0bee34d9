"""Malformed JSON, oversized bodies, evidence that does not match its hash."""

from __future__ import annotations

import base64
import hashlib


def test_malformed_json_is_422_with_a_clear_message(h):
    table = h.table()
    device = h.device(table)
    r = h.post_roll(table, device, b'{"roll_id": ')
    assert r.status_code == 422
    assert r.json()["code"] == "invalid_request"
    assert "not valid JSON" in r.json()["message"]
    r = h.client.post(f"/v1/tables/{table}/wagers", content=b"{nope",
                      headers={**h.auth(), "Content-Type": "application/json"})
    assert r.status_code == 422 and "not valid JSON" in r.json()["message"]


def test_schema_violations_name_the_field(h):
    table = h.table()
    device = h.device(table)
    r = h.post_roll(table, device, {**h.body(1), "faces": [7, 1]})
    assert r.status_code == 422 and r.json()["message"].startswith("faces.0")
    r = h.post_roll(table, device, {**h.body(1), "extra": 1})
    assert r.status_code == 422 and "extra" in r.json()["message"]


def test_oversized_body_is_413(make_harness, sqlite_url):
    h = make_harness(sqlite_url, max_body_bytes=4096)
    table = h.table()
    device = h.device(table)
    body = h.body(1)
    body["evidence"]["clean_jpeg_b64"] = "A" * 6000
    r = h.post_roll(table, device, body)
    assert r.status_code == 413 and r.json()["code"] == "too_large"


def test_chunked_oversized_body_is_413(make_harness, sqlite_url):
    h = make_harness(sqlite_url, max_body_bytes=2048)

    def chunks():
        for _ in range(10):
            yield b"x" * 1000

    r = h.client.post("/v1/tables", content=chunks(), headers=h.auth("admin"))
    assert r.status_code == 413


def test_evidence_jpeg_is_checked_and_stored(h):
    table = h.table()
    device = h.device(table)
    jpeg = b"\xff\xd8\xff\xe0" + b"frame" * 50
    digest = hashlib.sha256(jpeg).hexdigest()
    body = h.body(1)
    body["evidence"] = {"clean_sha256": digest, "annotated_sha256": "b" * 64,
                        "clean_jpeg_b64": base64.b64encode(jpeg).decode()}
    assert h.post_roll(table, device, body).status_code == 201
    stored = h.settings.evidence_dir / digest[:2] / f"{digest}.jpg"
    assert stored.read_bytes() == jpeg
    bad = h.body(2)
    bad["evidence"] = {**body["evidence"], "clean_sha256": "0" * 64}
    r = h.post_roll(table, device, bad)
    assert r.status_code == 422 and r.json()["code"] == "evidence_hash_mismatch"
