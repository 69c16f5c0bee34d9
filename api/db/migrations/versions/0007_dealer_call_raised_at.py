"""Dealer calls keep when their mismatch was last raised.

A call that disagreed, was handled in the console, was made to agree by a review and then
to disagree by a later one (623a.9(c)) raises its alert again; the console treats an
alert as open when no action on it is as recent as the raise. `mismatch_raised_at` is that
time. Rows stored before this revision take it from the chain: the time of the call's
latest `dealer_call_mismatch` event, or the call's own time for a mismatch with none.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-29 12:00:00
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('dealer_calls') as batch:
        batch.add_column(sa.Column('mismatch_raised_at', sa.Float(), nullable=True))
    bind = op.get_bind()
    raised: dict[int, float] = {}
    # One pass over the mismatch events, oldest first, so the latest raise of a call wins.
    for payload, at in bind.execute(sa.text(
            "SELECT payload, created_at FROM events WHERE kind = 'dealer_call_mismatch' "
            "ORDER BY id")):
        try:
            call_id = json.loads(payload).get('call_id')
        except (ValueError, AttributeError):
            continue
        if isinstance(call_id, int):
            raised[call_id] = at
    update = sa.text('UPDATE dealer_calls SET mismatch_raised_at = :at WHERE id = :id')
    if raised:
        bind.execute(update, [{'id': i, 'at': at} for i, at in raised.items()])
    bind.execute(sa.text('UPDATE dealer_calls SET mismatch_raised_at = created_at '
                         'WHERE mismatch_raised_at IS NULL '
                         'AND (matches = :no OR original_matches = :no)'), {'no': False})


def downgrade() -> None:
    with op.batch_alter_table('dealer_calls') as batch:
        batch.drop_column('mismatch_raised_at')
