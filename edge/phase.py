"""High Roll: knowing which throw the next read is, from the service's word only.

The dice a High Roll throw must show depend on the answer to the previous throw (all the
dice, or the N rethrown in the Extra Roll, 675a.4(g)). That answer is not final while a
throw is held for surveillance review (623a.9(c)): the review may settle it (an Extra Roll
becomes due), void it, or correct it. So the phase is known only when

1. every High Roll throw this edge posted has been answered, and
2. the last answer settled or voided it (GameFlow is not `uncertain`), or the service's
   device route reports no held roll (then its `expected_dice` is the count it applies).

A poller thread asks `GET /v1/tables/{id}/device` every POLL_S while the phase is uncertain,
so the read loop never blocks on HTTP and frames keep flowing while a review is pending.
"""

from __future__ import annotations

import http.client
import logging
import threading

from .flow import Expect, GameFlow

log = logging.getLogger("dicecall.edge")
POLL_S = 0.1


class PhaseTracker:
    """Thread-safe phase of one High Roll table; `fetch()` -> (status, JSON) of the route."""

    def __init__(self, flow: GameFlow, fetch) -> None:
        self.flow = flow
        self._fetch = fetch
        self._cv = threading.Condition()
        self._posted = -1  # last High Roll seq put in the outbox by this process
        self._answered = -1  # last seq the service answered (or refused)
        self.flow.uncertain = True  # until the service has said where the table stands

    def known(self) -> bool:
        with self._cv:
            return self._known()

    def _known(self) -> bool:
        return self._answered >= self._posted and not self.flow.uncertain

    def expect(self) -> Expect | None:
        """The next throw's dice, or None while the service's answer is pending."""
        with self._cv:
            return self.flow.expect() if self._known() else None

    def wait(self, timeout: float) -> Expect | None:
        with self._cv:
            self._cv.wait_for(self._known, timeout)
            return self.flow.expect() if self._known() else None

    def posted(self, seq: int) -> None:
        with self._cv:
            self._posted = max(self._posted, seq)

    def answered(self, seq: int, response: dict | None) -> None:
        """The service's answer to roll `seq` (None: refused, the phase is unchanged but
        is asked again)."""
        with self._cv:
            if response is None:
                self.flow.uncertain = True
            else:
                self.flow.on_ack(response)
            self._answered = max(self._answered, seq)
            self._cv.notify_all()

    def device_state(self, state: dict, since: int | None = None) -> None:
        """Takes the route's answer, unless a roll was posted or answered since it was asked
        (`since`: the answered seq when asking) or a roll is still held."""
        with self._cv:
            if since is not None and (since != self._answered or self._posted > since):
                return
            if state.get("held_rolls", 0):
                self.flow.uncertain = True
                return
            self.flow.on_device_state(state)
            self._cv.notify_all()

    def run(self, stop: threading.Event) -> None:
        """The poller: asks the service while the last answer left the phase open."""
        while not stop.is_set():
            with self._cv:
                self._cv.wait_for(lambda: stop.is_set() or (
                    self.flow.uncertain and self._answered >= self._posted), 0.5)
                if stop.is_set() or not self.flow.uncertain or self._answered < self._posted:
                    continue
                since = self._answered
            try:
                status, data = self._fetch()
            except (OSError, http.client.HTTPException) as exc:
                log.warning("device state unreachable", extra={"error": str(exc)})
                status, data = 0, {}
            if status == 200:
                self.device_state(data, since)
            elif status:
                log.warning("device state refused", extra={"status": status, "answer": data})
            if not self.known():
                stop.wait(POLL_S)

    def wake(self) -> None:
        with self._cv:
            self._cv.notify_all()
