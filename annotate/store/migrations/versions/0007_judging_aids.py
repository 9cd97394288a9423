"""Judging aids: undo and "I can't judge this" as judgment states, rationales, steerable
highlighting, acknowledged guidelines.

- ``judgment.status``: ``label`` (every existing row), ``withdrawn`` (an undo) or
  ``cannot_judge``. A withdrawal or a can't-judge answer is a new version of the same
  (pair, annotator, kind) sequence, so the latest version decides the pair's state for that
  annotator and history stays append-only. ``judgment.label`` is NULL exactly when the
  status is not ``label`` (so a reader that forgets the status fails loudly instead of
  counting a withdrawn label); ``judgment.rationale`` holds the required reason of a
  can't-judge answer, or the rationale given with a label.
- ``campaign.cannot_judge`` offers the can't-judge answer; ``campaign.rationale_labels`` is a
  JSON list of the labels whose choice needs a rationale (NULL: none);
  ``campaign.highlight_narrative`` also highlights the narrative's words.
- ``topic_term``: the admin's highlight terms per topic; ``annotator_term``: each annotator's
  own terms per topic; ``guidelines_ack``: who acknowledged which guidelines (by SHA-256).
- ``campaign.suggest_from`` names the automatic judge whose label annotators see as a
  suggestion (NULL: none, the default); ``judgment.suggested`` is the label suggested to the
  person when they judged (NULL: none was shown), so anchoring can be measured.

Making ``judgment.label`` nullable rebuilds the table on SQLite (batch mode); the rebuild runs
with foreign keys off and is checked with ``PRAGMA foreign_key_check`` before the commit (see
:func:`pooljudge.annotate.store.engine.migrate`). The downgrade refuses a database holding
withdrawals or
can't-judge answers rather than dropping them.

Revision ID: 0007
Revises: 0006
Create Date: 2025-01-07 00:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels = None
depends_on = None

_STATUS = "status IN ('label', 'withdrawn', 'cannot_judge')"
_LABEL_IFF = ("(status = 'label' AND label IS NOT NULL) "
              "OR (status <> 'label' AND label IS NULL)")
_REASON = "status <> 'cannot_judge' OR rationale IS NOT NULL"
_ANSWERED = "status = 'cannot_judge'"  # partial index: an annotator's can't-judge answers
# partial index: the rows of the time-left pace (people's first labels on the judging page)
_PACE = "kind = 'judgment' AND version = 1 AND status = 'label' AND source = 'human'"


def _judgment_0006() -> sa.Table:
    """The judgment table as revisions 0001-0006 left it (the batch copy's source)."""
    meta = sa.MetaData()
    sa.Table("pair", meta, sa.Column("id", sa.Integer(), primary_key=True))
    sa.Table("annotator", meta, sa.Column("id", sa.Integer(), primary_key=True))
    return sa.Table(
        "judgment", meta,
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("pair_id", sa.Integer(), sa.ForeignKey("pair.id"), nullable=False),
        sa.Column("annotator_id", sa.Integer(), sa.ForeignKey("annotator.id"), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("label", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=True),
        sa.Column("position", sa.Integer(), nullable=True),
        sa.Column("comment", sa.Text(), nullable=True),
        sa.UniqueConstraint("pair_id", "annotator_id", "kind", "version",
                            name="uq_judgment_pair_annotator_kind_version"),
        sa.CheckConstraint("kind IN ('judgment', 'adjudication')", name="ck_judgment_kind"),
        sa.CheckConstraint("source IN ('human', 'import', 'automatic')",
                           name="ck_judgment_source"),
        sa.CheckConstraint("version >= 1", name="ck_judgment_version"),
        sa.Index("ix_judgment_annotator_created", "annotator_id", "created_at"),
    )


def _fk(name: str, target: str) -> sa.Column:
    return sa.Column(name, sa.Integer(), sa.ForeignKey(f"{target}.id"), nullable=False)


def upgrade() -> None:
    with op.batch_alter_table("judgment", copy_from=_judgment_0006()) as batch:
        batch.add_column(sa.Column("status", sa.String(), nullable=False,
                                   server_default="label"))
        batch.add_column(sa.Column("rationale", sa.Text(), nullable=True))
        batch.add_column(sa.Column("suggested", sa.Integer(), nullable=True))
        batch.alter_column("label", existing_type=sa.Integer(), nullable=True)
        batch.create_check_constraint("ck_judgment_status", _STATUS)
        batch.create_check_constraint("ck_judgment_label_status", _LABEL_IFF)
        batch.create_check_constraint("ck_judgment_cannot_judge_reason", _REASON)
    op.create_index("ix_judgment_cannot_judge", "judgment", ["annotator_id"],
                    postgresql_where=sa.text(_ANSWERED), sqlite_where=sa.text(_ANSWERED))
    op.create_index("ix_judgment_pace", "judgment", ["annotator_id", "created_at"],
                    postgresql_where=sa.text(_PACE), sqlite_where=sa.text(_PACE))
    op.add_column("campaign", sa.Column("cannot_judge", sa.Boolean(), nullable=False,
                                        server_default=sa.false()))
    op.add_column("campaign", sa.Column("rationale_labels", sa.Text(), nullable=True))
    op.add_column("campaign", sa.Column("highlight_narrative", sa.Boolean(), nullable=False,
                                        server_default=sa.false()))
    op.add_column("campaign", sa.Column("suggest_from", sa.String(), nullable=True))
    op.create_table(
        "topic_term", _fk("topic_id", "topic"), sa.Column("term", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("topic_id", "term"),
    )
    op.create_table(
        "annotator_term", _fk("annotator_id", "annotator"), _fk("topic_id", "topic"),
        sa.Column("term", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("annotator_id", "topic_id", "term"),
    )
    op.create_table(
        "guidelines_ack", _fk("annotator_id", "annotator"),
        sa.Column("guidelines_sha256", sa.String(), nullable=False),
        sa.Column("acked_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("annotator_id", "guidelines_sha256"),
    )


def downgrade() -> None:
    states = op.get_bind().execute(
        sa.text("SELECT COUNT(*) FROM judgment WHERE status <> 'label'")).scalar_one()
    if states:
        raise RuntimeError(f"cannot downgrade below 0007: {states} withdrawals or can't-judge "
                           "answers have no place in the older schema")
    op.drop_index("ix_judgment_pace", table_name="judgment")
    op.drop_index("ix_judgment_cannot_judge", table_name="judgment")
    for table in ("guidelines_ack", "annotator_term", "topic_term"):
        op.drop_table(table)
    for column in ("suggest_from", "highlight_narrative", "rationale_labels", "cannot_judge"):
        op.drop_column("campaign", column)
    with op.batch_alter_table("judgment") as batch:
        batch.drop_constraint("ck_judgment_cannot_judge_reason", type_="check")
        batch.drop_constraint("ck_judgment_label_status", type_="check")
        batch.drop_constraint("ck_judgment_status", type_="check")
        batch.alter_column("label", existing_type=sa.Integer(), nullable=False)
        batch.drop_column("suggested")
        batch.drop_column("rationale")
        batch.drop_column("status")
