"""On PostgreSQL, compress the stored JSON documents with lz4 instead of pglz.

Each roll stores about 11 KB of JSON text (the table's state before it, the settlement, the
response) and each batch rewrites the states of its tables (7 KB each): PostgreSQL
compresses every such value over 2 KB when it writes it. With the default pglz that was a
third of the server's CPU per roll in `bench/bench_service.py` (0.37 ms per roll, 0.24 with
lz4, same load). Only the compression of values written from now on changes; stored values
stay as they are, readable either way. Needs PostgreSQL 14 built with lz4 (Debian's is);
without it, and on SQLite, nothing is done.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22 20:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None

DOCUMENTS = {
    'rolls': ('faces_json', 'final_faces_json', 'detail_json', 'settlement_json',
              'state_before_json', 'response_json', 'review_json'),
    'dc_tables': ('state_json',),
    'events': ('payload',),
}


def _lz4_available() -> bool:
    bind = op.get_bind()
    if bind.dialect.name != 'postgresql':
        return False
    return bool(bind.execute(sa.text(
        "SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' "
        "AND 'lz4' = ANY(enumvals)")).first())


def _set(method: str) -> None:
    if not _lz4_available():
        return
    for table, columns in DOCUMENTS.items():
        clauses = ', '.join(f'ALTER COLUMN {c} SET COMPRESSION {method}' for c in columns)
        op.execute(f'ALTER TABLE {table} {clauses}')


def upgrade() -> None:
    _set('lz4')


def downgrade() -> None:
    _set('default')
