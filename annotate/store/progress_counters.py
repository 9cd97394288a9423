"""Progress of a campaign, per topic and per annotator, from counters (never from judgments).

Judgment states: in each (pair, annotator, kind) sequence of versions the latest decides. A
pair is *labelled* by an annotator when their latest version (kind ``judgment``) has status
``label``; a withdrawal (``withdrawn``) is as if never judged; an ``I can't judge this`` answer
(``cannot_judge``) is *answered* without a label: it never counts towards the overlap.

Counters: ``pair.judged`` (participants who labelled the pair) and ``annotator_topic.judged``
(distinct pairs of a topic an annotator labelled, kind ``judgment``). :func:`count_judged` keeps
the latter in the transaction that writes the judgments; every writer of a change of state
(:func:`pooljudge.annotate.store.record_judgment`,
:func:`pooljudge.annotate.store.import_judgments`) calls it with
+1 (not labelled -> labelled) or -1 (labelled -> withdrawn or can't judge), or on PostgreSQL
folds the same upsert (:func:`count_rows_pg`) into its insert statement.

An annotator's own progress (``annotator_done``) counts the pairs they *answered*: labelled
plus standing can't-judge answers, so "pairs left for me" never includes a pair they said they
cannot judge. The can't-judge part is read from the annotator's own rows (index
``(annotator_id, created_at)``), never from the whole campaign's.

Topic progress = Σ over the topic's participants of ``annotator_topic.judged`` − Σ over its
pairs of ``max(pair.judged − K, 0)`` (an import may give a pair more than K participants; those
extra judgments do not count). The second sum reads the index ``(campaign_id, judged)`` from
``judged > K`` on, which is empty or tiny. The only aggregate over pairs is :func:`topic_pairs`
(the pool size per topic, fixed once the campaign exists), which callers may cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate.store.common import campaign_row, run
from pooljudge.annotate.store.models import Annotator, AnnotatorTopic, Judgment, Pair, Topic
from pooljudge.annotate.store.review_models import ReviewTopic
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session

__all__ = ["PACE", "TimeLeft", "annotator_progress", "count_judged", "count_rows_pg",
           "progress", "time_left", "topic_pairs"]

_AT, _A, _P = AnnotatorTopic.__table__, Annotator.__table__, Pair.__table__
_RT = ReviewTopic.__table__


def _upsert(dialect) -> sa.Insert:
    """``INSERT … ON CONFLICT (annotator_id, topic_id) DO UPDATE judged = judged + :n``."""
    statement = dialect.insert(_AT).values(annotator_id=sa.bindparam("aid"),
                                           topic_id=sa.bindparam("tid"),
                                           judged=sa.bindparam("n"))
    return statement.on_conflict_do_update(
        index_elements=[_AT.c.annotator_id, _AT.c.topic_id],
        set_={"judged": _AT.c.judged + statement.excluded.judged})


_UPSERT = {"sqlite": _upsert(sqlite), "postgresql": _upsert(postgresql)}


def count_rows_pg(rows: sa.Select) -> sa.Insert:
    """PostgreSQL: :func:`count_judged`'s upsert for the (annotator_id, topic_id, n) ``rows``
    of a query, to run inside a larger statement."""
    statement = postgresql.insert(_AT).from_select(["annotator_id", "topic_id", "judged"], rows)
    return statement.on_conflict_do_update(
        index_elements=[_AT.c.annotator_id, _AT.c.topic_id],
        set_={"judged": _AT.c.judged + statement.excluded.judged})

_TOPIC_OF = sa.select(_P.c.id, _P.c.topic_id).where(_P.c.id.in_(sa.bindparam("ids",
                                                                               expanding=True)))


def count_judged(session: Session, *, annotator_id: int | None = None,
                 topic_id: int | None = None, firsts: pd.DataFrame | None = None,
                 n: int = 1) -> None:
    """Add ``n`` to ``annotator_topic.judged`` (+1: a pair became labelled, -1: it stopped).

    Either one pair (``annotator_id`` and ``topic_id``) or a frame ``firsts`` with columns
    ``annotator_id, pair_id`` and optionally ``n`` (default 1; topics are looked up).
    """
    statement = _UPSERT[session.get_bind().dialect.name]
    if firsts is None:
        run(session, statement, aid=annotator_id, tid=topic_id, n=n)
        return
    if firsts.empty:
        return
    pair_ids = sorted(set(firsts["pair_id"].astype("int64").tolist()))
    topics = pd.concat([pd.DataFrame(run(session, _TOPIC_OF, ids=pair_ids[i:i + 10_000]).all(),
                                     columns=["pair_id", "topic_id"])
                        for i in range(0, len(pair_ids), 10_000)])
    changes = firsts.assign(n=firsts.get("n", 1))
    counts = (changes[["annotator_id", "pair_id", "n"]].astype("int64")
              .merge(topics, on="pair_id").groupby(["annotator_id", "topic_id"])["n"].sum())
    params = [{"aid": int(a), "tid": int(t), "n": int(k)} for (a, t), k in counts.items() if k]
    if params:
        session.connection().execute(statement, params)


def topic_pairs(session: Session, *, campaign: str) -> pd.DataFrame:
    """The pool size per topic, in queue order: columns ``topic_id, topic, pairs``."""
    row = campaign_row(session, campaign)
    sizes = (sa.select(_P.c.topic_id, sa.func.count().label("n"))
             .where(_P.c.campaign_id == row.id).group_by(_P.c.topic_id).subquery())
    query = (sa.select(Topic.id, Topic.key, sizes.c.n).join(sizes, sizes.c.topic_id == Topic.id)
             .where(Topic.campaign_id == row.id).order_by(Topic.queue_pos, Topic.id))
    frame = pd.DataFrame(session.execute(query).all(), columns=["topic_id", "topic", "pairs"])
    return frame.astype({"topic_id": "int64", "pairs": "int64"})


def progress(session: Session, *, campaign: str, annotator_id: int | None = None,
             pairs: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per topic, in queue order: ``topic, pairs, judgments_needed, judgments_done``.

    ``judgments_needed`` = pairs × overlap K; ``judgments_done`` counts the participants who
    labelled each pair, at most K per pair (imported label sources, adjudications, withdrawn
    labels and can't-judge answers do not count). A review topic whose certificate stopped it
    needs no more: its ``judgments_needed`` is its ``judgments_done``. With ``annotator_id``,
    two more columns: ``annotator`` (the name) and ``annotator_done`` (pairs of the topic that
    annotator has answered: labelled, or a standing can't-judge answer). ``pairs`` is a
    :func:`topic_pairs` frame fetched earlier (it never changes, so a caller may keep it); by
    default it is fetched.
    """
    row = campaign_row(session, campaign)
    frame = (topic_pairs(session, campaign=campaign) if pairs is None else pairs).copy()
    frame["judgments_needed"] = frame["pairs"] * row.overlap
    done = dict(session.execute(
        sa.select(_AT.c.topic_id, sa.func.sum(_AT.c.judged))
        .join(_A, _A.c.id == _AT.c.annotator_id)
        .where(_A.c.campaign_id == row.id, _A.c.human).group_by(_AT.c.topic_id)).all())
    excess = dict(session.execute(
        sa.select(_P.c.topic_id, sa.func.sum(_P.c.judged - row.overlap))
        .where(_P.c.campaign_id == row.id, _P.c.judged > row.overlap)
        .group_by(_P.c.topic_id)).all())
    frame["judgments_done"] = (frame["topic_id"].map(done).fillna(0)
                               - frame["topic_id"].map(excess).fillna(0)).astype("int64")
    stopped = frame["topic_id"].isin(session.execute(sa.select(_RT.c.topic_id).where(
        _RT.c.campaign_id == row.id, _RT.c.phase == "certified")).scalars().all())
    frame.loc[stopped, "judgments_needed"] = frame.loc[stopped, "judgments_done"]
    if annotator_id is not None:
        name = session.execute(sa.select(_A.c.name).where(
            _A.c.id == annotator_id, _A.c.campaign_id == row.id)).scalar_one_or_none()
        mine = dict(session.execute(sa.select(_AT.c.topic_id, _AT.c.judged)
                                    .where(_AT.c.annotator_id == annotator_id)).all())
        unsure = dict(run(session, _CANNOT_JUDGE, aid=annotator_id).all())
        frame["annotator"] = name
        frame["annotator_done"] = (frame["topic_id"].map(mine).fillna(0)
                                   + frame["topic_id"].map(unsure).fillna(0)).astype("int64")
    return frame.drop(columns="topic_id").reset_index(drop=True)


