"""Evidence frames through the route the console's <img> tags use (console.js, labels.js):
the stored bytes, as a JPEG that no browser may sniff as anything else (a stored frame is
whatever bytes a device posted after its magic number), and 404 for any other name."""

from __future__ import annotations

import base64
import hashlib

import cv2
import numpy as np

NOSNIFF = ("x-content-type-options", "nosniff")


def _jpeg(shade: int) -> bytes:
    img = np.full((120, 160, 3), shade, np.uint8)
    return cv2.imencode(".jpg", img)[1].tobytes()


def _login(h, role: str) -> None:
    h.client.cookies.clear()
    r = h.client.post("/console/api/login", json={"token": h.tokens[role]})
    assert r.status_code == 200, r.text


def test_a_stored_frame_is_served_as_a_jpeg_with_nosniff(h):
    table = h.table()
    clean, annotated = _jpeg(40), _jpeg(200)
    body = h.body(1, (2, 5))
    body["evidence"] = {"clean_sha256": hashlib.sha256(clean).hexdigest(),
                        "annotated_sha256": hashlib.sha256(annotated).hexdigest(),
                        "clean_jpeg_b64": base64.b64encode(clean).decode(),
                        "annotated_jpeg_b64": base64.b64encode(annotated).decode()}
    assert h.post_roll(table, h.device(table), body).status_code in (200, 201)
    _login(h, "surveillance")
    [roll] = h.client.get(f"/console/api/tables/{table}/rolls").json()["rolls"]
    for which, data in (("clean", clean), ("annotated", annotated)):
        r = h.client.get(f"/console/api/evidence/{roll['evidence'][f'{which}_sha256']}")
        assert r.status_code == 200 and r.content == data
        assert r.headers["content-type"] == "image/jpeg"
        assert r.headers.get(NOSNIFF[0]) == NOSNIFF[1]


def test_any_other_name_is_404(h):
    _login(h, "surveillance")
    (h.settings.evidence_dir / "secret.txt").write_text("not evidence")
    for name in ("0" * 64, "..%2Fkey", "..%2F..%2Fkey", "%2E%2E", "secret.txt",
                 "..%2Fsecret.txt", "A" * 64):
        r = h.client.get(f"/console/api/evidence/{name}")
        assert r.status_code == 404, (name, r.status_code, r.text)
        assert b"not evidence" not in r.content


def test_the_console_files_say_nosniff(h):
    table = h.table()
    _login(h, "admin")
    for path in ("/console", "/console/static/console.js", "/console/static/console.css",
                 "/console/api/labels/export.zip", f"/console/api/fairness/{table}.svg"):
        r = h.client.get(path)
        assert r.status_code == 200 and r.headers.get(NOSNIFF[0]) == NOSNIFF[1], path
