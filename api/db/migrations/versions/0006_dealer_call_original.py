"""Dealer calls keep the comparison made when the call came in.

`matches` and `detail` follow the roll's decided faces: a review that corrects or voids the
roll compares the call again (623a.9(c)). `original_matches` and `original_detail` keep
what the call was first compared with, the camera's read: the alert it raised stays
traceable, and the frame stays a hard one for labeling. Rows stored before this revision
were never recompared, so their current comparison is their original one.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('dealer_calls') as batch:
        batch.add_column(sa.Column('original_matches', sa.Boolean(), nullable=True))
        batch.add_column(sa.Column('original_detail', sa.Text(), nullable=True))
    op.execute('UPDATE dealer_calls SET original_matches = matches, original_detail = detail')


def downgrade() -> None:
    with op.batch_alter_table('dealer_calls') as batch:
        batch.drop_column('original_detail')
        batch.drop_column('original_matches')
