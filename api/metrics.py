"""Prometheus metrics of the service (one set per process, in the default registry)."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

INTAKES = Counter("dicecall_roll_intakes_total", "Rolls posted by devices",
                  ["verdict", "outcome"])
SETTLEMENTS = Counter("dicecall_settlements_total", "Rolls settled through the engine",
                      ["game"])
SETTLED_LINES = Counter("dicecall_settlement_lines_total", "Wager lines settled", ["result"])
# A correction re-settles a roll already counted above; it counts here instead, so the two
# counters above stay one per roll and one per wager line as first settled.
CORRECTIONS = Counter("dicecall_settlement_corrections_total",
                      "Settled rolls re-settled with faces corrected by surveillance", ["game"])
INTAKE_LATENCY = Histogram(
    "dicecall_roll_intake_seconds", "Time to verify, store and settle one posted roll",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5))
# A call counts when made, if it disagrees with the camera, and again each time a review
# turns it from a match into a mismatch (services/dealer.recheck).
MISMATCHES = Counter("dicecall_dealer_call_mismatches_total",
                     "Dealer calls found to disagree with the roll (the camera's read, or a "
                     "review's decision)")
SEQUENCE = Counter("dicecall_sequence_anomalies_total",
                   "Device sequence gaps and reordered rolls", ["kind"])
AUTH_FAILURES = Counter("dicecall_auth_failures_total", "Refused credentials", ["code"])


class Tally:
    """Counter increments of one transaction, made by `commit` once it committed.

    A transaction that fails is rolled back and often redone (a batch of the roll intake
    after a stale chain head or a deadlock): counting as it went would count its rolls once
    per attempt, and rolls that were never stored.
    """

    __slots__ = ("_pending",)

    def __init__(self) -> None:
        self._pending: list[tuple[Counter, tuple[str, ...]]] = []

    def inc(self, counter: Counter, *labels: str) -> None:
        self._pending.append((counter, labels))

    def commit(self) -> None:
        """Makes the increments (call it after the commit succeeded), then forgets them."""
        for counter, labels in self._pending:
            (counter.labels(*labels) if labels else counter).inc()
        self._pending.clear()
