"""Review campaigns may stop by QBCB (Lewis, Yang & Frieder 2021, a guarantee) and by Quant
or QuantCI (Yang, Lewis & Frieder 2021, heuristics): ``review.rule`` admits ``qbcb``,
``quant`` and ``quantci`` beside ``hypergeometric``, ``target`` and ``knee``, and a
certificate keeps Quant's ``recall_estimate`` (NULL for the other rules).

The CHECK constraint ``ck_review_rule`` changes (SQLite rebuilds the small ``review`` table
from its 0013 definition; PostgreSQL alters the constraint in place) and ``certificate`` gains
a nullable column. The downgrade refuses a database holding a review by one of the new rules
rather than change its rule.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-06 00:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels = None
depends_on = None

_BEFORE = "rule IN ('hypergeometric', 'target', 'knee')"
_AFTER = "rule IN ('hypergeometric', 'target', 'qbcb', 'knee', 'quant', 'quantci')"
_NEW_RULES = "('qbcb', 'quant', 'quantci')"


def _review(rule_check: str) -> sa.Table:
    """The ``review`` table as revision 0012 created it, with ``rule_check``."""
    return sa.Table(
        "review", sa.MetaData(),
        sa.Column("campaign_id", sa.Integer(), sa.ForeignKey("campaign.id"), primary_key=True),
        sa.Column("rule", sa.String(), nullable=False),
        sa.Column("target", sa.Float(), nullable=False),
        sa.Column("alpha", sa.Float(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.CheckConstraint(rule_check, name="ck_review_rule"),
        sa.CheckConstraint("target > 0 AND target < 1 AND alpha > 0 AND alpha < 1",
                           name="ck_review_level"),
    )


def _swap(before: str, after: str) -> None:
    with op.batch_alter_table("review", copy_from=_review(before)) as batch:
        batch.drop_constraint("ck_review_rule", type_="check")
        batch.create_check_constraint("ck_review_rule", after)


def upgrade() -> None:
    _swap(_BEFORE, _AFTER)
    op.add_column("certificate", sa.Column("recall_estimate", sa.Float(), nullable=True))


def downgrade() -> None:
    count = op.get_bind().execute(
        sa.text(f"SELECT COUNT(*) FROM review WHERE rule IN {_NEW_RULES}"))
    held = count.scalar()
    if held:
        raise RuntimeError(f"downgrade to 0013 refused: {held} review campaigns stop by QBCB, "
                           "Quant or QuantCI")
    with op.batch_alter_table("certificate") as batch:
        batch.drop_column("recall_estimate")
    _swap(_AFTER, _BEFORE)