def _cannot_judge_statement() -> sa.Select:
    """The annotator ``:aid``'s standing can't-judge answers (kind ``judgment``, no newer
    version) per topic: (topic_id, n). Walks only that annotator's rows."""
    j, newer = Judgment.__table__, Judgment.__table__.alias("newer")
    later = sa.exists().where(newer.c.pair_id == j.c.pair_id,
                              newer.c.annotator_id == j.c.annotator_id,
                              newer.c.kind == j.c.kind, newer.c.version > j.c.version)
    return (sa.select(_P.c.topic_id, sa.func.count())
            .select_from(j.join(_P, _P.c.id == j.c.pair_id))
            .where(j.c.annotator_id == sa.bindparam("aid"), j.c.kind == "judgment",
                   j.c.status == "cannot_judge", ~later)
            .group_by(_P.c.topic_id))


_CANNOT_JUDGE = _cannot_judge_statement()


def annotator_progress(session: Session, *, campaign: str) -> pd.DataFrame:
    """One row per (annotator, topic) labelled: ``annotator, topic, judged`` (distinct pairs
    whose latest version is a label)."""
    row = campaign_row(session, campaign)
    query = (
        sa.select(_A.c.name, Topic.key, _AT.c.judged)
        .select_from(_AT).join(_A, _A.c.id == _AT.c.annotator_id)
        .join(Topic, Topic.id == _AT.c.topic_id)
        .where(_A.c.campaign_id == row.id, _AT.c.judged > 0)
        .order_by(_A.c.name, Topic.key)
    )
    frame = pd.DataFrame(session.execute(query).all(), columns=["annotator", "topic", "judged"])
    return frame.astype({"judged": "int64"})


