"""Review campaigns: CAL-ranked queues with a stopping rule and per-topic certificates.

- ``review`` (campaign_id, rule, target, alpha, seed): the campaign is a high-recall review;
  its stopping rule (``hypergeometric``, ``target`` or ``knee``), target recall and alpha.
- ``review_topic`` (topic_id, campaign_id, phase, ranked_count, due_count, batch, n_docs): a
  topic's phase (``rank``: the queue is the CAL ranking; ``sample``: a uniform random sample;
  ``certified``), the labelled documents its stored ranking was trained on, the count at which
  the next retrain is due (BMI's growing batches), the next batch size and the collection size.
- ``review_sample`` (pair_id, topic_id, draw): the pairs of a topic's random sample, in draw
  order.
- ``certificate`` (topic_id, ...): why a topic stopped; the latest labels it rests on
  (``judgments``: JSON list of judgment ids; ``digest``: SHA-256 of their ids and labels).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-05 00:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "review",
        sa.Column("campaign_id", sa.Integer(), sa.ForeignKey("campaign.id"), primary_key=True),
        sa.Column("rule", sa.String(), nullable=False),
        sa.Column("target", sa.Float(), nullable=False),
        sa.Column("alpha", sa.Float(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.CheckConstraint("rule IN ('hypergeometric', 'target', 'knee')",
                           name="ck_review_rule"),
        sa.CheckConstraint("target > 0 AND target < 1 AND alpha > 0 AND alpha < 1",
                           name="ck_review_level"),
    )
    op.create_table(
        "review_topic",
        sa.Column("topic_id", sa.Integer(), sa.ForeignKey("topic.id"), primary_key=True),
        sa.Column("campaign_id", sa.Integer(), sa.ForeignKey("campaign.id"), nullable=False),
        sa.Column("phase", sa.String(), nullable=False),
        sa.Column("ranked_count", sa.Integer(), nullable=False),
        sa.Column("due_count", sa.Integer(), nullable=False),
        sa.Column("batch", sa.Integer(), nullable=False),
        sa.Column("n_docs", sa.Integer(), nullable=False),
        sa.CheckConstraint("phase IN ('rank', 'sample', 'certified')",
                           name="ck_review_topic_phase"),
    )
    op.create_index("ix_review_topic_campaign_id", "review_topic", ["campaign_id"])
    op.create_table(
        "review_sample",
        sa.Column("pair_id", sa.Integer(), sa.ForeignKey("pair.id"), primary_key=True),
        sa.Column("topic_id", sa.Integer(), sa.ForeignKey("topic.id"), nullable=False),
        sa.Column("draw", sa.Integer(), nullable=False),
    )
    op.create_index("ix_review_sample_topic_id", "review_sample", ["topic_id"])
    op.create_table(
        "certificate",
        sa.Column("topic_id", sa.Integer(), sa.ForeignKey("topic.id"), primary_key=True),
        sa.Column("campaign_id", sa.Integer(), sa.ForeignKey("campaign.id"), nullable=False),
        sa.Column("rule", sa.String(), nullable=False),
        sa.Column("guarantee", sa.Boolean(), nullable=False),
        sa.Column("target", sa.Float(), nullable=False),
        sa.Column("alpha", sa.Float(), nullable=False),
        sa.Column("reviewed", sa.Integer(), nullable=False),
        sa.Column("relevant_found", sa.Integer(), nullable=False),
        sa.Column("sample_size", sa.Integer(), nullable=True),
        sa.Column("sample_relevant", sa.Integer(), nullable=True),
        sa.Column("remaining", sa.Float(), nullable=True),
        sa.Column("remaining_low", sa.Integer(), nullable=True),
        sa.Column("remaining_high", sa.Integer(), nullable=True),
        sa.Column("p_value", sa.Float(), nullable=True),
        sa.Column("exhausted", sa.Boolean(), nullable=False),
        sa.Column("n_docs", sa.Integer(), nullable=False),
        sa.Column("judgments", sa.Text(), nullable=False),
        sa.Column("judgment_count", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_certificate_campaign_id", "certificate", ["campaign_id"])


def downgrade() -> None:
    reviews = op.get_bind().execute(sa.text("SELECT COUNT(*) FROM review")).scalar_one()
    if reviews:
        raise RuntimeError(f"cannot downgrade below 0012: {reviews} review campaigns (their "
                           "phases, samples and certificates) would be lost; delete them first")
    op.drop_index("ix_certificate_campaign_id", table_name="certificate")
    op.drop_table("certificate")
    op.drop_index("ix_review_sample_topic_id", table_name="review_sample")
    op.drop_table("review_sample")
    op.drop_index("ix_review_topic_campaign_id", table_name="review_topic")
    op.drop_table("review_topic")
    op.drop_table("review")
