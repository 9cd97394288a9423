"""Progress of a campaign, per topic and per annotator, from the queue counters."""

from __future__ import annotations

import pandas as pd
import sqlalchemy as sa
from sqlmodel import Session

from annotate.models import Annotator, Judgment, Pair, Topic
from annotate.store_common import campaign_row

__all__ = ["annotator_progress", "progress"]


def progress(session: Session, *, campaign: str, annotator_id: int | None = None
             ) -> pd.DataFrame:
    """One row per topic, in queue order: ``topic, pairs, judgments_needed, judgments_done``.

    ``judgments_needed`` = pairs × overlap K; ``judgments_done`` counts participants' first
    judgments, at most K per pair (imported label sources and adjudications do not count).
    With ``annotator_id``, two more columns: ``annotator`` (the name) and ``annotator_done``
    (pairs of the topic that annotator has judged). Per-annotator totals for every annotator
    are :func:`annotator_progress`.
    """
    row = campaign_row(session, campaign)
    done = sa.case((Pair.judged >= row.overlap, row.overlap), else_=Pair.judged)
    query = (
        sa.select(Topic.key, sa.func.count(Pair.id), sa.func.sum(done))
        .join(Pair, Pair.topic_id == Topic.id).where(Topic.campaign_id == row.id)
        .group_by(Topic.id, Topic.key, Topic.queue_pos).order_by(Topic.queue_pos)
    )
    frame = pd.DataFrame(session.execute(query).all(),
                         columns=["topic", "pairs", "judgments_done"])
    frame = frame.astype({"pairs": "int64", "judgments_done": "int64"})
    frame.insert(2, "judgments_needed", frame["pairs"] * row.overlap)
    if annotator_id is None:
        return frame
    name = session.execute(sa.select(Annotator.name).where(
        Annotator.id == annotator_id, Annotator.campaign_id == row.id)).scalar_one_or_none()
    mine = _judged_by(session, row.id, annotator_id)
    frame["annotator"] = name
    frame["annotator_done"] = frame["topic"].map(mine).fillna(0).astype("int64")
    return frame


def annotator_progress(session: Session, *, campaign: str) -> pd.DataFrame:
    """One row per (annotator, topic) judged: ``annotator, topic, judged`` (distinct pairs)."""
    row = campaign_row(session, campaign)
    query = (
        sa.select(Annotator.name, Topic.key, sa.func.count(sa.distinct(Judgment.pair_id)))
        .select_from(Judgment).join(Pair, Pair.id == Judgment.pair_id)
        .join(Topic, Topic.id == Pair.topic_id).join(Annotator, Annotator.id ==
                                                     Judgment.annotator_id)
        .where(Pair.campaign_id == row.id, Judgment.kind == "judgment")
        .group_by(Annotator.name, Topic.key).order_by(Annotator.name, Topic.key)
    )
    frame = pd.DataFrame(session.execute(query).all(), columns=["annotator", "topic", "judged"])
    return frame.astype({"judged": "int64"})


def _judged_by(session: Session, campaign_id: int, annotator_id: int) -> pd.Series:
    rows = session.execute(
        sa.select(Topic.key, sa.func.count(sa.distinct(Judgment.pair_id)))
        .select_from(Judgment).join(Pair, Pair.id == Judgment.pair_id)
        .join(Topic, Topic.id == Pair.topic_id)
        .where(Pair.campaign_id == campaign_id, Judgment.annotator_id == annotator_id,
               Judgment.kind == "judgment")
        .group_by(Topic.key)
    ).all()
    return pd.Series(dict(rows), dtype="int64")
