"""Automatic judges: the provenance of each LLM label, and the pairs a judge failed to label.

``auto_judgment`` is keyed by the judgment row it describes (model, SHA-256 of the template and
of the filled prompt, raw reply, reason, tokens in/out, latency, attempts): a separate table,
not columns of ``judgment``, because only automatic rows have these values and the hot judgment
table keeps its narrow rows. ``auto_failure`` keeps one row per (pair, judge) whose last try
gave no label; it is deleted when the pair is labelled. Both start empty.

Revision ID: 0005
Revises: 0004
Create Date: 2025-01-05 00:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "auto_judgment",
        sa.Column("judgment_id", sa.Integer(), sa.ForeignKey("judgment.id"), nullable=False),
        sa.Column("model", sa.String(), nullable=False),
        sa.Column("template_sha256", sa.String(), nullable=False),
        sa.Column("prompt_sha256", sa.String(), nullable=False),
        sa.Column("reply", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("tokens_in", sa.Integer(), nullable=False),
        sa.Column("tokens_out", sa.Integer(), nullable=False),
        sa.Column("latency", sa.Float(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("judgment_id"),
        sa.CheckConstraint("attempts >= 1", name="ck_auto_judgment_attempts"),
    )
    op.create_table(
        "auto_failure",
        sa.Column("pair_id", sa.Integer(), sa.ForeignKey("pair.id"), nullable=False),
        sa.Column("annotator_id", sa.Integer(), sa.ForeignKey("annotator.id"), nullable=False),
        sa.Column("model", sa.String(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("reply", sa.Text(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("failed_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("pair_id", "annotator_id"),
    )
    op.create_index("ix_auto_failure_annotator_id", "auto_failure", ["annotator_id"])


def downgrade() -> None:
    op.drop_index("ix_auto_failure_annotator_id", table_name="auto_failure")
    op.drop_table("auto_failure")
    op.drop_table("auto_judgment")
