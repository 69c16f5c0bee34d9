"""Tables of the surveillance and labeling console: per-die labels and alert handling.

Kept apart from `models.py` (the intake's tables) but on the same `Base`, so one metadata
and one Alembic history cover both.
"""

from __future__ import annotations

from sqlalchemy import Boolean, Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base


class DieLabel(Base):
    """A labeler's reading of one die of a roll's evidence frame.

    The box is in pixels of the clean evidence JPEG (x0, y0, x1, y1); a die labelled
    outside the zone is still a die in the picture, so it keeps its box and face.
    """

    __tablename__ = "die_labels"
    __table_args__ = (UniqueConstraint("roll_id", "die", name="uq_die_labels_roll_die"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    roll_id: Mapped[str] = mapped_column(ForeignKey("rolls.roll_id"), index=True)
    die: Mapped[int] = mapped_column(Integer)
    face: Mapped[int] = mapped_column(Integer)
    cocked: Mapped[bool] = mapped_column(Boolean, default=False)
    stacked: Mapped[bool] = mapped_column(Boolean, default=False)
    outside: Mapped[bool] = mapped_column(Boolean, default=False)
    x0: Mapped[float] = mapped_column(Float)
    y0: Mapped[float] = mapped_column(Float)
    x1: Mapped[float] = mapped_column(Float)
    y1: Mapped[float] = mapped_column(Float)
    labeler: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[float] = mapped_column(Float)


class AlertAction(Base):
    """What surveillance did about an alert: acknowledged, confirmed or corrected it.

    `ref` is the dealer call id (kind dealer_call) or the roll id (kind needs_review).
    """

    __tablename__ = "alert_actions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(20))
    ref: Mapped[str] = mapped_column(String(36), index=True)
    table_id: Mapped[str] = mapped_column(String(36), index=True)
    action: Mapped[str] = mapped_column(String(16))
    note: Mapped[str] = mapped_column(Text, default="")
    by: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[float] = mapped_column(Float)
