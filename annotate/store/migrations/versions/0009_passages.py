"""Passages: a campaign's pool of passages (chunks), each shown inside its document.

- ``document.parent`` (a ``document`` row of the same campaign), ``document.passage_start`` and
  ``document.passage_end`` (character offsets): NULL for every existing row and for every
  whole document; set for a passage, whose ``text`` is ``text[passage_start:passage_end]`` of
  its parent. CHECK ``ck_document_passage``: the three are all NULL or all set, with
  ``0 <= passage_start <= passage_end`` (the end within the parent's text is checked when the
  campaign is made: a CHECK cannot read another row).

The parent is stored once per campaign however many of its passages are pooled, so the storage
grows with the documents plus the passages' own text, not with documents times passages.

Adding the foreign key and the CHECK rebuilds ``document`` on SQLite (batch mode, copied from
the table as revisions 0001-0008 left it); the rebuild runs with foreign keys off and is checked
with ``PRAGMA foreign_key_check`` before the commit (see
:func:`pooljudge.annotate.store.engine.migrate`).
The downgrade refuses a database holding a passage rather than losing where it comes from.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04 00:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels = None
depends_on = None

_PASSAGE = ("(parent IS NULL AND passage_start IS NULL AND passage_end IS NULL) OR "
            "(parent IS NOT NULL AND passage_start IS NOT NULL AND passage_end IS NOT NULL "
            "AND passage_start >= 0 AND passage_end >= passage_start)")


def _document_0008() -> sa.Table:
    """The document table as revisions 0001-0008 left it (the batch copy's source)."""
    meta = sa.MetaData()
    sa.Table("campaign", meta, sa.Column("id", sa.Integer(), primary_key=True))
    return sa.Table(
        "document", meta,
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("campaign_id", sa.Integer(), sa.ForeignKey("campaign.id"), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.UniqueConstraint("campaign_id", "key", name="uq_document_campaign_key"),
    )


def upgrade() -> None:
    with op.batch_alter_table("document", copy_from=_document_0008()) as batch:
        batch.add_column(sa.Column("parent", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("passage_start", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("passage_end", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_document_parent", "document", ["parent"], ["id"])
        batch.create_check_constraint("ck_document_passage", _PASSAGE)


def downgrade() -> None:
    bind = op.get_bind()
    passages = bind.execute(sa.text(
        "SELECT COUNT(*) FROM document WHERE parent IS NOT NULL")).scalar_one()
    if passages:
        raise RuntimeError(f"cannot downgrade below 0009: {passages} passages have no place for "
                           "their document and offsets in the older schema")
    with op.batch_alter_table("document") as batch:
        batch.drop_constraint("ck_document_passage", type_="check")
        batch.drop_constraint("fk_document_parent", type_="foreignkey")
        batch.drop_column("passage_end")
        batch.drop_column("passage_start")
        batch.drop_column("parent")
