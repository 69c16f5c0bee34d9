"""Every response of the service says `X-Content-Type-Options: nosniff` (api/middleware.py).

A browser that sniffs a body may run it as HTML or script in the service's origin, where
the console's session cookie lives; a JSON error echoes what the request said. The header
is set once, by the outermost middleware, so it is on the JSON API, its errors, the
console, the metrics, the fast path's intake, the body limit's 413 and a crash's 500.
"""

from __future__ import annotations

import uuid

NOSNIFF = ("x-content-type-options", "nosniff")


def _says_nosniff(r) -> bool:
    return r.headers.get_list(NOSNIFF[0]) == [NOSNIFF[1]]


def test_json_errors_console_and_metrics_say_nosniff(h):
    table = h.table()
    device = h.device(table)
    integration, surveillance = h.auth(), h.auth("surveillance")
    responses = {
        "table (JSON)": h.client.get(f"/v1/tables/{table}", headers=integration),
        "healthz": h.client.get("/healthz"),
        "metrics": h.client.get("/metrics"),
        "openapi": h.client.get("/openapi.json"),
        "unknown roll (404 ApiError)": h.client.get(f"/v1/rolls/{uuid.uuid4()}",
                                                    headers=integration),
        "no such route (404)": h.client.get("/v1/nothing-here"),
        "bad body (422)": h.client.post("/v1/tables", headers=h.auth("admin"),
                                        json={"game": "roulette"}),
        "not JSON (422)": h.client.post(f"/v1/rolls/{uuid.uuid4()}/review",
                                        headers=surveillance, content=b"{"),
        "no token (401)": h.client.get("/v1/tables"),
        "wrong role (403)": h.client.post("/v1/tables", headers=integration,
                                          json={"game": "craps", "options": {}}),
        "too large (413)": h.client.post("/v1/tables", headers=h.auth("admin"),
                                         content=b"x" * (h.settings.max_body_bytes + 1)),
        # The first intake of a device takes the route, the next the fast path.
        "intake (route)": h.post_roll(table, device, h.body(1)),
        "intake (fast path)": h.post_roll(table, device, h.body(2)),
        "console page": h.client.get("/console"),
        "console login refused": h.client.post("/console/api/login",
                                               json={"token": "not-a-token"}),
        "SSE backlog": h.client.get("/v1/events", headers=integration,
                                    params={"follow": "false"}),
    }
    status = {name: r.status_code for name, r in responses.items()}
    assert status["unknown roll (404 ApiError)"] == status["no such route (404)"] == 404
    assert status["bad body (422)"] == status["not JSON (422)"] == 422
    assert (status["no token (401)"], status["wrong role (403)"]) == (401, 403)
    assert status["too large (413)"] == 413
    assert status["intake (route)"] == status["intake (fast path)"] == 201
    assert [name for name, r in responses.items() if not _says_nosniff(r)] == []


def test_a_crash_answers_500_with_nosniff(h):
    from fastapi.testclient import TestClient

    def boom() -> dict:
        raise RuntimeError("a bug")

    h.client.app.add_api_route("/v1/boom", boom)
    client = TestClient(h.client.app, raise_server_exceptions=False)  # lifespan ran in h
    r = client.get("/v1/boom")
    assert (r.status_code, r.text) == (500, "Internal Server Error")
    assert _says_nosniff(r)
