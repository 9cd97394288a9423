"""The rows behind each annotator's statistics: SQL only (the figures:
:mod:`pooljudge.annotate.standing`).

Kind ``judgment`` only (adjudications are not an annotator's own judging). Two readers:

- the judging page's, for one annotator, bounded by the index ``(annotator_id, created_at)``:
  :func:`recent_judgment_rows` (their newest rows) and :func:`status_counts_since` (today's
  rows, read only when the newest are all from today);
- the admins' :func:`campaign_judgment_rows`: one query over the campaign's judgments of
  human participants, plus the progress counters
  (:mod:`pooljudge.annotate.store.progress_counters`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store.common import campaign_row, run
from pooljudge.annotate.store.models import Annotator, AnnotatorTopic, Judgment, Pair
from pooljudge.annotate.store.progress_counters import progress, topic_pairs
from sqlmodel import Session

__all__ = ["ROW_COLUMNS", "CampaignJudgmentRows", "campaign_judgment_rows",
           "recent_judgment_rows", "status_counts_since"]

ROW_COLUMNS = ("created_at", "version", "status", "label", "source", "seconds")
"""The columns of a judgment row that the statistics read, in this order."""

_J, _A, _P = Judgment.__table__, Annotator.__table__, Pair.__table__
_AT = AnnotatorTopic.__table__
_NEWER = sa.orm.aliased(Judgment, name="newer")
_LATEST = ~sa.exists().where(_NEWER.pair_id == _J.c.pair_id,
                             _NEWER.annotator_id == _J.c.annotator_id,
                             _NEWER.kind == _J.c.kind, _NEWER.version > _J.c.version)
_RECENT_ROWS = (sa.select(*(_J.c[c] for c in ROW_COLUMNS), _LATEST.label("latest"))
                .where(_J.c.annotator_id == sa.bindparam("aid"), _J.c.kind == "judgment")
                .order_by(_J.c.created_at.desc(), _J.c.id.desc()).limit(sa.bindparam("n")))
_SINCE_ROWS = (sa.select(_J.c.status)
               .where(_J.c.annotator_id == sa.bindparam("aid"), _J.c.kind == "judgment",
                      _J.c.created_at >= sa.bindparam("start"), _LATEST)
               .order_by(_J.c.created_at.desc()).limit(sa.bindparam("cap")).subquery())
_SINCE = sa.select(_SINCE_ROWS.c.status, sa.func.count()).group_by(_SINCE_ROWS.c.status)


def recent_judgment_rows(session: Session, *, annotator_id: int, limit: int) -> list[tuple]:
    """The annotator's newest ``limit`` judgment rows, newest first, as plain tuples
    (:data:`ROW_COLUMNS` + ``latest``: no newer version of that pair by them); a frame would
    cost some 20 ms per key press."""
    return [tuple(r) for r in run(session, _RECENT_ROWS, aid=annotator_id, n=limit)]


def status_counts_since(session: Session, *, annotator_id: int, start: datetime,
                        cap: int) -> dict[str, int]:
    """Status → count of the annotator's latest versions written at ``start`` or later; at
    most the newest ``cap`` of them are counted."""
    return dict(run(session, _SINCE, aid=annotator_id, start=start, cap=cap).all())


@dataclass(frozen=True)
class CampaignJudgmentRows:
    """What :func:`campaign_judgment_rows` read, one frame per query.

    - ``people``: annotator_id, annotator, role: the active human participants, by name;
    - ``rows``: annotator_id, pair_id, topic_id and :data:`ROW_COLUMNS`: every judgment row
      (kind judgment) of human participants, in no particular order;
    - ``topics``: :func:`pooljudge.annotate.store.progress` per topic, with ``topic_id``;
    - ``counted``: annotator_id, topic_id, n: the people's progress counters
      (``annotator_topic.judged``, their labelled pairs per topic).
    """

    scale: LabelScale
    people: pd.DataFrame
    rows: pd.DataFrame
    topics: pd.DataFrame
    counted: pd.DataFrame


def campaign_judgment_rows(session: Session, *, campaign: str) -> CampaignJudgmentRows:
    """The campaign's participants, judgment rows and progress counters; InputError for an
    unknown campaign."""
    row = campaign_row(session, campaign)
    people = pd.DataFrame(session.execute(
        sa.select(_A.c.id, _A.c.name, _A.c.role)
        .where(_A.c.campaign_id == row.id, _A.c.human, _A.c.active).order_by(_A.c.name)).all(),
        columns=["annotator_id", "annotator", "role"])
    rows = _judgment_rows(session, row.id)
    sizes = topic_pairs(session, campaign=campaign)
    topics = progress(session, campaign=campaign, pairs=sizes).assign(
        topic_id=sizes["topic_id"].to_numpy())
    counted = pd.DataFrame(session.execute(
        sa.select(_AT.c.annotator_id, _AT.c.topic_id, _AT.c.judged)
        .where(_AT.c.annotator_id.in_([int(i) for i in people["annotator_id"]]))).all(),
        columns=["annotator_id", "topic_id", "n"])
    return CampaignJudgmentRows(scale=LabelScale.from_data(json.loads(row.scale)),
                                people=people, rows=rows, topics=topics, counted=counted)


def _judgment_rows(session: Session, campaign_id: int) -> pd.DataFrame:
    """The campaign's judgment rows (kind judgment) of human participants, with the topic."""
    query = (sa.select(_J.c.annotator_id, _J.c.pair_id, _P.c.topic_id,
                       *(_J.c[c] for c in ROW_COLUMNS))
             .join(_P, _P.c.id == _J.c.pair_id).join(_A, _A.c.id == _J.c.annotator_id)
             .where(_P.c.campaign_id == campaign_id, _J.c.kind == "judgment", _A.c.human))
    frame = pd.DataFrame([tuple(r) for r in session.execute(query)],  # tuples: 5x faster
                         columns=["annotator_id", "pair_id", "topic_id", *ROW_COLUMNS])
    frame["created_at"] = pd.to_datetime(frame["created_at"])
    return frame.astype({"seconds": "float64", "version": "int64"})
