"""Tables of revision 0012: review campaigns (``review``, ``review_topic``, ``review_sample``)
and certificates (``certificate``). See :mod:`pooljudge.annotate.store.review` for their
invariants."""

from __future__ import annotations

from datetime import datetime

from pooljudge.annotate.records import REVIEW_PHASES, STOP_RULES
from sqlalchemy import CheckConstraint, Column, DateTime, Index, Text
from sqlmodel import Field, SQLModel

__all__ = ["Certificate", "Review", "ReviewSample", "ReviewTopic"]


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Review(SQLModel, table=True):
    """The campaign is a high-recall review stopped by ``rule`` at ``target`` recall, ``alpha``."""

    __tablename__ = "review"
    __table_args__ = (
        CheckConstraint(_one_of("rule", STOP_RULES), name="ck_review_rule"),
        CheckConstraint("target > 0 AND target < 1 AND alpha > 0 AND alpha < 1",
                        name="ck_review_level"),
    )

    campaign_id: int = Field(foreign_key="campaign.id", primary_key=True)
    rule: str
    target: float
    alpha: float
    seed: int


class ReviewTopic(SQLModel, table=True):
    """A topic's review phase, the labelled count its ranking reflects, the next retrain."""

    __tablename__ = "review_topic"
    __table_args__ = (
        CheckConstraint(_one_of("phase", REVIEW_PHASES), name="ck_review_topic_phase"),
        Index("ix_review_topic_campaign_id", "campaign_id"),
    )

    topic_id: int = Field(foreign_key="topic.id", primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    phase: str
    ranked_count: int
    due_count: int
    batch: int
    n_docs: int


class ReviewSample(SQLModel, table=True):
    """A pair of a topic's uniform random sample, ``draw`` its place in the draw."""

    __tablename__ = "review_sample"
    __table_args__ = (Index("ix_review_sample_topic_id", "topic_id"),)

    pair_id: int = Field(foreign_key="pair.id", primary_key=True)
    topic_id: int = Field(foreign_key="topic.id")
    draw: int


class Certificate(SQLModel, table=True):
    """Why a topic's review stopped, and the labels (judgment ids) it rests on."""

    __tablename__ = "certificate"
    __table_args__ = (Index("ix_certificate_campaign_id", "campaign_id"),)

    topic_id: int = Field(foreign_key="topic.id", primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    rule: str
    guarantee: bool
    target: float
    alpha: float
    reviewed: int
    relevant_found: int
    sample_size: int | None = None
    sample_relevant: int | None = None
    remaining: float | None = None
    remaining_low: int | None = None
    remaining_high: int | None = None
    p_value: float | None = None
    recall_estimate: float | None = None
    exhausted: bool
    n_docs: int
    judgments: str = Field(sa_column=Column(Text, nullable=False))
    judgment_count: int
    digest: str
    created_at: datetime = Field(sa_column=Column(DateTime(), nullable=False))
