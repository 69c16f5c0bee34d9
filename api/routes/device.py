"""What an edge device may read with its own signature: the phase of its table.

The edge needs, before reading a throw, how many dice it must show: all of them, or on the
High Roll Extra Roll only those rethrown (675a.4(g)). The round routes need a bearer token,
which a device does not have, so this one route answers to the device's HMAC signature
(the same check as the roll intake) and tells only the game, the round, the dice expected
and the device's last sequence number (so a replaced outbox resumes the numbering).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from ..db.models import Device
from ..deps import DbDep, SignedDevice, signed_device
from ..games import registry
from ..schemas.common import Out, errors
from ..services.state import load_state, read_table

router = APIRouter(tags=["devices"])


class DeviceStateOut(Out):
    table_id: str
    device_id: str
    game: str
    round: int = Field(description="The table's current round number.")
    betting_open: bool
    held_rolls: int = Field(description="Rolls waiting for a surveillance review.")
    expected_dice: int = Field(description="Dice the next throw must show.")
    extra_roll: bool = Field(description="High Roll: the next throw is the Extra Roll.")
    held_face: int | None = Field(None, description="High Roll Extra Roll: the face held.")
    held_count: int = Field(0, description="High Roll Extra Roll: dice held in the box.")
    last_seq: int | None = Field(None, description="The last seq received from this device.")


def _state(db, device: SignedDevice) -> dict:
    with db.read() as session:
        table = read_table(session, device.table_id)
        state = load_state(table)
        row = session.get(Device, device.device_id)
        held_face = getattr(state, "held_face", None)
        return {"table_id": table.id, "device_id": device.device_id, "game": table.game,
                "round": table.round_no, "betting_open": table.betting_open,
                "held_rolls": table.held_rolls,
                "expected_dice": registry.get(table.game).expected_dice(state),
                "extra_roll": held_face is not None, "held_face": held_face,
                "held_count": getattr(state, "held_count", 0),
                "last_seq": row.last_seq if row is not None else None}


@router.get("/tables/{table_id}/device", response_model=DeviceStateOut,
            responses=errors(401, 403, 404))
async def device_state(db: DbDep,
                       device: Annotated[SignedDevice, Depends(signed_device)]) -> dict:
    """The table's phase as its signed edge device needs it (game, dice expected, seq)."""
    return await run_in_threadpool(_state, db, device)
