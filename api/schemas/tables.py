"""Tables, devices, tokens, rounds and shooters."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .common import ONE_LINE, Out, Strict

GameName = Literal["craps", "mini-craps", "props-and-hops", "high-roll-dice",
                   "high-roll-dice-6"]
Role = Literal["integration", "surveillance", "labeler", "admin"]


class TableIn(Strict):
    """A new table: its game and the house options the engine defines for it."""

    game: GameName = Field(description="The game played at the table.")
    name: str = Field("", max_length=100, pattern=ONE_LINE, description="A label for people.")
    options: dict[str, Any] = Field(
        default_factory=dict, description="House options; missing ones take the engine "
        "defaults. Craps: table_min, table_max, odds_multiple (1-10, or one per point "
        "number: {\"4\": 3, \"5\": 4, \"6\": 5, \"8\": 5, \"9\": 4, \"10\": 3}, "
        "623a.6(e)), lay_odds_multiple (the lay odds' winnings, same forms; null: as "
        "odds_multiple), odds_whole_payout (623a.6(f)), buy, lay, place_to_lose (off only "
        "with lay, 623a.3(a)(42)), vig_rate (\"1/20\"), fire, bonus_craps... (buy_lay, "
        "the older form, sets buy and lay); Mini-Craps: the same, but no Fire Bet (fire "
        "defaults to null, \"A\"/\"B\" is 422 bad_option, 623a.11(a),(b)); Props & Hops: "
        "hop_layout; High Roll: table_min, millionaire_min. See docs/api.md.")

    model_config = Strict.model_config | {"json_schema_extra": {"examples": [
        {"game": "craps", "name": "Craps 3", "options": {"odds_multiple": 5}},
        {"game": "craps", "name": "Craps 4", "options": {
            "odds_multiple": {"4": 3, "5": 4, "6": 5, "8": 5, "9": 4, "10": 3},
            "odds_whole_payout": 100, "lay": True, "place_to_lose": False}}]}}


class DeviceRef(Out):
    id: str
    name: str
    last_seq: int | None = None
    revoked: bool = False


class RoundOut(Out):
    """The current betting round of a table."""

    table_id: str
    number: int = Field(description="Rounds settled so far + 1.")
    betting_open: bool = Field(description="False after \"no more bets\".")
    held_rolls: int = Field(description="Rolls waiting for a surveillance review.")
    shooter: int | None = Field(None, description="Current shooter number, where the "
                                "game has one.")


class TableOut(Out):
    id: str
    name: str
    game: str
    options: dict[str, Any]
    round: RoundOut
    state: dict[str, Any] = Field(description="Engine state besides options and wagers "
                                  "(point, shooter, Extra Roll phase...).")
    wagers: int = Field(description="Wagers on the layout.")
    devices: list[DeviceRef]
    created_at: float


class DeviceIn(Strict):
    name: str = Field("edge", min_length=1, max_length=100, pattern=ONE_LINE,
                      description="A label.")

    model_config = Strict.model_config | {"json_schema_extra": {"examples": [
        {"name": "throw-box camera"}]}}


class DeviceCreated(Out):
    """A new device; `secret` is shown this once and never again."""

    id: str
    table_id: str
    name: str
    secret: str = Field(description="Signs the device's requests (api/signing.py).")


class TokenIn(Strict):
    name: str = Field(min_length=1, max_length=100)
    role: Role

    model_config = Strict.model_config | {"json_schema_extra": {"examples": [
        {"name": "floor surveillance", "role": "surveillance"}]}}


class TokenCreated(Out):
    """A new bearer token; `token` is shown this once and never again."""

    id: str
    name: str
    role: Role
    token: str


class NoMoreBetsIn(Strict):
    round: int | None = Field(None, ge=1, description="Refuse (409) unless this is the "
                              "current round, so a late call cannot close the next one.")


class ShooterOut(Out):
    table_id: str
    shooter: int
