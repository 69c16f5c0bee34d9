"""The edge process of one table: frames -> settle -> read -> verdict -> outbox -> service.

Threads: the caller's thread runs the read loop; one publisher thread drains the outbox;
the health server answers in its own. A read counts as done when its roll is committed to
the outbox; from then on nothing can lose it. Faults never stop the loop: a corrupt frame
is skipped and reported, a camera that stops is reopened with backoff, an unreachable
service is retried with backoff while reads go on into the outbox.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any

from .camera import pump
from .config import EdgeConfig, check_paths
from .flow import GameFlow
from .health import HealthServer, Metrics
from .outbox import Outbox, Pending
from .publisher import Publisher, SignedClient
from .reading import Reading
from .settle import BLOCKED, SETTLED, SettleDetector, SettleEvent
from .sources import Frame, FrameSource, build_source

log = logging.getLogger("dicecall.edge")


class EdgeRunner:
    """Runs one table's edge until stopped (or a replay ends and the outbox drains).

    Args:
        config: the table's configuration.
        on_event: called with a dict for every read, ack and fault (see EDGE-INTERFACE.md).
        source, reader: replace the configured camera / the ONNX reader (tests, benchmarks).
    """

    def __init__(self, config: EdgeConfig, *, on_event: Callable[[dict], Any] | None = None,
                 source: FrameSource | None = None, reader: Any = None) -> None:
        check_paths(config)
        self.cfg = config
        self._on_event = on_event
        self.metrics = Metrics()
        self.ready = threading.Event()
        self.health_url: str | None = None
        self.outbox = Outbox(config.outbox.path, config.outbox.max_bytes,
                             config.outbox.alarm_fraction)
        self._cursor_key = None
        if config.source.kind == "replay":
            self._cursor_key = f"cursor:{config.source.path.resolve()}"
        self.source = source or build_source(config, self._resume_ms())
        self.flow = GameFlow(config.game)
        self.reading = Reading(config, reader)
        self.detector = SettleDetector(config.settle, self.reading.reference_grey())
        secret = config.secret()
        self.client = SignedClient(config.service_url, config.device_id, secret,
                                   config.publisher.timeout_s)
        pub = config.publisher
        self.publisher = Publisher(
            self.outbox, SignedClient(config.service_url, config.device_id, secret,
                                      pub.timeout_s),
            config.table_id, backoff_initial_s=pub.backoff_initial_s,
            backoff_max_s=pub.backoff_max_s, on_ack=self._acked, on_error=self._send_failed,
            on_reject=self._rejected, observe=self.metrics.publish_seconds.observe)
        self._camera = "starting"
        self._last_frame = 0.0
        self._alarm = False
        self._seq = self.outbox.next_seq()
        self._fresh = self.outbox.meta("last_seq") is None

    # -- events ------------------------------------------------------------------------------
    def emit(self, kind: str, **data: Any) -> None:
        if self._on_event is None:
            return
        try:
            self._on_event({"kind": kind, "table_id": self.cfg.table_id, **data})
        except Exception:  # a broken callback must not stop the table
            log.exception("on_event callback failed")

    def _resume_ms(self) -> float | None:
        src = self.cfg.source
        if src.kind != "replay" or not src.resume or src.loop:
            return None
        value = self.outbox.meta(self._cursor_key)
        return float(value) if value is not None else None

    # -- publisher callbacks (publisher thread) ------------------------------------------------
    def _acked(self, item: Pending, status: int, data: dict) -> None:
        latency = time.time() - item.settled_wall
        self.metrics.ack_seconds.observe(latency)
        self.metrics.acks.labels(str(status)).inc()
        self.flow.on_ack(data)
        self._outbox_gauges()
        log.info("roll acknowledged", extra={
            "seq": item.seq, "roll_id": item.roll_id, "http_status": status,
            "status": data.get("status"), "latency_ms": round(latency * 1000, 2)})
        self.emit("ack", roll_id=item.roll_id, seq=item.seq, http_status=status,
                  response=data, latency_ms=round(latency * 1000, 2), ack_wall=time.time())

    def _send_failed(self, item: Pending, why: str, retry_in: float) -> None:
        self.metrics.publish_errors.labels("retry").inc()
        log.warning("publish failed, retrying", extra={"seq": item.seq, "error": why,
                                                       "retry_in_s": retry_in})
        self.emit("publish_error", roll_id=item.roll_id, seq=item.seq, error=why,
                  retry_in_s=retry_in)

    def _rejected(self, item: Pending, status: int, data: dict) -> None:
        self.metrics.publish_errors.labels("rejected").inc()
        log.error("service refused a roll; kept in the outbox as rejected",
                  extra={"seq": item.seq, "roll_id": item.roll_id, "status": status,
                         "answer": data})
        self.emit("rejected", roll_id=item.roll_id, seq=item.seq, http_status=status,
                  response=data)

    def _outbox_gauges(self) -> None:
        used = self.outbox.used_bytes()
        self.metrics.outbox_depth.set(self.outbox.depth())
        self.metrics.outbox_bytes.set(used)
        alarm = used >= self.cfg.outbox.alarm_fraction * self.cfg.outbox.max_bytes
        self.metrics.outbox_alarm.set(int(alarm))
        if alarm and not self._alarm:
            log.error("outbox above its alarm level", extra={
                "bytes": used, "max_bytes": self.cfg.outbox.max_bytes})
            self.emit("disk_alarm", bytes=used, max_bytes=self.cfg.outbox.max_bytes)
        self._alarm = alarm

    # -- health ------------------------------------------------------------------------------
    def status(self) -> dict:
        age = time.time() - self._last_frame if self._last_frame else None
        live = self._camera == "up" and age is not None and age <= self.cfg.health.stale_s
        ok = (live or self._camera == "ended") and self.outbox.fits(1)
        return {"ok": ok, "camera": self._camera,
                "last_frame_age_s": round(age, 3) if age is not None else None,
                "outbox_depth": self.outbox.depth(), "outbox_alarm": self._alarm,
                "service": {None: "unknown", True: "up", False: "down"}[self.publisher.up],
                "table_id": self.cfg.table_id}

    # -- the read loop -----------------------------------------------------------------------
    def _startup_sync(self) -> None:
        """Asks the service for the table's phase and, with a new outbox, the last seq."""
        if not (self.flow.high_roll or self._fresh):
            return
        try:
            status, data = self.client.request("GET", f"/v1/tables/{self.cfg.table_id}/device")
        except OSError as exc:
            log.warning("service unreachable at start-up", extra={"error": str(exc)})
            return
        if status != 200:
            log.warning("device state refused", extra={"status": status, "answer": data})
            return
        self.flow.on_device_state(data)
        if self._fresh and data.get("last_seq") is not None:
            self._seq = max(self._seq, data["last_seq"] + 1)

    def _expect(self):
        """High Roll: the previous throw's answer decides this one's dice; wait for it."""
        if self.flow.high_roll:
            deadline = time.monotonic() + self.cfg.high_roll_wait_s
            while self.outbox.depth() and time.monotonic() < deadline:
                self.outbox.wait(0.05)
            if self.flow.uncertain:
                self._startup_sync()
        return self.flow.expect()

    def _on_frame(self, frame: Frame) -> None:
        self.metrics.frames.inc()
        self._last_frame = frame.wall
        self.metrics.last_frame.set(frame.wall)
        if frame.error is not None:
            self.metrics.frame_errors.inc()
            log.warning("frame skipped", extra={"frame": frame.label, "error": frame.error})
            self.emit("frame_error", frame=frame.label, error=frame.error)
            return
        self.detector.reference = self.reading.fit_reference(self.detector.reference,
                                                             frame.grey)
        for ev in self.detector.update(frame.t, frame.grey):
            if ev.kind == BLOCKED:
                self.metrics.blocked.inc()
                log.info("still scene not read: hand or lid in view",
                         extra={"frame": frame.label, "changed": round(ev.changed, 3)})
                self.emit("blocked", reason="hand_or_lid", frame=frame.label, t=frame.t)
            elif ev.kind == SETTLED:
                self._read(frame, ev)

    def _read(self, frame: Frame, ev: SettleEvent) -> None:
        t0 = time.perf_counter()
        detected_wall = time.time()
        rest_wall = frame.wall - (frame.t - ev.still_since)
        expect = self._expect()
        try:
            roll = self.reading.roll(frame, expect, self._seq)
        except Exception as exc:  # a reader fault on one frame must not stop the table
            self.metrics.read_errors.inc()
            log.exception("reading a settled frame failed", extra={"frame": frame.label})
            self.emit("read_error", frame=frame.label, error=f"{type(exc).__name__}: {exc}")
            return
        if roll.with_jpeg and not self.outbox.fits(len(roll.body)):
            log.error("outbox full: this roll is kept with its evidence hashes only",
                      extra={"seq": roll.seq, "max_bytes": self.cfg.outbox.max_bytes})
            roll = self.reading.without_jpeg(roll)
        cursor = None
        if self._cursor_key is not None:
            cursor = (self._cursor_key, repr(frame.t * 1000))
        try:
            self.outbox.put(self._seq, roll.roll_id, roll.body, rest_wall, cursor)
        except sqlite3.Error as exc:
            log.error("outbox write failed; this read is not counted",
                      extra={"frame": frame.label, "error": str(exc)})
            self.emit("outbox_error", frame=frame.label, error=str(exc))
            return
        self._seq += 1
        read_s = time.perf_counter() - t0
        self.metrics.read_seconds.observe(read_s)
        self.metrics.reads.labels(roll.verdict.status).inc()
        self._outbox_gauges()
        log.info("roll read", extra={"seq": roll.seq, "roll_id": roll.roll_id,
                                     "verdict": roll.verdict.status,
                                     "faces": list(roll.verdict.faces), "frame": frame.label,
                                     "read_ms": round(read_s * 1000, 2),
                                     "rest_wall": rest_wall, "detected_wall": detected_wall})
        self.emit("read", roll_id=roll.roll_id, seq=roll.seq, verdict=roll.verdict.status,
                  faces=list(roll.verdict.faces), reasons=[r.as_dict() for r in
                                                          roll.verdict.reasons],
                  confidences=[round(c, 5) for c in roll.verdict.confidences],
                  expected=expect.dice, phase=expect.phase, read_ms=round(read_s * 1000, 2),
                  frame=frame.label, t=frame.t, rest_wall=rest_wall,
                  detected_wall=detected_wall, jpeg=roll.with_jpeg)

    def _camera_state(self, state: str) -> None:
        self._camera = state
        self.metrics.camera_up.set(int(state == "up"))

    def _camera_failed(self, error: str, retry_in: float) -> None:
        self.metrics.camera_errors.inc()
        log.error("camera error; reopening", extra={"error": error, "retry_in_s": retry_in})
        self.emit("camera_error", error=error, retry_in_s=retry_in)

    def run(self, stop: threading.Event) -> None:
        """Reads until `stop` is set, or a finite source ended and the outbox drained."""
        health = None
        if self.cfg.health.port is not None:
            health = HealthServer(self.metrics, self.cfg.health.host, self.cfg.health.port,
                                  self.status)
            health.start()
            self.health_url = health.url
        pub_stop = threading.Event()
        publisher = threading.Thread(target=self.publisher.run, args=(pub_stop,),
                                     name="edge-publisher", daemon=True)
        started = time.monotonic()
        try:
            self._startup_sync()
            publisher.start()
            self._outbox_gauges()
            self.ready.set()
            if pump(self.source, self._on_frame, stop, self._camera_state,
                    self._camera_failed) == "ended":
                self._camera_state("ended")
            deadline = time.monotonic() + self.cfg.drain_timeout_s
            while not stop.is_set() and self.outbox.depth() and time.monotonic() < deadline:
                self.outbox.wait(0.1)
        finally:
            pub_stop.set()
            with self.outbox.changed:
                self.outbox.changed.notify_all()
            if publisher.is_alive():
                publisher.join(self.cfg.publisher.timeout_s + 1)
            if health is not None:
                health.stop()
            self.client.close()
            log.info("edge stopped", extra={
                "frames": int(self.metrics.value("dicecall_edge_frames_total")),
                "seconds": round(time.monotonic() - started, 3),
                "outbox_depth": self.outbox.depth()})
            self.outbox.close()
            self.ready.clear()
