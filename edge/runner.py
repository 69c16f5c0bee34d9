"""The edge process of one table: frames -> settle -> read -> verdict -> outbox -> service.

Threads: the caller's thread runs the read loop; one publisher thread drains the outbox;
the health server answers in its own. A read counts as done when its roll is committed to
the outbox; from then on nothing can lose it. Faults never stop the loop: a corrupt frame
is skipped and reported, a camera that stops is reopened with backoff, an unreachable
service is retried with backoff while reads go on into the outbox.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from .camera import pump
from .config import EdgeConfig, check_paths
from .diesize import motion_die_px, play_die_side
from .flow import GameFlow
from .health import HealthServer, Metrics
from .lamps import GpioLamps, LampSwitch
from .outbox import Outbox, Pending
from .phase import PhaseTracker
from .publisher import Publisher, SignedClient
from .reading import Reading
from .readpath import ReadPath, _Early, _Settled
from .redact import redact_text
from .settle import BLOCKED, SETTLED, SETTLING, UNCHANGED, SettleDetector
from .sources import Frame, FrameSource, build_source

log = logging.getLogger("dicecall.edge")


class EdgeRunner(ReadPath):
    """Runs one table's edge until stopped (or a replay ends and the outbox drains).

    Args:
        config: the table's configuration.
        on_event: called with a dict for every read, ack and fault (see EDGE-INTERFACE.md).
        source, reader: replace the configured camera / the ONNX reader (tests, benchmarks).
        lamps: replaces the configured lamps' GPIO switch (tests).
    """

    def __init__(self, config: EdgeConfig, *, on_event: Callable[[dict], Any] | None = None,
                 source: FrameSource | None = None, reader: Any = None,
                 lamps: LampSwitch | None = None) -> None:
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
        self.lamps = lamps
        if lamps is None and config.lamps is not None and config.lamps.gpio is not None:
            self.lamps = GpioLamps(config.lamps.gpio, config.lamps.active_high)
        self.detector = SettleDetector(config.settle, self.reading.reference_grey())
        # settle.die_px left unset: from the zones file, once a frame gives the frames' sizes
        self._zone_die = None
        if config.settle.die_px is None and self.reading.table is not None:
            self._zone_die = play_die_side(self.reading.table)
        self._die_sizes: tuple | None = None
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
        self.phase: PhaseTracker | None = None
        if self.flow.high_roll:
            self._phase_client = SignedClient(config.service_url, config.device_id, secret,
                                              pub.timeout_s)
            self.phase = PhaseTracker(self.flow, lambda: self._phase_client.request(
                "GET", f"/v1/tables/{config.table_id}/device"))
        self._pending: _Settled | None = None  # a High Roll read waiting for its phase
        self._early: _Early | None = None  # the current still run's first frame, read
        self._pub_thread: threading.Thread | None = None
        self._pub_stop = threading.Event()
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
    def _acked(self, item: Pending, status: int, data: dict, answered_wall: float) -> None:
        latency = answered_wall - item.settled_wall
        self.metrics.ack_seconds.observe(latency)
        self.metrics.acks.labels(str(status)).inc()
        if self.phase is not None:
            # 200: a repeat (this roll was answered before a restart); its answer may be
            # older than the table's phase, so the phase is asked of the service instead.
            self.phase.answered(item.seq, data if status == 201 else None)
        self._outbox_gauges()
        log.info("roll acknowledged", extra={
            "seq": item.seq, "roll_id": item.roll_id, "http_status": status,
            "status": data.get("status"), "latency_ms": round(latency * 1000, 2)})
        self.emit("ack", roll_id=item.roll_id, seq=item.seq, http_status=status,
                  response=data, latency_ms=round(latency * 1000, 2), ack_wall=answered_wall)

    def _send_failed(self, item: Pending, why: str, retry_in: float) -> None:
        self.metrics.publish_errors.labels("retry").inc()
        log.warning("publish failed, retrying", extra={"seq": item.seq, "error": why,
                                                       "retry_in_s": retry_in})
        self.emit("publish_error", roll_id=item.roll_id, seq=item.seq, error=why,
                  retry_in_s=retry_in)

    def _rejected(self, item: Pending, status: int, data: dict) -> None:
        self.metrics.publish_errors.labels("rejected").inc()
        if self.phase is not None:
            self.phase.answered(item.seq, None)
        self._outbox_gauges()
        log.error("service refused a roll; kept in the outbox as rejected",
                  extra={"seq": item.seq, "roll_id": item.roll_id, "status": status,
                         "answer": data})
        self.emit("rejected", roll_id=item.roll_id, seq=item.seq, http_status=status,
                  response=data)

    def _outbox_gauges(self) -> None:
        used = self.outbox.used_bytes()
        self.metrics.outbox_depth.set(self.outbox.depth())
        self.metrics.outbox_rejected.set(self.outbox.rejected_count())
        self.metrics.outbox_bytes.set(used)
        alarm = self.outbox.alarm()
        self.metrics.outbox_alarm.set(int(alarm))
        if alarm and not self._alarm:
            log.error("outbox above its alarm level", extra={
                "bytes": used, "max_bytes": self.cfg.outbox.max_bytes})
            self.emit("disk_alarm", bytes=used, max_bytes=self.cfg.outbox.max_bytes)
        self._alarm = alarm

    # -- health ------------------------------------------------------------------------------
    def _publisher_state(self) -> str:
        thread = self._pub_thread
        if thread is None or thread.ident is None:
            return "starting"
        if thread.is_alive():
            return "alive"
        return "stopped" if self._pub_stop.is_set() else "dead"

    def status(self) -> dict:
        now = time.time()
        age = now - self._last_frame if self._last_frame else None
        live = self._camera == "up" and age is not None and age <= self.cfg.health.stale_s
        oldest = self.outbox.oldest_pending()
        pending_age = max(0.0, now - oldest) if oldest is not None else None
        # Rolls piling up unsent are as bad as no camera: a dead publisher thread, or a
        # service that has not taken a roll for pending_max_age_s.
        publisher = self._publisher_state()
        sending = publisher != "dead" and (pending_age is None
                                           or pending_age <= self.cfg.health.pending_max_age_s)
        ok = (live or self._camera == "ended") and self.outbox.fits(1) and sending
        return {"ok": ok, "camera": self._camera,
                "last_frame_age_s": round(age, 3) if age is not None else None,
                "outbox_depth": self.outbox.depth(), "outbox_alarm": self._alarm,
                "outbox_rejected": self.outbox.rejected_count(),
                "oldest_pending_age_s": round(pending_age, 3) if pending_age is not None
                else None,
                "publisher": publisher,
                "service": {None: "unknown", True: "up", False: "down"}[self.publisher.up],
                "table_id": self.cfg.table_id}

    # -- the read loop -----------------------------------------------------------------------
    def _startup_sync(self) -> None:
        """With a new outbox, asks the service for the device's last seq (the High Roll
        phase is the PhaseTracker's)."""
        if not self._fresh:
            return
        try:
            status, data = self.client.request("GET", f"/v1/tables/{self.cfg.table_id}/device")
        except OSError as exc:
            log.warning("service unreachable at start-up", extra={"error": str(exc)})
            return
        if status != 200:
            log.warning("device state refused", extra={"status": status, "answer": data})
            return
        if data.get("last_seq") is not None:
            self._seq = max(self._seq, data["last_seq"] + 1)

    def _on_frame(self, frame: Frame) -> None:
        self.metrics.frames.inc()
        self._last_frame = frame.wall
        self.metrics.last_frame.set(frame.wall)
        if frame.error is not None:
            self.metrics.frame_errors.inc()
            log.warning("frame skipped", extra={"frame": frame.label, "error": frame.error})
            self.emit("frame_error", frame=frame.label, error=frame.error)
            return
        self._finish_pending("poll")
        self._fit_die_px(frame)
        self.detector.reference = self.reading.fit_reference(self.detector.reference,
                                                             frame.grey)
        for ev in self.detector.update(frame.t, frame.grey):
            if ev.kind == SETTLING and self.cfg.settle.read_early:
                # a scene that would be blocked or was read already is not worth a read
                if self.detector.would_read(frame.grey):
                    self._read_early(frame)
            elif ev.kind != SETTLED:
                self._early = None  # moved, blocked or unchanged: not this run's dice
            if ev.kind == BLOCKED:
                self.metrics.blocked.inc()
                log.info("still scene not read: hand or lid in view",
                         extra={"frame": frame.label, "changed": round(ev.changed, 3)})
                self.emit("blocked", reason="hand_or_lid", frame=frame.label, t=frame.t)
            elif ev.kind == UNCHANGED:
                log.info("still scene already read: not read again", extra={"frame": frame.label})
                self.emit("unchanged", frame=frame.label, t=frame.t)
            elif ev.kind == SETTLED:
                self._settled(frame, ev)

    def _fit_die_px(self, frame: Frame) -> None:
        """Sets the detector's die_px from the zones file's die side, scaled to this
        source's motion frame (again if a reopened camera gives other sizes)."""
        if self._zone_die is None:
            return
        src = self.cfg.source
        # a picamera2 frame copies its main array out only when read: its size is configured
        if src.kind == "picamera2":
            main = tuple(src.main_size)
        elif frame.main_size() is not None:
            main = frame.main_size()
        else:
            return
        motion = (frame.grey.shape[1], frame.grey.shape[0])
        if self._die_sizes == (main, motion):
            return
        self._die_sizes = (main, motion)
        die_px = motion_die_px(self._zone_die, main, motion)
        self.detector.cfg = self.cfg.settle.model_copy(update={"die_px": die_px})
        log.info("settle.die_px from the zones file", extra={
            "die_px": die_px, "zone_die_px": self._zone_die, "zones": str(self.cfg.zones),
            "frame": f"{main[0]}x{main[1]}", "motion_frame": f"{motion[0]}x{motion[1]}"})

    def _camera_state(self, state: str) -> None:
        self._camera = state
        self._early = None  # a reopened camera starts a new still run
        self.metrics.camera_up.set(int(state == "up"))

    def _camera_failed(self, error: str, retry_in: float) -> None:
        # The error goes to the log and to on_event: no camera password in either, whatever
        # source made the text (edge/redact.py).
        error = redact_text(error, getattr(self.cfg.source, "uri", None),
                            getattr(self.source, "uri", None))
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
        pub_stop = self._pub_stop
        pub_stop.clear()
        publisher = self._pub_thread = threading.Thread(
            target=self.publisher.run, args=(pub_stop,), name="edge-publisher", daemon=True)
        started = time.monotonic()
        poller = None
        try:
            self._startup_sync()
            publisher.start()
            if self.phase is not None:
                poller = threading.Thread(target=self.phase.run, args=(pub_stop,),
                                          name="edge-phase", daemon=True)
                poller.start()
            self._outbox_gauges()
            self.ready.set()
            if pump(self.source, self._on_frame, stop, self._camera_state,
                    self._camera_failed) == "ended":
                self._camera_state("ended")
            self._finish_pending("now" if stop.is_set() else "wait")
            deadline = time.monotonic() + self.cfg.drain_timeout_s
            while not stop.is_set() and self.outbox.depth() and time.monotonic() < deadline:
                self.outbox.wait(0.1)
        finally:
            pub_stop.set()
            if poller is not None:
                self.phase.wake()
                poller.join(self.cfg.publisher.timeout_s + 1)
                self._phase_client.close()
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
            if self.lamps is not None:
                self.lamps.close()
            self.ready.clear()
