"""Sends the outbox to the service, in seq order, signed, with exponential backoff.

One roll at a time (head of line): a later roll is never posted before an earlier one is
acknowledged, so the service sees the table's throws in the order they were thrown. The
body posted is the stored one byte for byte; only the signature's timestamp changes between
attempts. Outcomes:

- 2xx: acknowledged (201 new, 200 replayed after a lost answer): the row is deleted.
- 409 (roll_id_conflict), 422 (the body is not a valid roll) and 413 once the roll goes
  with its hashes only: the service refuses the roll itself, and sending the same bytes
  again cannot change that. It is kept in the outbox as 'rejected' with the answer,
  reported, and the publisher moves on; `dicecall edge requeue` sends it again.
- anything else (connection error, timeout, 5xx, 401, 403, 404, 429, a proxy's 400...):
  retried with backoff, forever. A 404 or 403 is often passing (a proxy during a deploy,
  a table restored from a backup), and a roll set aside for it would never settle; one
  that lasts shows in /healthz as the oldest pending roll growing old.

Standard library HTTP (`http.client`) with one kept-alive connection: no dependency and no
connection set-up per roll.
"""

from __future__ import annotations

import http.client
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from urllib.parse import urlsplit

from dicecall.api.signing import sign

from .outbox import Outbox, Pending
from .reading import hashes_only

log = logging.getLogger("dicecall.edge.publisher")
REFUSED = {409, 413, 422}  # refusals of the roll's body itself: sending it again cannot help


class SignedClient:
    """Signed requests of one device over one kept-alive connection (one thread each)."""

    def __init__(self, service_url: str, device_id: str, secret: str,
                 timeout_s: float = 10.0) -> None:
        url = urlsplit(service_url)
        self._https = url.scheme == "https"
        self._host, self._port = url.hostname, url.port
        self._prefix = url.path.rstrip("/")
        self.device_id, self._secret, self.timeout_s = device_id, secret, timeout_s
        self._conn: http.client.HTTPConnection | None = None

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            self._conn = cls(self._host, self._port, timeout=self.timeout_s)
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def request(self, method: str, path: str, body: bytes = b"") -> tuple[int, dict]:
        """One signed request; (status, JSON answer). Raises OSError/HTTPException on failure."""
        full = self._prefix + path
        headers = sign(self._secret, method, full, time.time(), body, device_id=self.device_id)
        if body:
            headers["Content-Type"] = "application/json"
        for attempt in (0, 1):
            reused = self._conn is not None
            conn = self._connection()
            try:
                conn.request(method, full, body=body or None, headers=headers)
                resp = conn.getresponse()
                raw = resp.read()
                break
            except (OSError, http.client.HTTPException):
                self.close()
                # The server may close an idle kept-alive connection (uvicorn after 5 s): try
                # once more at once on a new one. Safe: rolls are idempotent on roll_id.
                if not reused or attempt == 1:
                    raise
        try:
            data = json.loads(raw) if raw else {}
        except ValueError:
            data = {"message": raw[:200].decode(errors="replace")}
        if not isinstance(data, dict):
            # A gateway or proxy may answer with a bare JSON string or list
            # ("Service Unavailable"); every caller reads the answer as a mapping.
            data = {"message": str(data)[:200]}
        return resp.status, data


class Publisher:
    """A thread that drains one table's outbox."""

    def __init__(self, outbox: Outbox, client: SignedClient, table_id: str, *,
                 backoff_initial_s: float = 0.2, backoff_max_s: float = 30.0,
                 on_ack: Callable[[Pending, int, dict, float], None],
                 on_error: Callable[[Pending, str, float], None],
                 on_reject: Callable[[Pending, int, dict], None],
                 observe: Callable[[float], None] | None = None) -> None:
        self.path = f"/v1/tables/{table_id}/rolls"
        self.client = client
        self.backoff = (backoff_initial_s, backoff_max_s)
        self.outbox = outbox
        self.on_ack, self.on_error, self.on_reject = on_ack, on_error, on_reject
        self.observe = observe  # seconds of each answered POST
        self.up: bool | None = None  # did the last attempt reach the service

    def send(self, item: Pending) -> tuple[str, int, dict]:
        """Posts one roll: ("ack" | "retry" | "reject", status, answer). Never raises."""
        t0 = time.perf_counter()
        try:
            status, data = self.client.request("POST", self.path, item.body)
        except (OSError, http.client.HTTPException) as exc:
            self.up = False
            return "retry", 0, {"message": f"{type(exc).__name__}: {exc}"}
        self.up = True
        if self.observe is not None:
            self.observe(time.perf_counter() - t0)
        if 200 <= status < 300:
            return "ack", status, data
        if status not in REFUSED:
            return "retry", status, data
        if status == 413 and b'"clean_jpeg_b64"' in item.body:
            # The service's size limits are below the edge's: the roll must still settle,
            # so it goes again with its evidence hashes only (the same roll_id: a replay is
            # answered, never settled twice).
            log.error("evidence refused as too large: sent again with its hashes only",
                      extra={"seq": item.seq, "roll_id": item.roll_id})
            return self.send(replace(item, body=hashes_only(item.body)))
        return "reject", status, data

    def run(self, stop: threading.Event) -> None:
        """Sends until `stop` is set; waits on the outbox when it is empty.

        An unexpected error in one iteration (the outbox database locked or failing, a
        callback raising) is logged and retried with backoff: the thread never ends before
        `stop`, since nothing else would send the table's rolls. A roll posted but not yet
        marked done is posted again; the service answers the repeat (200), settles it once.
        """
        delay = self.backoff[0]
        while not stop.is_set():
            try:
                delay = self._step(stop, delay)
            except Exception:
                log.exception("publisher iteration failed; retrying", extra={"retry_in_s": delay})
                self.client.close()  # a fresh connection for the next attempt
                stop.wait(delay)
                delay = min(delay * 2, self.backoff[1])
        self.client.close()

    def _step(self, stop: threading.Event, delay: float) -> float:
        """Sends the head of the outbox once (or waits for one); the next retry delay."""
        seen = self.outbox.version
        item = self.outbox.head()
        if item is None:
            self.outbox.wait(0.5, since=seen)  # a put after head() returns at once
            return delay
        outcome, status, data = self.send(item)
        answered_wall = time.time()  # the ack's time, before the outbox bookkeeping
        if outcome == "retry":
            why = f"HTTP {status}: {data.get('message', '')}" if status else data["message"]
            self.on_error(item, why, delay)
            stop.wait(delay)
            return min(delay * 2, self.backoff[1])
        if outcome == "ack":
            self.outbox.done(item.seq, None)
            self.on_ack(item, status, data, answered_wall)
        else:
            self.outbox.done(item.seq, {"status": status, **data}, rejected=True)
            self.on_reject(item, status, data)
        return self.backoff[0]
