"""Nugget assignment gets an overlap setting per campaign (issue #33): at most K people assign
each answer, as pairs have K judges.

A new table ``nugget_setting`` (``campaign_id`` primary key, ``overlap`` >= 1); a campaign
without a row keeps the behaviour of revision 0013, every person assigns every answer. The
downgrade refuses a database where a campaign has the setting rather than drop it.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-06 02:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nugget_setting",
        sa.Column("campaign_id", sa.Integer(), sa.ForeignKey("campaign.id"), primary_key=True,
                  autoincrement=False),
        sa.Column("overlap", sa.Integer(), nullable=False),
        sa.CheckConstraint("overlap >= 1", name="ck_nugget_setting_overlap"),
    )


def downgrade() -> None:
    held = op.get_bind().execute(sa.text("SELECT COUNT(*) FROM nugget_setting")).scalar()
    if held:
        raise RuntimeError(f"downgrade to 0014 refused: {held} campaigns have a nugget "
                           "assignment overlap (pooljudge nuggets overlap --campaign C all "
                           "removes it)")
    op.drop_table("nugget_setting")
