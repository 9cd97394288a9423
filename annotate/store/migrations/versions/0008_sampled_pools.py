"""Sampled pools: each pooled pair's stratum and inclusion probability, and the pooled pairs the
design did not draw.

- ``pair.stratum`` (int >= 1) and ``pair.inclusion`` (the first-order inclusion probability π,
  0 < π <= 1): NULL for every pair of a campaign made from an ordinary pool (all existing
  rows), set for every pair of a campaign made from a sampled pool. Only the sampled pairs are
  ``pair`` rows, so the queue, the claim, the counters and their indexes are unchanged.
- ``unsampled_pair``: the pooled-but-unsampled pairs of a sampled campaign (never queued, never
  judged), keyed by the topic's and document's ids as text (their documents need not be in the
  collection; a topic may have no sampled pair at all), with the pool file's order, best rank
  and runs, and their stratum and π. Export writes them as label -1 and into the prels.

Adding the CHECK constraints rebuilds ``pair`` on SQLite (batch mode, copied from the table as
revisions 0001-0007 left it, its partial indexes included); the rebuild runs with foreign keys
off and is checked with ``PRAGMA foreign_key_check`` before the commit (see
:func:`pooljudge.annotate.store.engine.migrate`). The downgrade refuses a database holding a sampled
campaign rather than dropping its probabilities.

Revision ID: 0008
Revises: 0007
Create Date: 2025-01-08 00:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels = None
depends_on = None

_OPEN = sa.text("open_slots > 0")
_STRATUM = "stratum >= 1"
_INCLUSION = "inclusion > 0 AND inclusion <= 1"


def _pair_0007() -> sa.Table:
    """The pair table as revisions 0001-0007 left it (the batch copy's source)."""
    meta = sa.MetaData()
    for parent in ("campaign", "topic", "document"):
        sa.Table(parent, meta, sa.Column("id", sa.Integer(), primary_key=True))
    return sa.Table(
        "pair", meta,
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("campaign_id", sa.Integer(), sa.ForeignKey("campaign.id"), nullable=False),
        sa.Column("topic_id", sa.Integer(), sa.ForeignKey("topic.id"), nullable=False),
        sa.Column("document_id", sa.Integer(), sa.ForeignKey("document.id"), nullable=False),
        sa.Column("pool_order", sa.Integer(), nullable=False),
        sa.Column("best_rank", sa.Integer(), nullable=False),
        sa.Column("runs", sa.Text(), nullable=False),
        sa.Column("queue_pos", sa.Integer(), nullable=False),
        sa.Column("open_slots", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("judged", sa.Integer(), nullable=False, server_default="0"),
        sa.UniqueConstraint("campaign_id", "topic_id", "document_id",
                            name="uq_pair_topic_document"),
        sa.Index("ix_pair_queue_open", "campaign_id", "queue_pos",
                 postgresql_where=_OPEN, sqlite_where=_OPEN),
        sa.Index("ix_pair_topic_queue_open", "topic_id", "queue_pos",
                 postgresql_where=_OPEN, sqlite_where=_OPEN),
        sa.Index("ix_pair_campaign_judged", "campaign_id", "judged"),
    )


def upgrade() -> None:
    with op.batch_alter_table("pair", copy_from=_pair_0007()) as batch:
        batch.add_column(sa.Column("stratum", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("inclusion", sa.Float(), nullable=True))
        batch.create_check_constraint("ck_pair_stratum", _STRATUM)
        batch.create_check_constraint("ck_pair_inclusion", _INCLUSION)
    op.create_table(
        "unsampled_pair",
        sa.Column("campaign_id", sa.Integer(), sa.ForeignKey("campaign.id"), nullable=False),
        sa.Column("topic", sa.Text(), nullable=False),
        sa.Column("doc", sa.Text(), nullable=False),
        sa.Column("pool_order", sa.Integer(), nullable=False),
        sa.Column("best_rank", sa.Integer(), nullable=False),
        sa.Column("runs", sa.Text(), nullable=False),
        sa.Column("stratum", sa.Integer(), nullable=False),
        sa.Column("inclusion", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("campaign_id", "topic", "doc"),
        sa.CheckConstraint(_STRATUM, name="ck_unsampled_pair_stratum"),
        sa.CheckConstraint(_INCLUSION, name="ck_unsampled_pair_inclusion"),
    )


def downgrade() -> None:
    bind = op.get_bind()
    sampled = bind.execute(sa.text(
        "SELECT COUNT(DISTINCT campaign_id) FROM pair WHERE inclusion IS NOT NULL")).scalar_one()
    if sampled:
        raise RuntimeError(f"cannot downgrade below 0008: {sampled} campaigns made from a "
                           "sampled pool have no place for their inclusion probabilities in "
                           "the older schema")
    op.drop_table("unsampled_pair")
    with op.batch_alter_table("pair") as batch:
        batch.drop_constraint("ck_pair_inclusion", type_="check")
        batch.drop_constraint("ck_pair_stratum", type_="check")
        batch.drop_column("inclusion")
        batch.drop_column("stratum")
