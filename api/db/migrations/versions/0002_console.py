"""Console: per-die labels of evidence frames and surveillance actions on alerts.

The labeler role needs no schema change: tokens.role is a plain string checked in code.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 15:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'die_labels',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('roll_id', sa.String(length=36), nullable=False),
        sa.Column('die', sa.Integer(), nullable=False),
        sa.Column('face', sa.Integer(), nullable=False),
        sa.Column('cocked', sa.Boolean(), nullable=False),
        sa.Column('stacked', sa.Boolean(), nullable=False),
        sa.Column('outside', sa.Boolean(), nullable=False),
        sa.Column('x0', sa.Float(), nullable=False),
        sa.Column('y0', sa.Float(), nullable=False),
        sa.Column('x1', sa.Float(), nullable=False),
        sa.Column('y1', sa.Float(), nullable=False),
        sa.Column('labeler', sa.String(length=100), nullable=False),
        sa.Column('created_at', sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(['roll_id'], ['rolls.roll_id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('roll_id', 'die', name='uq_die_labels_roll_die'),
    )
    op.create_index('ix_die_labels_roll_id', 'die_labels', ['roll_id'])
    op.create_table(
        'alert_actions',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('kind', sa.String(length=20), nullable=False),
        sa.Column('ref', sa.String(length=36), nullable=False),
        sa.Column('table_id', sa.String(length=36), nullable=False),
        sa.Column('action', sa.String(length=16), nullable=False),
        sa.Column('note', sa.Text(), nullable=False),
        sa.Column('by', sa.String(length=100), nullable=False),
        sa.Column('created_at', sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_alert_actions_ref', 'alert_actions', ['ref'])
    op.create_index('ix_alert_actions_table_id', 'alert_actions', ['table_id'])


def downgrade() -> None:
    op.drop_table('alert_actions')
    op.drop_table('die_labels')