PACE = "at the pace of all annotators in the last active hour"
"""Whose pace :func:`time_left` uses, in the words every page shows next to the figure."""

_J = Judgment.__table__
# A person's first label of a pair, written on the judging page (source ``human``): the rows of
# the pace. Literal SQL, the very predicate of the partial index ``ix_judgment_pace``, so that
# SQLite's planner (which matches a partial index's WHERE only against literals) uses it.
_PACE_ROWS = ("kind = 'judgment' AND version = 1 AND status = 'label' AND source = 'human'")
_FIRST = (sa.text(f"judgment.{_PACE_ROWS.replace(' AND ', ' AND judgment.')}"),)


@dataclass(frozen=True)
class TimeLeft:
    """Judgments still needed and the first judgments made in the last active hour."""

    remaining: int
    last_hour: int

    @property
    def hours(self) -> float | None:
        """``remaining / last_hour``; 0 when nothing remains, None without recent activity."""
        if self.remaining <= 0:
            return 0.0
        return self.remaining / self.last_hour if self.last_hour else None


def time_left(session: Session, *, campaign: str, remaining: int) -> TimeLeft:
    """The campaign's time left, the one estimate every page shows (words: :data:`PACE`).

    ``time left = remaining / n`` hours, where ``remaining`` is the judgments still needed
    (from :func:`progress`) and ``n`` the first labels (kind ``judgment``, version 1, status
    ``label``: a can't-judge answer gives no judgment towards the overlap; source ``human``:
    an import of a million labels in a minute is not anybody's pace) of all
    the campaign's participants (``annotator.human``) in the hour up to the newest of them:
    the whole team's pace, as the team together finishes the campaign. Label changes, imports
    from label sources and adjudications are not progress, so they never count.

    Reads the partial index ``ix_judgment_pace`` (``(annotator_id, created_at)`` of exactly
    those rows): one backward step per participant for the newest, then the last hour's only.
    """
    row = campaign_row(session, campaign)
    newest_of = (sa.select(_J.c.created_at).where(_J.c.annotator_id == _A.c.id, *_FIRST)
                 .order_by(_J.c.created_at.desc()).limit(1).scalar_subquery())
    newest = session.execute(sa.select(sa.func.max(newest_of))
                             .where(_A.c.campaign_id == row.id, _A.c.human)).scalar_one()
    if newest is None:
        return TimeLeft(remaining=remaining, last_hour=0)
    count = session.execute(
        sa.select(sa.func.count()).select_from(_J).join(_A, _A.c.id == _J.c.annotator_id)
        .where(_A.c.campaign_id == row.id, _A.c.human, *_FIRST,
               _J.c.created_at >= newest - timedelta(hours=1))).scalar_one()
    return TimeLeft(remaining=remaining, last_hour=int(count))
