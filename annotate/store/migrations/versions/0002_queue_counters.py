"""Queue counters: per-pair open slots and judged counts, per-topic slots, partial indexes.

The claim query reads ``open_slots`` through partial indexes ``WHERE open_slots > 0`` instead
of counting judgments per pair. Existing campaigns are backfilled from their judgments (by
participants, kind ``judgment``), live claims and topic assignments.

Revision ID: 0002
Revises: 0001
Create Date: 2025-01-02 00:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels = None
depends_on = None

_OPEN = sa.text("open_slots > 0")

_BACKFILL_PAIRS = """
UPDATE pair SET
  judged = (SELECT COUNT(DISTINCT j.annotator_id) FROM judgment j
            JOIN annotator a ON a.id = j.annotator_id
            WHERE j.pair_id = pair.id AND j.kind = 'judgment' AND a.human),
  open_slots = (SELECT c.overlap FROM campaign c WHERE c.id = pair.campaign_id)
"""
_CLAMP_PAIRS = """
UPDATE pair SET open_slots = MAX_(0, open_slots - judged
  - (SELECT COUNT(*) FROM claim WHERE claim.pair_id = pair.id))
"""
_BACKFILL_TOPICS = """
UPDATE topic SET
  queue_pos = COALESCE((SELECT MIN(p.queue_pos) FROM pair p WHERE p.topic_id = topic.id), 0),
  open_slots = MAX_(0, (SELECT c.overlap FROM campaign c WHERE c.id = topic.campaign_id)
    - (SELECT COUNT(*) FROM topic_assignment t WHERE t.topic_id = topic.id))
"""


def upgrade() -> None:
    greatest = "GREATEST" if op.get_bind().dialect.name == "postgresql" else "MAX"
    with op.batch_alter_table("pair") as batch:
        batch.add_column(sa.Column("open_slots", sa.Integer(), nullable=False,
                                   server_default="0"))
        batch.add_column(sa.Column("judged", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("topic") as batch:
        batch.add_column(sa.Column("queue_pos", sa.Integer(), nullable=False,
                                   server_default="0"))
        batch.add_column(sa.Column("open_slots", sa.Integer(), nullable=False,
                                   server_default="0"))
    op.execute(_BACKFILL_PAIRS)
    op.execute(_CLAMP_PAIRS.replace("MAX_", greatest))
    op.execute(_BACKFILL_TOPICS.replace("MAX_", greatest))
    op.create_index("ix_pair_queue_open", "pair", ["campaign_id", "queue_pos"],
                    postgresql_where=_OPEN, sqlite_where=_OPEN)
    op.create_index("ix_pair_topic_queue_open", "pair", ["topic_id", "queue_pos"],
                    postgresql_where=_OPEN, sqlite_where=_OPEN)
    op.create_index("ix_topic_queue_open", "topic", ["campaign_id", "queue_pos"],
                    postgresql_where=_OPEN, sqlite_where=_OPEN)


def downgrade() -> None:
    op.drop_index("ix_topic_queue_open", table_name="topic")
    op.drop_index("ix_pair_topic_queue_open", table_name="pair")
    op.drop_index("ix_pair_queue_open", table_name="pair")
    with op.batch_alter_table("topic") as batch:
        batch.drop_column("open_slots")
        batch.drop_column("queue_pos")
    with op.batch_alter_table("pair") as batch:
        batch.drop_column("judged")
        batch.drop_column("open_slots")
