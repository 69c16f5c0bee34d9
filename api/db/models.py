"""SQLAlchemy 2 models. Times are Unix seconds (float) so audit payloads stay plain JSON.

JSON documents (table state, settlements, the original response of a roll) are stored as
text: they are written and read whole, never queried inside, and text keeps SQLite and
PostgreSQL byte-identical for the idempotent replay of a roll's response.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class Table(Base):
    """A gaming table: its game, options and the engine state between rolls."""

    __tablename__ = "dc_tables"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    game: Mapped[str] = mapped_column(String(32))
    state_json: Mapped[str] = mapped_column(Text)
    version: Mapped[int] = mapped_column(Integer, default=0)
    round_no: Mapped[int] = mapped_column(Integer, default=1)
    # The service's own "no more bets" mark, for every game (the engine of Craps has none).
    betting_open: Mapped[bool] = mapped_column(Boolean, default=True)
    arrivals: Mapped[int] = mapped_column(Integer, default=0)
    held_rolls: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[float] = mapped_column(Float)


class Device(Base):
    """An edge box bound to one table. Its secret is derived, never stored (security.py)."""

    __tablename__ = "devices"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("dc_tables.id"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    salt: Mapped[str] = mapped_column(String(64))
    secret_hash: Mapped[str] = mapped_column(String(64))
    last_seq: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[float] = mapped_column(Float)


class Token(Base):
    """A bearer token of a person or integration; only its sha256 is kept."""

    __tablename__ = "tokens"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    role: Mapped[str] = mapped_column(String(20))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[float] = mapped_column(Float)


class Roll(Base):
    """One roll posted by a device; the primary key is the idempotency key."""

    __tablename__ = "rolls"
    __table_args__ = (
        Index("ix_rolls_table_arrival", "table_id", "arrival"),
        Index("ix_rolls_table_status", "table_id", "status"),
        Index("ix_rolls_device_seq", "device_id", "seq"),
    )

    roll_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("dc_tables.id"))
    device_id: Mapped[str] = mapped_column(ForeignKey("devices.id"))
    seq: Mapped[int] = mapped_column(BigInteger)
    arrival: Mapped[int] = mapped_column(Integer)
    round_no: Mapped[int] = mapped_column(Integer)
    body_hash: Mapped[str] = mapped_column(String(64))
    verdict: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    faces_json: Mapped[str] = mapped_column(Text)
    final_faces_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    detail_json: Mapped[str] = mapped_column(Text)
    seq_status: Mapped[str] = mapped_column(String(16))
    settlement_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    # The table's state before this roll settled and the version its settlement produced:
    # what a correction of the settled roll needs (services/correct.py).
    state_before_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    settled_version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    response_json: Mapped[str] = mapped_column(Text)
    review_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    received_at: Mapped[float] = mapped_column(Float)
    # When the dice were thrown: the edge's captured_at, never later than received_at (the
    # device's clock is within the replay window of ours whenever it posts). NULL on rolls
    # stored before revision 0004, which count by received_at. Dice sets are matched on it.
    captured_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    settled_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class DiceSet(Base):
    """A set of dice in play on a table from `put_in_service_at` until `retired_at`.

    Dice are received, inspected and removed from use under 603a.13; the fairness report
    tests each set apart. At most one set per table is in service (retired_at NULL): the
    partial unique index holds that even against a concurrent writer.
    """

    __tablename__ = "dice_sets"
    __table_args__ = (
        Index("ix_dice_sets_table_time", "table_id", "put_in_service_at"),
        Index("uq_dice_sets_in_service", "table_id", unique=True,
              sqlite_where=text("retired_at IS NULL"),
              postgresql_where=text("retired_at IS NULL")),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("dc_tables.id"))
    label: Mapped[str] = mapped_column(String(200))
    put_in_service_at: Mapped[float] = mapped_column(Float)
    put_in_service_by: Mapped[str] = mapped_column(String(100))
    retired_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    retired_by: Mapped[str | None] = mapped_column(String(100), nullable=True)


class SequenceGap(Base):
    """Sequence numbers a device skipped (gap) or sent late (reordered)."""

    __tablename__ = "sequence_gaps"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("dc_tables.id"), index=True)
    device_id: Mapped[str] = mapped_column(ForeignKey("devices.id"))
    roll_id: Mapped[str] = mapped_column(ForeignKey("rolls.roll_id"))
    kind: Mapped[str] = mapped_column(String(16))
    expected: Mapped[int] = mapped_column(BigInteger)
    received: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[float] = mapped_column(Float)


class DealerCall(Base):
    """The dealer's announced result of a roll, compared with the camera, then with the
    faces a review decided."""

    __tablename__ = "dealer_calls"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    roll_id: Mapped[str] = mapped_column(ForeignKey("rolls.roll_id"), index=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("dc_tables.id"), index=True)
    call_json: Mapped[str] = mapped_column(Text)
    matches: Mapped[bool] = mapped_column(Boolean)
    detail: Mapped[str] = mapped_column(Text)
    # matches/detail follow the decided faces (a review compares again); these keep the
    # comparison with the camera's read when the call came in.
    original_matches: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    original_detail: Mapped[str | None] = mapped_column(Text, nullable=True)
    # When the call last became a mismatch (when made, or when a review turned a match into
    # one): a console action older than this no longer handles the alert. None: it never
    # disagreed.
    mismatch_raised_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    caller: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[float] = mapped_column(Float)


class Event(Base):
    """One link of the audit hash chain; its id is also the event stream's id."""

    __tablename__ = "events"
    __table_args__ = (Index("ix_events_table_id", "table_id", "id"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    table_id: Mapped[str | None] = mapped_column(String(36), nullable=True)
    kind: Mapped[str] = mapped_column(String(32))
    payload: Mapped[str] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column(Float)
    prev_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))


class ChainHead(Base):
    """The single row every event append locks: last id and hash of the chain.

    It serializes appends (ids are committed in order, so a stream reader that asks for
    "id > n" never skips one committed later) and lets verify notice a deleted tail.
    """

    __tablename__ = "chain_head"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    last_id: Mapped[int] = mapped_column(BigInteger)
    last_hash: Mapped[str] = mapped_column(String(64))
