"""Initial schema: campaigns, topics, documents, pairs, annotators, claims, skips, judgments.

Revision ID: 0001
Revises:
Create Date: 2025-01-01 00:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels = None
depends_on = None


def _id() -> sa.Column:
    return sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True)


def _fk(name: str, target: str) -> sa.Column:
    return sa.Column(name, sa.Integer(), sa.ForeignKey(f"{target}.id"), nullable=False)


def _text(name: str, *, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.Text(), nullable=nullable)


def _str(name: str, *, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.String(), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "campaign", _id(), _str("name"), _text("scale"),
        sa.Column("overlap", sa.Integer(), nullable=False),
        _str("judging_order"), _str("assign_mode"), _text("guidelines"),
        sa.Column("show_others_labels", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("name"),
        sa.CheckConstraint("overlap >= 1", name="ck_campaign_overlap"),
        sa.CheckConstraint("assign_mode IN ('pair', 'topic')", name="ck_campaign_assign_mode"),
    )
    op.create_table(
        "topic", _id(), _fk("campaign_id", "campaign"), _str("key"),
        _text("title"), _text("description"), _text("narrative"),
        sa.UniqueConstraint("campaign_id", "key", name="uq_topic_campaign_key"),
    )
    op.create_table(
        "document", _id(), _fk("campaign_id", "campaign"), _str("key"), _text("title"),
        _text("text"),
        sa.UniqueConstraint("campaign_id", "key", name="uq_document_campaign_key"),
    )
    op.create_table(
        "pair", _id(), _fk("campaign_id", "campaign"), _fk("topic_id", "topic"),
        _fk("document_id", "document"),
        sa.Column("pool_order", sa.Integer(), nullable=False),
        sa.Column("best_rank", sa.Integer(), nullable=False),
        _text("runs"),
        sa.Column("queue_pos", sa.Integer(), nullable=False),
        sa.UniqueConstraint("campaign_id", "topic_id", "document_id",
                            name="uq_pair_topic_document"),
    )
    op.create_table(
        "annotator", _id(), _fk("campaign_id", "campaign"), _str("name"), _str("role"),
        sa.Column("human", sa.Boolean(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        _str("token_hash", nullable=True),
        sa.Column("shown", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("token_hash"),
        sa.UniqueConstraint("campaign_id", "name", name="uq_annotator_campaign_name"),
        sa.CheckConstraint("role IN ('annotator', 'adjudicator', 'admin')",
                           name="ck_annotator_role"),
    )
    op.create_table(
        "claim", _id(), _fk("pair_id", "pair"), _fk("annotator_id", "annotator"),
        sa.Column("claimed_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.UniqueConstraint("annotator_id"),
    )
    op.create_index("ix_claim_expires_at", "claim", ["expires_at"])
    op.create_table(
        "skip", _fk("annotator_id", "annotator"), _fk("pair_id", "pair"),
        sa.Column("skipped_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("annotator_id", "pair_id"),
    )
    op.create_table(
        "topic_assignment", _fk("topic_id", "topic"), _fk("annotator_id", "annotator"),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("topic_id", "annotator_id"),
    )
    op.create_table(
        "judgment", _id(), _fk("pair_id", "pair"), _fk("annotator_id", "annotator"),
        _str("kind"), sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("label", sa.Integer(), nullable=False), _str("source"),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=True),
        sa.Column("position", sa.Integer(), nullable=True),
        _text("comment", nullable=True),
        sa.UniqueConstraint("pair_id", "annotator_id", "kind", "version",
                            name="uq_judgment_pair_annotator_kind_version"),
        sa.CheckConstraint("kind IN ('judgment', 'adjudication')", name="ck_judgment_kind"),
        sa.CheckConstraint("source IN ('human', 'import', 'automatic')",
                           name="ck_judgment_source"),
        sa.CheckConstraint("version >= 1", name="ck_judgment_version"),
    )
    op.create_index("ix_judgment_annotator_created", "judgment", ["annotator_id", "created_at"])


def downgrade() -> None:
    for table in ("judgment", "topic_assignment", "skip", "claim", "annotator", "pair",
                  "document", "topic", "campaign"):
        op.drop_table(table)
