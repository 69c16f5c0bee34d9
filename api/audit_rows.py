"""The rows the chain vouches for: each roll, its settlement and each dealer call.

A chain that recomputes proves only its own events. A roll's `settlement_json` (what was
paid) or a dealer call's verdict lives in its own row, so `verify` also checks each row
against its latest event: the roll's `roll` event, the sha256 of its settlement against the
last `settlement`/`correction` event of that roll, and each dealer call against its
`dealer_call` event or the `dealer_call_rechecked` a later review made (`matches`,
`detail`), its `original_matches` and `original_detail` (the comparison with the camera when
it came in, which keeps a call a review made agree in the console's handled list) against
its first `dealer_call` event, and its `mismatch_raised_at` (which decides whether the
console's alert is open) against the time of its latest `dealer_call_mismatch` event. A row
with no event, or whose content no longer matches it, is named.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .db.models import DealerCall, Event, Roll

# A review that decides other faces compares the roll's dealer calls again: the latest of
# `dealer_call` and `dealer_call_rechecked` is what the row must say.
_CALL_KINDS = frozenset({"dealer_call", "dealer_call_rechecked"})
_KINDS = frozenset({"roll", "settlement", "correction", "dealer_call_mismatch"}) | _CALL_KINDS


class RowIndex:
    """What the chain says about rows, collected while `verify` walks it."""

    def __init__(self) -> None:
        self.rolls: set[str] = set()
        self.settled: dict[str, tuple[int, str]] = {}  # roll_id -> (event id, sha256)
        self.calls: dict[int, tuple[int, Any]] = {}  # call id -> (event id, matches)
        self.details: dict[int, tuple[int, Any]] = {}  # call id -> (event id, detail)
        # call id -> (event id, matches, detail) of its first dealer_call event: `original_*`
        self.first: dict[int, tuple[int, Any, Any]] = {}
        self.raised: dict[int, tuple[int, float]] = {}  # call id -> (event id, its time)

    def see(self, row: Event) -> None:
        if row.kind not in _KINDS:
            return
        try:
            payload = json.loads(row.payload)
        except ValueError:
            return  # the event's own hash check reports an edited payload
        if not isinstance(payload, dict):
            return
        roll_id = payload.get("roll_id")
        if row.kind == "roll":
            self.rolls.add(roll_id)
        elif row.kind == "dealer_call_mismatch":  # the latest raise wins
            self.raised[payload.get("call_id")] = (row.id, row.created_at)
        elif row.kind in _CALL_KINDS:
            call_id = payload.get("call_id")
            self.calls[call_id] = (row.id, payload.get("matches"))
            if "detail" in payload:
                self.details[call_id] = (row.id, payload["detail"])
            if row.kind == "dealer_call":
                self.first.setdefault(call_id, (row.id, payload.get("matches"),
                                                payload.get("detail")))
        elif payload.get("settlement_sha256") is not None:  # the latest settlement wins
            self.settled[roll_id] = (row.id, payload["settlement_sha256"])
        elif "settlement_sha256" in payload:  # a correction that voided the roll
            self.settled.pop(roll_id, None)

    def check(self, session: Session, problems: list[str], batch: int = 5000) -> None:
        """Appends a problem for every roll or dealer call the chain does not vouch for."""
        last = ""
        while True:
            rows = session.execute(select(Roll.roll_id, Roll.status, Roll.settlement_json)
                                   .where(Roll.roll_id > last).order_by(Roll.roll_id)
                                   .limit(batch)).all()
            if not rows:
                break
            for roll_id, status, settlement in rows:
                self._check_roll(problems, roll_id, status, settlement)
            last = rows[-1][0]
        for call in session.execute(
                select(DealerCall.id, DealerCall.roll_id, DealerCall.matches,
                       DealerCall.detail, DealerCall.original_matches,
                       DealerCall.original_detail, DealerCall.mismatch_raised_at,
                       DealerCall.created_at).order_by(DealerCall.id)):
            self._check_call(problems, *call)

    def _check_call(self, problems: list[str], call_id: int, roll_id: str, matches: bool,
                    detail: str, original: bool | None, original_detail: str | None,
                    raised_at: float | None, created_at: float) -> None:
        name = f"dealer call {call_id} (roll {roll_id})"
        seen, first = self.calls.get(call_id), self.first.get(call_id)
        if seen is None or first is None:
            problems.append(f"{name}: no dealer_call event in the chain")
        if seen is not None and seen[1] != matches:
            problems.append(f"{name}: matches edited (event {seen[0]} records {seen[1]})")
        said = self.details.get(call_id)
        if said is not None and said[1] != detail:
            problems.append(f"{name}: detail edited (event {said[0]} records {said[1]!r})")
        # The comparison when the call came in is its dealer_call event's, whatever reviews
        # decided since (623a.9(c)); migration 0006 gave older rows the same one.
        if first is not None and first[1] != original:
            problems.append(f"{name}: original_matches edited (dealer_call event {first[0]} "
                            f"records {first[1]})")
        if first is not None and first[2] != original_detail:
            problems.append(f"{name}: original_detail edited (dealer_call event {first[0]} "
                            f"records {first[2]!r})")
        # The console's alert is open while no action is as recent as the raise: moving it
        # closes or reopens the alert. The raise is its event's time; a call with none
        # disagreed before reviews raised alerts (migration 0007 took the call's own time).
        event = self.raised.get(call_id)
        if event is not None:
            expected, source = event[1], f"event {event[0]} raised it at {event[1]}"
        elif matches is False or original is False:
            expected, source = created_at, "no dealer_call_mismatch event: the call's time"
        else:
            expected, source = None, "never raised"
        if raised_at != expected:
            problems.append(f"{name}: mismatch_raised_at edited to {raised_at} ({source})")

    def _check_roll(self, problems: list[str], roll_id: str, status: str,
                    settlement: str | None) -> None:
        if roll_id not in self.rolls:
            problems.append(f"roll {roll_id}: no roll event in the chain")
        recorded = self.settled.get(roll_id)
        if settlement is None:
            if recorded is not None:
                problems.append(f"roll {roll_id}: settlement deleted (event {recorded[0]} "
                                "records one)")
            elif status == "settled":
                problems.append(f"roll {roll_id}: settled with no settlement stored")
            return
        if recorded is None:
            problems.append(f"roll {roll_id}: settlement stored but no settlement event in "
                            "the chain")
        elif hashlib.sha256(settlement.encode()).hexdigest() != recorded[1]:
            problems.append(f"roll {roll_id}: settlement edited (its sha256 differs from "
                            f"event {recorded[0]})")
