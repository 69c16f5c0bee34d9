"""Dice sets per table, and the time each roll was thrown (the fairness report per set).

`dice_sets` holds each set of dice put in service on a table (label, who, when) until it is
retired; the partial unique index allows one set in service per table. `rolls.captured_at`
is when the dice were thrown (the edge's clock, clamped to the arrival): a roll belongs to
the set in service at that time, found by a range join when a report is asked for, so the
intake does no extra read. Rolls stored before this revision keep NULL and count by
`received_at`.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None

_IN_SERVICE = sa.text('retired_at IS NULL')


def upgrade() -> None:
    op.create_table(
        'dice_sets',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('table_id', sa.String(length=36), nullable=False),
        sa.Column('label', sa.String(length=200), nullable=False),
        sa.Column('put_in_service_at', sa.Float(), nullable=False),
        sa.Column('put_in_service_by', sa.String(length=100), nullable=False),
        sa.Column('retired_at', sa.Float(), nullable=True),
        sa.Column('retired_by', sa.String(length=100), nullable=True),
        sa.ForeignKeyConstraint(['table_id'], ['dc_tables.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_dice_sets_table_time', 'dice_sets', ['table_id', 'put_in_service_at'])
    op.create_index('uq_dice_sets_in_service', 'dice_sets', ['table_id'], unique=True,
                    sqlite_where=_IN_SERVICE, postgresql_where=_IN_SERVICE)
    with op.batch_alter_table('rolls') as batch:
        batch.add_column(sa.Column('captured_at', sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('rolls') as batch:
        batch.drop_column('captured_at')
    op.drop_index('uq_dice_sets_in_service', table_name='dice_sets')
    op.drop_index('ix_dice_sets_table_time', table_name='dice_sets')
    op.drop_table('dice_sets')
