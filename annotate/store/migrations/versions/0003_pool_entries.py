"""Adaptive judging orders: each pooled pair's rank in every run, and the campaign's policy state.

``pool_entry`` holds, per pair, the runs that retrieved it and the 1-based rank in each (what
an adaptive policy of :mod:`pooling` learns from). ``campaign.order_seed`` seeds the policy;
``campaign.queue_mark`` is the highest judgment id the queue positions of an adaptive campaign
reflect (0: never re-ranked). Existing campaigns have no run ranks and keep their static order.

Revision ID: 0003
Revises: 0002
Create Date: 2025-01-03 00:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pool_entry",
        sa.Column("pair_id", sa.Integer(), sa.ForeignKey("pair.id"), nullable=False),
        sa.Column("run", sa.Text(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("pair_id", "run"),
        sa.CheckConstraint("rank >= 1", name="ck_pool_entry_rank"),
    )
    with op.batch_alter_table("campaign") as batch:
        batch.add_column(sa.Column("order_seed", sa.Integer(), nullable=False,
                                   server_default="0"))
        batch.add_column(sa.Column("queue_mark", sa.Integer(), nullable=False,
                                   server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("campaign") as batch:
        batch.drop_column("queue_mark")
        batch.drop_column("order_seed")
    op.drop_table("pool_entry")
