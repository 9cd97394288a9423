"""Keyboard: a campaign's own key map for the judging page.

``campaign.keymap`` holds the campaign's bindings as a JSON object (action -> keys, see
:mod:`pooljudge.annotate.keymap`); NULL, as for every existing campaign, means the default keys.

Revision ID: 0006
Revises: 0005
Create Date: 2025-01-06 00:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("campaign", sa.Column("keymap", sa.Text(), nullable=True))


def downgrade() -> None:
    # A plain ALTER TABLE ... DROP COLUMN (SQLite >= 3.35): a batch copy of ``campaign`` would
    # drop the table the other tables' foreign keys point at, which SQLite refuses.
    op.drop_column("campaign", "keymap")
