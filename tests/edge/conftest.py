"""Fixtures of the edge tests: a live service on loopback, scripted readers, replay folders."""

from __future__ import annotations

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).parent / "data"
# ids for configurations with no service behind them (the service's ids are UUIDs)
TABLE, DEVICE = "00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-00000000000d"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Service:
    """`dicecall serve`'s app under uvicorn in a thread, SQLite in tmp; start/stop at will."""

    def __init__(self, tmp: Path, port: int | None = None) -> None:
        from dicecall.api.settings import Settings

        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.settings = Settings(database_url=f"sqlite:///{tmp / 'service.db'}",
                                 secret_key="edge-test-key", evidence_dir=tmp / "evidence",
                                 key_file=tmp / "key")
        self._server = self._thread = None
        self.token = None
        self.delay_s = 0.0  # added before every roll intake (a slow service)

    def start(self) -> Service:
        import uvicorn

        from dicecall.api.app import create_app

        app = create_app(self.settings)
        inner = app

        async def slow(scope, receive, send):
            if self.delay_s and scope["type"] == "http" and scope["path"].endswith("/rolls") \
                    and scope["method"] == "POST":
                import asyncio

                await asyncio.sleep(self.delay_s)
            await inner(scope, receive, send)

        self._server = uvicorn.Server(uvicorn.Config(slow, host="127.0.0.1", port=self.port,
                                                     log_level="warning", lifespan="on"))
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 15
        while not self._server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        assert self._server.started, "service did not start"
        self.app = app
        if self.token is None:
            from dicecall.api.services.tables import create_token

            self.token = create_token(app.state.db, "edge-tests", "admin")["token"]
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
            self._thread.join(10)
            self._server = None

    def _call(self, method: str, path: str, **kw):
        import httpx

        r = httpx.request(method, self.url + path, timeout=30,
                          headers={"Authorization": f"Bearer {self.token}"}, **kw)
        assert r.status_code < 300, r.text
        return r.json()

    def table(self, game: str = "craps", **options) -> tuple[str, str, str]:
        """(table id, device id, device secret)."""
        table = self._call("POST", "/v1/tables", json={"game": game, "options": options})["id"]
        dev = self._call("POST", f"/v1/tables/{table}/devices", json={"name": "edge"})
        return table, dev["id"], dev["secret"]

    def rolls(self, table: str) -> list[dict]:
        return self._call("GET", f"/v1/tables/{table}/rolls", params={"limit": 500})

    def wager(self, table: str, name: str, amount: int, seat: int = 0, **params) -> dict:
        return self._call("POST", f"/v1/tables/{table}/wagers",
                          json={"name": name, "amount": amount, "seat": seat, "params": params})


class FakeService:
    """A stand-in service on loopback: answers POSTs with `answer(n)` -> (status, raw
    body), n counting from 1, and keeps the bodies posted."""

    def __init__(self, answer) -> None:
        self.posts: list[bytes] = []
        svc = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                svc.posts.append(body)
                status, out = answer(len(svc.posts))
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def service(tmp_path):
    svc = Service(tmp_path).start()
    yield svc
    svc.stop()


@pytest.fixture
def stopped_service(tmp_path):
    """A service that is not running yet (its port is chosen); the test starts it."""
    svc = Service(tmp_path)
    yield svc
    svc.stop()


