"""Rolls keep the engine state they settled against, so a settled roll can be corrected.

`state_before_json` is the table's state just before the roll settled; `settled_version` is
the table's version its settlement produced (a later wager, roll or "no more bets" bumps it).
Both stay NULL on rolls settled before this revision: those cannot be corrected.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 17:20:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('rolls') as batch:
        batch.add_column(sa.Column('state_before_json', sa.Text(), nullable=True))
        batch.add_column(sa.Column('settled_version', sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('rolls') as batch:
        batch.drop_column('settled_version')
        batch.drop_column('state_before_json')
