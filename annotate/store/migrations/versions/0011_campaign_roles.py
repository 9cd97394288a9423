"""Campaign roles and login sessions: rights per campaign, and logins that survive a reload.

- ``campaign_role`` (annotator_id, campaign_id, role, created_at): the person who logs in as
  ``annotator_id`` (an annotator row of their own campaign) also holds ``role`` (``admin`` or
  ``adjudicator``) in ``campaign_id``. Unique per (annotator_id, campaign_id). Their own
  campaign's role stays ``annotator.role``; a grant never names their own campaign. An admin who
  creates a campaign in the browser is granted ``admin`` of it.
- ``login_session`` (id_hash, annotator_id, created_at, expires_at): a browser's login, made
  from a login link; the cookie holds a random id, the store only its SHA-256. It ends at
  ``expires_at``, at *Log out* (row deleted), and when the person is removed (rows deleted).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05 00:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "campaign_role",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("annotator_id", sa.Integer(), sa.ForeignKey("annotator.id"), nullable=False),
        sa.Column("campaign_id", sa.Integer(), sa.ForeignKey("campaign.id"), nullable=False),
        sa.Column("role", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("annotator_id", "campaign_id", name="uq_campaign_role"),
        sa.CheckConstraint("role IN ('adjudicator', 'admin')", name="ck_campaign_role_role"),
    )
    op.create_index("ix_campaign_role_campaign_id", "campaign_role", ["campaign_id"])
    op.create_table(
        "login_session",
        sa.Column("id_hash", sa.String(), primary_key=True),
        sa.Column("annotator_id", sa.Integer(), sa.ForeignKey("annotator.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_login_session_annotator_id", "login_session", ["annotator_id"])


def downgrade() -> None:
    op.drop_index("ix_login_session_annotator_id", table_name="login_session")
    op.drop_table("login_session")
    op.drop_index("ix_campaign_role_campaign_id", table_name="campaign_role")
    op.drop_table("campaign_role")
