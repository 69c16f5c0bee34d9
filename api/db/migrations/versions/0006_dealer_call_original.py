"""Dealer calls keep the comparison made when the call came in.

`matches` and `detail` follow the roll's decided faces: a review that corrects or voids the
roll compares the call again (623a.9(c)). `original_matches` and `original_detail` keep
what the call was first compared with, the camera's read: the alert it raised stays
traceable, and the frame stays a hard one for labeling. Rows take it from the call's first
`dealer_call` event (its `matches` and `detail`), which `audit verify` holds them to: for
rows stored before this revision, never recompared, that is their current comparison; after
a downgrade below it, a call a review recompared since gets its first one back, not the
review's. A row with no such event keeps its current comparison.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24 10:00:00
"""

from __future__ import annotations

import json

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
    bind = op.get_bind()
    first: dict[int, dict] = {}
    for (payload,) in bind.execute(sa.text(
            "SELECT payload FROM events WHERE kind = 'dealer_call' ORDER BY id")):
        try:
            event = json.loads(payload)
            call_id = event.get('call_id')
        except (ValueError, AttributeError):
            continue
        if isinstance(call_id, int) and call_id not in first:
            first[call_id] = {'id': call_id, 'matches': event.get('matches'),
                              'detail': event.get('detail')}
    if first:
        bind.execute(sa.text('UPDATE dealer_calls SET original_matches = :matches, '
                             'original_detail = :detail WHERE id = :id'), list(first.values()))


def downgrade() -> None:
    with op.batch_alter_table('dealer_calls') as batch:
        batch.drop_column('original_detail')
        batch.drop_column('original_matches')
