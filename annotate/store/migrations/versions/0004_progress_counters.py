"""Progress counters: pairs judged per (annotator, topic), and an index for over-judged pairs.

``annotator_topic.judged`` is the number of distinct pairs of the topic the annotator has judged
(kind ``judgment``, any version); it is kept in the same transaction as every judgment insert,
so progress pages read a few counter rows instead of aggregating the judgment table. Topic
progress (participants' judgments, at most K per pair) is the sum over the topic's participants
minus the pairs judged by more than K of them, found through ``ix_pair_campaign_judged``.
Existing judgments are counted on upgrade.

Revision ID: 0004
Revises: 0003
Create Date: 2025-01-04 00:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels = None
depends_on = None

_BACKFILL = """
INSERT INTO annotator_topic (annotator_id, topic_id, judged)
SELECT j.annotator_id, p.topic_id, COUNT(DISTINCT j.pair_id)
FROM judgment j JOIN pair p ON p.id = j.pair_id
WHERE j.kind = 'judgment'
GROUP BY j.annotator_id, p.topic_id
"""


def upgrade() -> None:
    op.create_table(
        "annotator_topic",
        sa.Column("annotator_id", sa.Integer(), sa.ForeignKey("annotator.id"), nullable=False),
        sa.Column("topic_id", sa.Integer(), sa.ForeignKey("topic.id"), nullable=False),
        sa.Column("judged", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("annotator_id", "topic_id"),
    )
    op.create_index("ix_annotator_topic_topic_id", "annotator_topic", ["topic_id"])
    op.create_index("ix_pair_campaign_judged", "pair", ["campaign_id", "judged"])
    op.execute(_BACKFILL)


def downgrade() -> None:
    op.drop_index("ix_pair_campaign_judged", table_name="pair")
    op.drop_index("ix_annotator_topic_topic_id", table_name="annotator_topic")
    op.drop_table("annotator_topic")
