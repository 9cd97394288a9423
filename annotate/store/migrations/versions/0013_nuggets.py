"""Nugget banks, their history, RAG answers and nugget assignments (issue #33).

New tables only (``nugget``, ``nugget_event``, ``rag_answer``, ``answer_sentence``,
``nugget_assignment``); their invariants are written in
:mod:`pooljudge.annotate.store.nugget_models`. The downgrade refuses to drop tables that hold
rows.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-05 00:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels = None
depends_on = None

_TABLES = ("nugget_assignment", "answer_sentence", "rag_answer", "nugget_event", "nugget")


def _in(column: str, values: tuple[str, ...], name: str) -> sa.CheckConstraint:
    listed = ", ".join(f"'{value}'" for value in values)
    return sa.CheckConstraint(f"{column} IN ({listed})", name=name)


def _time(name: str) -> sa.Column:
    return sa.Column(name, sa.DateTime(), nullable=False)


def upgrade() -> None:
    op.create_table(
        "nugget",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("campaign_id", sa.Integer(), sa.ForeignKey("campaign.id"), nullable=False),
        sa.Column("topic_id", sa.Integer(), sa.ForeignKey("topic.id"), nullable=False),
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("importance", sa.String(), nullable=False),
        sa.Column("sources", sa.Text(), nullable=False),
        sa.Column("author_kind", sa.String(), nullable=False),
        sa.Column("author", sa.Text(), nullable=False),
        sa.Column("prompt_sha256", sa.String(), nullable=True),
        sa.Column("state", sa.String(), nullable=False),
        sa.Column("merged_into", sa.Integer(), sa.ForeignKey("nugget.id"), nullable=True),
        _time("created_at"),
        sa.UniqueConstraint("campaign_id", "key", name="uq_nugget_campaign_key"),
        _in("importance", ("vital", "okay"), "ck_nugget_importance"),
        _in("author_kind", ("person", "model"), "ck_nugget_author_kind"),
        _in("state", ("active", "merged", "deleted"), "ck_nugget_state"),
        sa.CheckConstraint("(state = 'merged' AND merged_into IS NOT NULL) OR "
                           "(state <> 'merged' AND merged_into IS NULL)",
                           name="ck_nugget_merged_into"),
        sa.CheckConstraint("author_kind = 'model' OR prompt_sha256 IS NULL",
                           name="ck_nugget_prompt"),
    )
    op.create_index("ix_nugget_topic_id", "nugget", ["topic_id"])
    op.create_table(
        "nugget_event",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("nugget_id", sa.Integer(), sa.ForeignKey("nugget.id"), nullable=False),
        sa.Column("action", sa.String(), nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), sa.ForeignKey("annotator.id"), nullable=True),
        _time("at"),
        sa.Column("before_json", sa.Text(), nullable=True),
        sa.Column("after_json", sa.Text(), nullable=False),
        _in("action", ("created", "edited", "merged", "deleted"), "ck_nugget_event_action"),
        sa.CheckConstraint("(action = 'created' AND before_json IS NULL) OR "
                           "(action <> 'created' AND before_json IS NOT NULL)",
                           name="ck_nugget_event_before"),
    )
    op.create_index("ix_nugget_event_nugget_id", "nugget_event", ["nugget_id"])
    op.create_table(
        "rag_answer",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("campaign_id", sa.Integer(), sa.ForeignKey("campaign.id"), nullable=False),
        sa.Column("topic_id", sa.Integer(), sa.ForeignKey("topic.id"), nullable=False),
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("run", sa.Text(), nullable=False),
        sa.Column("refs", sa.Text(), nullable=False),
        _time("created_at"),
        sa.UniqueConstraint("campaign_id", "key", name="uq_rag_answer_campaign_key"),
    )
    op.create_index("ix_rag_answer_topic_id", "rag_answer", ["topic_id"])
    op.create_table(
        "answer_sentence",
        sa.Column("answer_id", sa.Integer(), sa.ForeignKey("rag_answer.id"), primary_key=True),
        sa.Column("position", sa.Integer(), primary_key=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("citations", sa.Text(), nullable=False),
        sa.CheckConstraint("position >= 0", name="ck_answer_sentence_position"),
    )
    op.create_table(
        "nugget_assignment",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("answer_id", sa.Integer(), sa.ForeignKey("rag_answer.id"), nullable=False),
        sa.Column("nugget_id", sa.Integer(), sa.ForeignKey("nugget.id"), nullable=False),
        sa.Column("annotator_id", sa.Integer(), sa.ForeignKey("annotator.id"), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(), nullable=False),
        _time("created_at"),
        sa.Column("seconds", sa.Float(), nullable=True),
        sa.UniqueConstraint("answer_id", "nugget_id", "annotator_id", "version",
                            name="uq_nugget_assignment_cell_version"),
        _in("label", ("not_support", "partial_support", "support"),
            "ck_nugget_assignment_label"),
        sa.CheckConstraint("version >= 1", name="ck_nugget_assignment_version"),
        sa.CheckConstraint("seconds IS NULL OR seconds >= 0",
                           name="ck_nugget_assignment_seconds"),
    )
    op.create_index("ix_nugget_assignment_nugget_id", "nugget_assignment", ["nugget_id"])
    op.create_index("ix_nugget_assignment_annotator_id", "nugget_assignment", ["annotator_id"])


def downgrade() -> None:
    connection = op.get_bind()
    for table in _TABLES:
        rows = connection.execute(sa.text(f"SELECT COUNT(*) FROM {table}")).scalar_one()
        if rows:
            raise RuntimeError(f"cannot downgrade below 0013: table {table} holds {rows} rows "
                               "(nuggets, answers or assignments would be lost)")
    for table, index in (("nugget_assignment", "ix_nugget_assignment_annotator_id"),
                         ("nugget_assignment", "ix_nugget_assignment_nugget_id"),
                         ("rag_answer", "ix_rag_answer_topic_id"),
                         ("nugget_event", "ix_nugget_event_nugget_id"),
                         ("nugget", "ix_nugget_topic_id")):
        op.drop_index(index, table_name=table)
    for table in _TABLES:
        op.drop_table(table)
