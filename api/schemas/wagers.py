"""Wagers: placing, reducing or removing, the on/off marker, listing."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from .common import Out, Strict

ParamValue = int | Annotated[list[Annotated[int, Field(ge=1, le=6)]],
                             Field(min_length=2, max_length=2)]


class WagerIn(Strict):
    """A wager from the catalog (`GET /v1/catalog/{game}`): name, params, cents, seat."""

    id: str | None = Field(None, min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$",
                           description="Unique on the table; generated when omitted.")
    name: str = Field(min_length=1, max_length=40, description="Canonical wager name.")
    amount: int = Field(gt=0, le=10**9, description="Cents wagered.")
    seat: int = Field(0, ge=0, le=20, description="Player position.")
    params: dict[str, ParamValue] = Field(default_factory=dict, max_length=4,
                                          description="e.g. {\"number\": 6}.")

    model_config = Strict.model_config | {"json_schema_extra": {"examples": [
        {"name": "place_to_win", "amount": 1200, "seat": 2, "params": {"number": 6}},
        {"name": "pass", "amount": 1000, "seat": 1}]}}


class WagerOut(Out):
    id: str
    name: str
    amount: int
    seat: int
    params: dict[str, int | list[int]]
    working: bool | None = None
    point: int | None = None


class PlacedOut(Out):
    wager: WagerOut
    fee: int = Field(description="Vigorish collected up front (623a.5(g)(3)), cents.")
    round: int


class ReduceIn(Strict):
    amount: int = Field(ge=0, le=10**9, description="New amount in cents; 0 removes.")

    model_config = Strict.model_config | {"json_schema_extra": {"examples": [{"amount": 600}]}}


class WorkingIn(Strict):
    working: bool | None = Field(description="True: the \"on\" marker, False: \"off\", "
                                 "null: no marker, the rule's default (Place, Buy and "
                                 "Hardway Bets off on the come out roll, Lay Bets on, "
                                 "623a.3(a)(5)-(10),(41),(42)).")

    model_config = Strict.model_config | {"json_schema_extra": {"examples": [
        {"working": True}]}}


class MarkedOut(Out):
    wager: WagerOut
    round: int


class AlsoOut(Out):
    """A wager that came down with the one reduced or removed."""

    wager_id: str
    amount: int = Field(description="Amount left on the layout (0: removed).")
    returned: int = Field(description="Cents handed back to the player.")
    section: str


class ChangedOut(Out):
    wager_id: str
    amount: int = Field(description="Amount left on the layout (0: removed).")
    returned: int = Field(description="Cents handed back to the player, `also` included.")
    section: str
    also: list[AlsoOut] = Field(default_factory=list, description="Wagers that came down "
                                "with it: the lay odds behind a Don't Pass or Don't Come Bet "
                                "removed, or those above what its reduced amount supports "
                                "(623a.4(c),(d), 623a.6(b),(d),(e)).")
