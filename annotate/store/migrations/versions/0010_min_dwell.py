"""The judging pane's dwell: ``campaign.min_dwell_ms``, how long a pair is on screen before a
label key acts (a held or doubled key never labels a pair nobody read). Existing campaigns get
the default, 300 ms.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05 00:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("campaign", sa.Column("min_dwell_ms", sa.Integer(), nullable=False,
                                        server_default="300"))


def downgrade() -> None:
    # A plain ALTER TABLE ... DROP COLUMN (SQLite >= 3.35), as in 0006: a batch copy of
    # ``campaign`` would drop the table the other tables' foreign keys point at.
    op.drop_column("campaign", "min_dwell_ms")
