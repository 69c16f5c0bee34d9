"""Rolls posted by edge devices, their settlement, reviews and dealer calls."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from .common import NO_NUL, ONE_LINE, UUID_PATTERN, Face, Out, Sha256, Strict

Verdict = Literal["valid", "no_roll", "needs_review"]
RollStatus = Literal["settled", "no_roll", "held", "queued"]


class Reason(Strict):
    code: str = Field(min_length=1, max_length=64, pattern=ONE_LINE,
                      description="e.g. cocked, die_on_die.")
    section: str = Field("", max_length=64, pattern=ONE_LINE,
                         description="The rule, e.g. 623a.8(b).")
    status: Verdict | None = Field(None, description="The call this finding makes on its "
                                   "own; a `valid` roll with a finding that calls `no_roll` "
                                   "or `needs_review` is held for review.")


class Evidence(Strict):
    """sha256 of the clean and annotated frames; the JPEGs themselves are optional."""

    clean_sha256: Sha256
    annotated_sha256: Sha256
    clean_jpeg_b64: str | None = Field(None, max_length=22_000_000,
                                       description="Base64 JPEG; must hash to clean_sha256.")
    annotated_jpeg_b64: str | None = Field(None, max_length=22_000_000)


class RollIn(Strict):
    """One roll as the edge read it. `roll_id` is the idempotency key."""

    roll_id: str = Field(pattern=UUID_PATTERN, description="UUID chosen by the device.")
    seq: int = Field(ge=0, le=2**62, description="The device's sequence number, +1 a roll.")
    verdict: Verdict
    faces: list[Face] = Field(max_length=10, description="Faces read, one per die.")
    reasons: list[Reason] = Field(default_factory=list, max_length=20)
    confidences: list[float] = Field(default_factory=list, max_length=10,
                                     description="Per-die confidence, 0-1.")
    evidence: Evidence
    captured_at: float | None = Field(None, description="Edge clock, Unix seconds.")

    @field_validator("roll_id")
    @classmethod
    def _lower(cls, value: str) -> str:
        # A UUID's hex digits are case-insensitive: one roll, one key. Lowered before the
        # body is hashed, so an upper-case repost of a stored roll is its replay (200).
        return value.lower()

    @model_validator(mode="after")
    def _check(self) -> RollIn:
        if any(not 0.0 <= c <= 1.0 for c in self.confidences):
            raise ValueError("confidences must be between 0 and 1")
        if self.confidences and len(self.confidences) != len(self.faces):
            raise ValueError("one confidence per face")
        if self.verdict == "valid" and not self.faces:
            raise ValueError("a valid roll has faces")
        return self

    model_config = Strict.model_config | {"json_schema_extra": {"examples": [{
        "roll_id": "5b0c8a56-2f44-4d3c-9c55-0f7d3b1e9a10", "seq": 42, "verdict": "valid",
        "faces": [3, 4], "reasons": [], "confidences": [0.998, 0.995],
        "evidence": {"clean_sha256": "a" * 64, "annotated_sha256": "b" * 64},
        "captured_at": 1767225600.25}]}}


class LineOut(Out):
    """What one roll did to one wager (cents). remainder: the rounding left, exact."""

    wager_id: str
    name: str
    seat: int
    result: str = Field(description="win, lose, push, move or returned.")
    stake: int
    paid: int
    returned: int
    collected: int
    stays: bool
    remainder: str = Field(description="Exact cents below the payout unit, e.g. \"1/3\".")
    section: str
    note: str = ""


class SettlementOut(Out):
    faces: list[int]
    lines: list[LineOut]
    paid: int
    collected: int
    remainder: str
    events: list[str] = Field(description="Table events: point set, seven out...")


class SequenceOut(Out):
    """How `seq` compares with what the device sent before."""

    status: Literal["first", "ok", "gap", "reordered", "repeat"]
    expected: int | None = Field(None, description="The sequence number that was due.")
    missing: list[int] | None = Field(None, description="[first, last] skipped (gap).")


class RollOut(Out):
    roll_id: str
    table_id: str
    device_id: str
    seq: int
    round: int
    verdict: Verdict
    status: RollStatus = Field(description="settled; no_roll (nothing settled); held (waits "
                               "for a surveillance review); queued (behind a held roll).")
    faces: list[int]
    final_faces: list[int] | None = Field(None, description="Faces that were settled.")
    reasons: list[Reason]
    sequence: SequenceOut
    settlement: SettlementOut | None = None
    received_at: float
    settled_at: float | None = None
    review: dict | None = None


class ReviewIn(Strict):
    """Surveillance decides a held roll (623a.9(c)): confirm, correct or void it; or
    corrects or voids a settled roll that is still the table's latest change."""

    action: Literal["confirm", "correct", "no_roll"]
    faces: list[Face] | None = Field(None, max_length=10,
                                     description="The corrected faces (action correct).")
    note: str = Field("", max_length=500, pattern=NO_NUL)

    @model_validator(mode="after")
    def _check(self) -> ReviewIn:
        if (self.action == "correct") != (self.faces is not None):
            raise ValueError("faces are given with action 'correct', and only then")
        return self

    model_config = Strict.model_config | {"json_schema_extra": {"examples": [
        {"action": "correct", "faces": [2, 5], "note": "left die read as 6"}]}}


class DealerCallIn(Strict):
    """The dealer's announcement: the faces, the total, or no roll."""

    faces: list[Face] | None = Field(None, min_length=1, max_length=10)
    total: int | None = Field(None, ge=1, le=60)
    no_roll: bool = False
    dealer: str = Field("", max_length=100, pattern=ONE_LINE)

    @model_validator(mode="after")
    def _check(self) -> DealerCallIn:
        if self.faces is None and self.total is None and not self.no_roll:
            raise ValueError("give faces, total or no_roll")
        return self

    model_config = Strict.model_config | {"json_schema_extra": {"examples": [
        {"total": 7, "dealer": "stick 2"}, {"faces": [3, 4]}]}}


class DealerCallOut(Out):
    id: int
    roll_id: str
    table_id: str
    matches: bool = Field(description="Against the roll as decided: the camera's read, "
                          "or the faces or no roll a later review decided (623a.9(c)).")
    detail: str
    original_matches: bool | None = Field(None, description="Against the camera's read "
                                          "when the call came in (null: not kept).")
    original_detail: str | None = None
    call: dict | None = Field(None, description="What the dealer announced, as posted: "
                              "faces, total or no_roll, and the dealer's name.")
    camera_faces: list[int] | None
    created_at: float
    raised_at: float | None = Field(None, description="When the call last came to disagree "
                                    "(its own `dealer_call_mismatch` event, or a review's "
                                    "that made it disagree again): the order of "
                                    "`/v1/alerts`; null when it never disagreed.")


class RollDetailOut(RollOut):
    """One roll (`GET /v1/rolls/{roll_id}`) with the dealer's calls of it."""

    dealer_calls: list[DealerCallOut] = Field(
        default_factory=list, description="The dealer's calls of this roll in the order "
        "they were made, each compared with the roll as decided (`matches`, `detail`) and "
        "as the camera read it when the call came in (`original_*`); `camera_faces` is "
        "null (see the roll's `faces` and `final_faces`).")
