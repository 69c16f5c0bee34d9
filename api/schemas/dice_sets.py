"""Dice sets put in service on a table (603a.13 receipt, inspection and removal from use)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .common import Out, Strict

_EXAMPLE_SET = {"id": "0b7f6f3e-54a1-4c52-9a8e-3d2f1c0a9b11",
                "table_id": "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f",
                "label": "PA-2291 / PA-2292", "put_in_service_at": 1767225600.0,
                "put_in_service_by": "floor surveillance", "retired_at": None,
                "retired_by": None, "in_service": True}


class DiceSetIn(Strict):
    """A new set of dice put in play on the table; the one in play is retired at once."""

    label: str = Field(min_length=1, max_length=200, pattern=r"^[^\x00-\x1f\x7f]+$",
                       description="What identifies the dice, e.g. the serial numbers "
                       "stamped on them (one line of text).")

    model_config = Strict.model_config | {"json_schema_extra": {"examples": [
        {"label": "PA-2291 / PA-2292"}]}}


class DiceSetOut(Out):
    """A set of dice and when it was in play on its table: [put_in_service_at, retired_at)."""

    id: str
    table_id: str
    label: str
    put_in_service_at: float = Field(description="Unix s, the service's clock.")
    put_in_service_by: str = Field(description="The token's name that put it in service.")
    retired_at: float | None = Field(description="Unix s; null while in service.")
    retired_by: str | None
    in_service: bool

    model_config = Out.model_config | {"json_schema_extra": {"examples": [_EXAMPLE_SET]}}


class DiceDueOut(Out):
    """When the set in service must be changed: 24 h after it went in (623a.7(d) Craps and
    Mini-Craps, 668a.3(b)(1) Props & Hops, 675a.3(b)(1) High Roll Dice)."""

    status: Literal["ok", "due_soon", "overdue", "no_set"] = Field(
        description="overdue from the deadline itself on; due_soon within "
                    "DICECALL_DICE_WARN_HOURS of it.")
    section: str = Field(description="The rule that sets the limit for the table's game.")
    deadline: float | None = Field(description="Unix s: put_in_service_at + "
                                   "DICECALL_DICE_MAX_AGE_HOURS.")
    age_s: float | None = Field(description="Seconds in service, on the service's clock.")


class DiceSetListed(DiceSetOut):
    """A set of the table's listing, with its change deadline while in service."""

    due: DiceDueOut | None = Field(description="For the set in service; null once retired.")

    model_config = Out.model_config | {"json_schema_extra": {"examples": [{
        **_EXAMPLE_SET, "due": {"status": "ok", "section": "623a.7(d)",
                                "deadline": 1767312000.0, "age_s": 3600.0}}]}}


class DiceSetChange(Out):
    """The set put in service and the one it retired at the same instant."""

    dice_set: DiceSetOut
    retired: DiceSetOut | None = Field(description="The set that was in service, now "
                                       "retired; null when the table had none.")

    model_config = Out.model_config | {"json_schema_extra": {"examples": [{
        "dice_set": _EXAMPLE_SET,
        "retired": {**_EXAMPLE_SET, "id": "9c4e2a10-7d3b-4f5e-8a6c-1b2d3e4f5a6b",
                    "label": "PA-2101 / PA-2102", "put_in_service_at": 1767196800.0,
                    "retired_at": 1767225600.0, "retired_by": "floor surveillance",
                    "in_service": False}}]}}
