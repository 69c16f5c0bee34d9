"""Prometheus metrics of the service (one set per process, in the default registry)."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

INTAKES = Counter("dicecall_roll_intakes_total", "Rolls posted by devices",
                  ["verdict", "outcome"])
SETTLEMENTS = Counter("dicecall_settlements_total", "Rolls settled through the engine",
                      ["game"])
SETTLED_LINES = Counter("dicecall_settlement_lines_total", "Wager lines settled", ["result"])
INTAKE_LATENCY = Histogram(
    "dicecall_roll_intake_seconds", "Time to verify, store and settle one posted roll",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5))
MISMATCHES = Counter("dicecall_dealer_call_mismatches_total",
                     "Dealer calls that disagree with the camera")
SEQUENCE = Counter("dicecall_sequence_anomalies_total",
                   "Device sequence gaps and reordered rolls", ["kind"])
AUTH_FAILURES = Counter("dicecall_auth_failures_total", "Refused credentials", ["code"])
