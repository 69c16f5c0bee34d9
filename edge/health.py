"""`/healthz` and Prometheus `/metrics` of one edge process, and JSON log lines.

The HTTP server is the standard library's, in a daemon thread; it only reads counters, so
it cannot slow the read loop beyond taking the GIL briefly.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

_LATENCY = (0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1, 2, 5, 10, 30)


class Metrics:
    """The edge's counters, in their own registry (one runner per process, or per test)."""

    def __init__(self) -> None:
        r = self.registry = CollectorRegistry()
        self.frames = Counter("dicecall_edge_frames", "Frames taken from the source.",
                              registry=r)
        self.frame_errors = Counter("dicecall_edge_frame_errors",
                                    "Corrupt or undecodable frames skipped.", registry=r)
        self.reads = Counter("dicecall_edge_reads", "Settled scenes read, by verdict.",
                             ["verdict"], registry=r)
        self.read_errors = Counter("dicecall_edge_read_errors", "Settled frames the reader "
                                   "failed on (logged with the trace).", registry=r)
        self.lamp_misses = Counter("dicecall_edge_lamp_misses", "Props & Hops rolls read "
                                   "without the lamps: no lamp frames, or a lamp or camera "
                                   "fault (edge/lamps.py).", registry=r)
        self.blocked = Counter("dicecall_edge_blocked", "Still scenes not read: a hand or "
                               "the lid in view.", registry=r)
        self.empty = Counter("dicecall_edge_empty", "Still scenes after motion with no dice "
                             "in play (collected): not a roll, not posted.", registry=r)
        self.read_seconds = Histogram("dicecall_edge_read_seconds", "Reader + verdict + "
                                      "evidence + outbox commit.", buckets=_LATENCY,
                                      registry=r)
        self.ack_seconds = Histogram("dicecall_edge_settle_to_ack_seconds",
                                     "Dice at rest (first still frame) to the service's ack.",
                                     buckets=_LATENCY, registry=r)
        self.publish_seconds = Histogram("dicecall_edge_publish_seconds",
                                         "One roll POST, answered.", buckets=_LATENCY,
                                         registry=r)
        self.publish_errors = Counter("dicecall_edge_publish_errors", "Failed POSTs "
                                      "(retried) and refused rolls (kept).", ["kind"],
                                      registry=r)
        self.acks = Counter("dicecall_edge_acks", "Rolls acknowledged by the service.",
                            ["http_status"], registry=r)
        self.outbox_depth = Gauge("dicecall_edge_outbox_depth", "Rolls not yet acknowledged.",
                                  registry=r)
        self.outbox_rejected = Gauge("dicecall_edge_outbox_rejected", "Rolls the service "
                                     "refused, kept for `dicecall edge requeue`.", registry=r)
        self.outbox_bytes = Gauge("dicecall_edge_outbox_bytes", "Outbox bytes in use.",
                                  registry=r)
        self.outbox_alarm = Gauge("dicecall_edge_outbox_alarm", "1 when the outbox is above "
                                  "its alarm fraction.", registry=r)
        self.camera_errors = Counter("dicecall_edge_camera_errors", "Camera failures "
                                     "(each followed by a reopen with backoff).", registry=r)
        self.camera_up = Gauge("dicecall_edge_camera_up", "1 while frames arrive.", registry=r)
        self.last_frame = Gauge("dicecall_edge_last_frame_timestamp_seconds",
                                "Unix time of the last frame.", registry=r)

    def value(self, name: str, **labels: str) -> float:
        """A sample's current value (tests and the bench read counters this way)."""
        return self.registry.get_sample_value(name, labels or None) or 0.0


class HealthServer:
    """Serves /healthz (JSON, 200 or 503) and /metrics on host:port (0 = any free port)."""

    def __init__(self, metrics: Metrics, host: str, port: int, status) -> None:
        self.metrics, self.status = metrics, status
        handler = self._handler()
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://{host}:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="edge-health",
                                        daemon=True)

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path == "/metrics":
                    body, ctype, code = (generate_latest(server.metrics.registry),
                                         CONTENT_TYPE_LATEST, 200)
                elif self.path == "/healthz":
                    state = server.status()
                    body = json.dumps(state).encode()
                    ctype, code = "application/json", 200 if state["ok"] else 503
                else:
                    body, ctype, code = b"not found\n", "text/plain", 404
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:  # requests are not worth a log line each
                pass

        return Handler

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, and any `extra` fields."""

    _SKIP = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message"}

    def format(self, record: logging.LogRecord) -> str:
        out = {"ts": round(record.created, 3),
               "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)),
               "level": record.levelname.lower(), "logger": record.name,
               "msg": record.getMessage()}
        out.update({k: v for k, v in vars(record).items() if k not in self._SKIP})
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def setup_logging(json_lines: bool, level: int = logging.INFO) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if json_lines else
                         logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    root = logging.getLogger("dicecall")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False
