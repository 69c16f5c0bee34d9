"""Initial schema: tables, devices, tokens, rolls, gaps, dealer calls, the audit chain.

The chain head row starts at the genesis hash, so every later append only updates it.

Revision ID: 0001
Revises:
Create Date: 2026-11-22 13:18:25.325047
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    chain_head = op.create_table('chain_head',
    sa.Column('id', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('last_id', sa.BigInteger(), nullable=False),
    sa.Column('last_hash', sa.String(length=64), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('dc_tables',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('game', sa.String(length=32), nullable=False),
    sa.Column('state_json', sa.Text(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('round_no', sa.Integer(), nullable=False),
    sa.Column('betting_open', sa.Boolean(), nullable=False),
    sa.Column('arrivals', sa.Integer(), nullable=False),
    sa.Column('held_rolls', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.Float(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('events',
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('table_id', sa.String(length=36), nullable=True),
    sa.Column('kind', sa.String(length=32), nullable=False),
    sa.Column('payload', sa.Text(), nullable=False),
    sa.Column('created_at', sa.Float(), nullable=False),
    sa.Column('prev_hash', sa.String(length=64), nullable=False),
    sa.Column('hash', sa.String(length=64), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('events', schema=None) as batch_op:
        batch_op.create_index('ix_events_table_id', ['table_id', 'id'], unique=False)

    op.create_table('tokens',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('role', sa.String(length=20), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('revoked', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.Float(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('token_hash')
    )
    op.create_table('devices',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('table_id', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('salt', sa.String(length=64), nullable=False),
    sa.Column('secret_hash', sa.String(length=64), nullable=False),
    sa.Column('last_seq', sa.BigInteger(), nullable=True),
    sa.Column('revoked', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['table_id'], ['dc_tables.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('devices', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_devices_table_id'), ['table_id'], unique=False)

    op.create_table('rolls',
    sa.Column('roll_id', sa.String(length=36), nullable=False),
    sa.Column('table_id', sa.String(length=36), nullable=False),
    sa.Column('device_id', sa.String(length=36), nullable=False),
    sa.Column('seq', sa.BigInteger(), nullable=False),
    sa.Column('arrival', sa.Integer(), nullable=False),
    sa.Column('round_no', sa.Integer(), nullable=False),
    sa.Column('body_hash', sa.String(length=64), nullable=False),
    sa.Column('verdict', sa.String(length=16), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('faces_json', sa.Text(), nullable=False),
    sa.Column('final_faces_json', sa.Text(), nullable=True),
    sa.Column('detail_json', sa.Text(), nullable=False),
    sa.Column('seq_status', sa.String(length=16), nullable=False),
    sa.Column('settlement_json', sa.Text(), nullable=True),
    sa.Column('response_json', sa.Text(), nullable=False),
    sa.Column('review_json', sa.Text(), nullable=True),
    sa.Column('received_at', sa.Float(), nullable=False),
    sa.Column('settled_at', sa.Float(), nullable=True),
    sa.ForeignKeyConstraint(['device_id'], ['devices.id'], ),
    sa.ForeignKeyConstraint(['table_id'], ['dc_tables.id'], ),
    sa.PrimaryKeyConstraint('roll_id')
    )
    with op.batch_alter_table('rolls', schema=None) as batch_op:
        batch_op.create_index('ix_rolls_device_seq', ['device_id', 'seq'], unique=False)
        batch_op.create_index('ix_rolls_table_arrival', ['table_id', 'arrival'], unique=False)
        batch_op.create_index('ix_rolls_table_status', ['table_id', 'status'], unique=False)

    op.create_table('dealer_calls',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('roll_id', sa.String(length=36), nullable=False),
    sa.Column('table_id', sa.String(length=36), nullable=False),
    sa.Column('call_json', sa.Text(), nullable=False),
    sa.Column('matches', sa.Boolean(), nullable=False),
    sa.Column('detail', sa.Text(), nullable=False),
    sa.Column('caller', sa.String(length=100), nullable=False),
    sa.Column('created_at', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['roll_id'], ['rolls.roll_id'], ),
    sa.ForeignKeyConstraint(['table_id'], ['dc_tables.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('dealer_calls', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_dealer_calls_roll_id'), ['roll_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_dealer_calls_table_id'), ['table_id'], unique=False)

    op.create_table('sequence_gaps',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('table_id', sa.String(length=36), nullable=False),
    sa.Column('device_id', sa.String(length=36), nullable=False),
    sa.Column('roll_id', sa.String(length=36), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('expected', sa.BigInteger(), nullable=False),
    sa.Column('received', sa.BigInteger(), nullable=False),
    sa.Column('created_at', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['device_id'], ['devices.id'], ),
    sa.ForeignKeyConstraint(['roll_id'], ['rolls.roll_id'], ),
    sa.ForeignKeyConstraint(['table_id'], ['dc_tables.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('sequence_gaps', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_sequence_gaps_table_id'), ['table_id'], unique=False)

    _genesis(chain_head)


def _genesis(chain_head) -> None:
    op.bulk_insert(chain_head, [{"id": 1, "last_id": 0, "last_hash": "0" * 64}])


def downgrade() -> None:
    with op.batch_alter_table('sequence_gaps', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_sequence_gaps_table_id'))

    op.drop_table('sequence_gaps')
    with op.batch_alter_table('dealer_calls', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_dealer_calls_table_id'))
        batch_op.drop_index(batch_op.f('ix_dealer_calls_roll_id'))

    op.drop_table('dealer_calls')
    with op.batch_alter_table('rolls', schema=None) as batch_op:
        batch_op.drop_index('ix_rolls_table_status')
        batch_op.drop_index('ix_rolls_table_arrival')
        batch_op.drop_index('ix_rolls_device_seq')

    op.drop_table('rolls')
    with op.batch_alter_table('devices', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_devices_table_id'))

    op.drop_table('devices')
    op.drop_table('tokens')
    with op.batch_alter_table('events', schema=None) as batch_op:
        batch_op.drop_index('ix_events_table_id')

    op.drop_table('events')
    op.drop_table('dc_tables')
    op.drop_table('chain_head')