class ScriptedReader:
    """Stands in for DiceReader: returns the next scripted set of faces on each read.

    Each die is flat, confident and inside the frame, so the verdict is `valid` when the
    count is what the game expects.
    """

    def __init__(self, rolls: list[tuple[int, ...]]) -> None:
        self.rolls = list(rolls)
        self.calls = 0

    def recount(self, image: np.ndarray, dice, expected: int):
        """The closer and wide looks of a frame with too few dice (`DiceReader.recount`): the
        script's dice are all there are."""
        self.closer_calls = getattr(self, "closer_calls", 0) + 1
        return dice

    def read(self, image: np.ndarray):
        from dicecall.vision.dice import Dice

        script = self.rolls[self.calls % len(self.rolls)]
        self.calls += 1
        # (faces...) in the middle of the frame, or {"faces": ..., "held": ..., "p": ...} with
        # the held dice in a strip at the top (the High Roll throw box area) and the first
        # die read at probability p (below the verdict's 0.98: held for review), the rest on
        # the next face (in High Roll a doubt that could change the call: rule 34).
        faces, held = (script["faces"], script.get("held", ())) if isinstance(script, dict) \
            else (script, ())
        h, w = image.shape[:2]
        rows = []
        for group, y in ((faces, h / 2), (held, h * 0.08)):
            k = len(group)
            xs = np.linspace(w * 0.2, w * 0.8, k) if k > 1 else np.array([w / 2] * k)
            rows += [(x, y) for x in xs]
        faces = tuple(faces) + tuple(held)
        n = len(faces)
        centers = np.array(rows, np.float32).reshape(n, 2)
        probs = np.zeros((n, 6), np.float32)
        if n:
            probs[np.arange(n), np.array(faces) - 1] = 1.0
        if isinstance(script, dict) and "p" in script:
            probs[0, faces[0] - 1] = script["p"]
            probs[0, faces[0] % 6] = 1.0 - script["p"]
        return Dice(centers=centers, boxes=np.concatenate([centers - 10, centers + 10], 1),
                    face=np.array(faces), face_probs=probs, pip_face=np.array(faces),
                    tilt=np.zeros(n), stacked=np.zeros(n), det_score=np.ones(n))


PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def scenes(n: int, size=(240, 320), seed: int = 0) -> list[np.ndarray]:
    """`n` distinct synthetic table images: felt with two light squares with pips (dice).
    The pips matter: the reader's die-or-not head rightly drops a blank square."""
    import cv2

    rng = np.random.default_rng(seed)
    h, w = size
    out = []
    for _ in range(n):
        img = np.full((h, w, 3), (40, 110, 30), np.uint8)
        for _ in range(2):
            x, y = rng.integers(20, w - 40), rng.integers(20, h - 40)
            img[y:y + 18, x:x + 18] = 235
            for dx, dy in PIPS[int(rng.integers(1, 7))]:
                cv2.circle(img, (int(x + 9 + 5 * dx), int(y + 9 + 5 * dy)), 2, (20, 20, 20), -1)
        out.append(img)
    return out


def edge_config(tmp: Path, svc: Service, table, device, secret, replay: Path, **over):
    """An EdgeConfig for a replay folder against `svc` (fast backoff, no health server)."""
    from dicecall.edge.config import EdgeConfig

    raw = {"table_id": table, "device_id": device, "device_secret": secret,
           "service_url": svc.url, "game": "craps",
           "source": {"kind": "replay", "path": str(replay), "speed": 0},
           "settle": {"frames": 4, "ms": 0, "min_after_motion_ms": 0, "block_fraction": 1.0},
           "outbox": {"path": str(tmp / "outbox.db")},
           "publisher": {"backoff_initial_s": 0.05, "backoff_max_s": 0.3, "timeout_s": 5},
           "health": {"port": None}, "drain_timeout_s": 30, "log_json": True}
    for key, value in over.items():
        if key != "source" and isinstance(value, dict) and isinstance(raw.get(key), dict):
            raw[key] = {**raw[key], **value}
        else:
            raw[key] = value
    return EdgeConfig.model_validate(raw)


@pytest.fixture
def kit():
    """The helpers above (tests are imported by path, so they do not import conftest)."""
    from types import SimpleNamespace

    return SimpleNamespace(scenes=scenes, config=edge_config, Reader=ScriptedReader,
                           free_port=free_port, Service=Service,
                           FakeService=FakeService, TABLE=TABLE, DEVICE=DEVICE)
