"""Nugget assignment gets an overlap setting per campaign (issue #33): at most K people assign
each answer, as pairs have K judges; and a person's label keeps the model pre-assignment that
was shown with it (the anchoring control of ``calibrate suggest``).

A new table ``nugget_setting`` (``campaign_id`` primary key, ``overlap`` >= 1); a campaign
without a row keeps the behaviour of revision 0013, every person assigns every answer. A new
nullable column ``nugget_assignment.suggested``: the label suggested on screen (NULL: none).
The downgrade refuses a database where a campaign has the setting or a label was made with a
suggestion, rather than drop them.

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
    op.add_column("nugget_assignment", sa.Column("suggested", sa.String(), nullable=True))


def downgrade() -> None:
    held = op.get_bind().execute(sa.text("SELECT COUNT(*) FROM nugget_setting")).scalar()
    if held:
        raise RuntimeError(f"downgrade to 0014 refused: {held} campaigns have a nugget "
                           "assignment overlap (pooljudge nuggets overlap --campaign C all "
                           "removes it)")
    shown = op.get_bind().execute(sa.text(
        "SELECT COUNT(*) FROM nugget_assignment WHERE suggested IS NOT NULL")).scalar()
    if shown:
        raise RuntimeError(f"downgrade to 0014 refused: {shown} nugget assignments were made "
                           "with a model's pre-assignment shown")
    op.drop_table("nugget_setting")
    # a plain column: SQLite (3.35+) and PostgreSQL drop it in place
    op.execute("ALTER TABLE nugget_assignment DROP COLUMN suggested")
