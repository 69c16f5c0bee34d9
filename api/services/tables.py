"""Tables, their devices, rounds ("no more bets") and shooters; bearer tokens."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .. import audit
from ..db.models import Device, Table, Token
from ..db.session import Database
from ..errors import ApiError
from ..games import craps, high_roll, props_hops, serialize
from ..games.registry import get
from ..security import ROLES, device_secret, new_salt, new_token, sha256_hex
from .state import (
    load_state,
    locked_table,
    new_id,
    now,
    remember,
    save_state,
    shooter_of,
    state_summary,
)

# "No more bets" in the engine where the game has it; Craps has only the service's mark.
CLOSE_BETTING = {"props-and-hops": props_hops.close_betting,
                 "high-roll-dice": high_roll.close_betting,
                 "high-roll-dice-6": high_roll.close_betting}
CRAPS_GAMES = ("craps", "mini-craps")


def create_table(db: Database, game: str, name: str, options: dict[str, Any]) -> dict:
    """Creates a table with validated options (OptionsRefused -> 422 with the section)."""
    try:
        rules = get(game)
    except KeyError as exc:
        raise ApiError(422, "unknown_game", str(exc.args[0])) from None
    state = rules.new_table(rules.new_table_options(serialize.options_from_json(game, options)))
    table = Table(id=new_id(), name=name or game, game=game, state_json="", version=0,
                  round_no=1, betting_open=True, arrivals=0, held_rolls=0, created_at=now())
    save_state(table, state)
    with db.write() as session:
        session.add(table)
        session.flush()
        audit.append(session, [audit.Pending(table.id, "table_created", {
            "game": game, "name": table.name,
            "options": serialize.options_to_json(state.options)})])
    remember(table, state)
    return table_view(table, [])


def round_view(table: Table, state: Any) -> dict:
    return {"table_id": table.id, "number": table.round_no, "betting_open": table.betting_open,
            "held_rolls": table.held_rolls, "shooter": shooter_of(state)}


def table_view(table: Table, devices: list[Device]) -> dict:
    state = load_state(table)
    return {"id": table.id, "name": table.name, "game": table.game,
            "options": serialize.options_to_json(state.options),
            "round": round_view(table, state), "state": state_summary(state),
            "wagers": len(state.wagers),
            "devices": [{"id": d.id, "name": d.name, "last_seq": d.last_seq,
                         "revoked": d.revoked} for d in devices],
            "created_at": table.created_at}


def devices_of(session: Session, table_id: str) -> list[Device]:
    return list(session.scalars(select(Device).where(Device.table_id == table_id)
                                .order_by(Device.created_at)))


def create_device(db: Database, server_key: bytes, table_id: str, name: str) -> dict:
    """Binds a new edge device to a table; its secret is returned this once."""
    device_id, salt = new_id(), new_salt()
    secret = device_secret(server_key, device_id, salt)
    with db.write() as session:
        locked_table(db, session, table_id)
        session.add(Device(id=device_id, table_id=table_id, name=name, salt=salt,
                           secret_hash=sha256_hex(secret), last_seq=None, revoked=False,
                           created_at=now()))
        session.flush()
        audit.append(session, [audit.Pending(table_id, "device_created",
                                             {"device_id": device_id, "name": name})])
    return {"id": device_id, "table_id": table_id, "name": name, "secret": secret}


def create_token(db: Database, name: str, role: str) -> dict:
    """A bearer token for a person or integration; only its hash is stored."""
    if role not in ROLES:
        raise ApiError(422, "bad_role", f"role must be one of {', '.join(ROLES)}")
    # The name is who acted in the audit chain and the console: one visible line (a NUL
    # was also a 500 on PostgreSQL, whose text cannot hold it).
    if not name.strip() or any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise ApiError(422, "bad_name", "a token's name is one line of visible text")
    token, digest = new_token()
    token_id = new_id()
    with db.write() as session:
        session.add(Token(id=token_id, name=name, role=role, token_hash=digest, revoked=False,
                          created_at=now()))
        session.flush()
        audit.append(session, [audit.Pending(None, "token_created",
                                             {"token_id": token_id, "name": name,
                                              "role": role})])
    return {"id": token_id, "name": name, "role": role, "token": token}


def no_more_bets(db: Database, table_id: str, round_no: int | None, who: str) -> dict:
    """The dealer's "no more bets" for the current round (668a.3(e), 675a.4(a), 623a.4(a))."""
    with db.write() as session:
        table = locked_table(db, session, table_id)
        if round_no is not None and round_no != table.round_no:
            raise ApiError(409, "not_current_round", f"round {round_no} is not the current "
                           f"round {table.round_no}")
        state = load_state(table)
        if table.betting_open:
            table.betting_open = False
            if table.game in CLOSE_BETTING:
                state = CLOSE_BETTING[table.game](state)
            save_state(table, state)
            audit.append(session, [audit.Pending(table.id, "betting_closed",
                                                 {"round": table.round_no, "by": who})])
    remember(table, state)
    return round_view(table, state)


def new_shooter(db: Database, table_id: str, who: str) -> dict:
    """The shooter passes the dice without a loser 7 (623a.10(a)); Craps only."""
    with db.write() as session:
        table = locked_table(db, session, table_id)
        if table.game not in CRAPS_GAMES:
            section = "668a.3(k)" if table.game == "props-and-hops" else "675a"
            raise ApiError(409, "not_supported", f"{table.game}: the shooter changes by the "
                           "rules of the game, not on request", section)
        state = craps.change_shooter(load_state(table))
        save_state(table, state)
        audit.append(session, [audit.Pending(table.id, "shooter_changed",
                                             {"shooter": state.shooter, "by": who})])
    remember(table, state)
    return {"table_id": table.id, "shooter": state.shooter}
