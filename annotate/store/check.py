"""Consistency of a campaign's counters with the rows they summarise (a database fsck).

The claim and progress paths read counters instead of aggregating judgments, so each counter
must always equal a recount of the rows it stands for. Every write keeps them in the same
transaction as the rows; this module recounts from scratch and lists every difference, so a
test (or ``pooljudge campaigns check``) can prove that a crash at any moment — kill -9 during an
import, a judgment or a claim — left the database consistent. The invariants:

- ``pair.judged`` = distinct participants (``annotator.human``) whose latest version of kind
  ``judgment`` on the pair is a label (not a withdrawal, not a can't-judge answer);
- ``pair.open_slots`` = max(K − ``pair.judged`` − claims on the pair, 0), K the overlap (0 in
  a certified review topic);
- ``annotator_topic.judged`` = distinct pairs of the topic whose latest version of kind
  ``judgment`` by the annotator is a label, and no (annotator, topic) with labels lacks its
  row;
- ``topic.open_slots`` = max(K − annotators holding the topic, 0) (assignment by topic);
- every claim and judgment belongs to a pair and an annotator of the same campaign;
- an annotator's versions of one kind on one pair are 1, 2, …, n with no gap.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from pooljudge.annotate.store.models import (
    Annotator,
    AnnotatorTopic,
    Campaign,
    Claim,
    Judgment,
    Pair,
    ReviewTopic,
    Topic,
    TopicAssignment,
)
from sqlmodel import Session

from pooljudge.errors import InputError

__all__ = ["consistency_problems"]

_LIMIT = 20  # differences listed per invariant; the count is always exact


def consistency_problems(session: Session, *, campaign: str) -> list[str]:
    """Every invariant of the module docstring that ``campaign`` breaks, as readable lines
    (at most 20 examples per invariant, then a count); an empty list when all hold.

    Raises InputError when there is no such campaign.
    """
    row = session.execute(sa.select(Campaign.id, Campaign.overlap)
                          .where(Campaign.name == campaign)).first()
    if row is None:
        raise InputError(f"no campaign named {campaign!r}")
    checks = (_pair_counters, _progress_counters, _topic_slots, _foreign_rows, _version_gaps)
    problems: list[str] = []
    for check in checks:
        problems.extend(check(session, row.id, row.overlap))
    return problems


def _listed(what: str, rows: Sequence[Any]) -> list[str]:
    """Up to _LIMIT lines ``what: row`` and a final count when there are more."""
    lines = [f"{what}: {', '.join(f'{k}={v}' for k, v in r._mapping.items())}"
             for r in rows[:_LIMIT]]
    if len(rows) > _LIMIT:
        lines.append(f"{what}: {len(rows) - _LIMIT} more")
    return lines


def _labelled() -> sa.Subquery:
    """The judgment rows of kind ``judgment`` that are the latest of their (pair, annotator)
    sequence and have status ``label``: the labels the counters stand for."""
    j, newer = Judgment.__table__, Judgment.__table__.alias("newer")
    later = sa.exists().where(newer.c.pair_id == j.c.pair_id,
                              newer.c.annotator_id == j.c.annotator_id,
                              newer.c.kind == j.c.kind, newer.c.version > j.c.version)
    return (sa.select(j.c.pair_id, j.c.annotator_id)
            .where(j.c.kind == "judgment", j.c.status == "label", ~later).subquery("labelled"))


def _pair_counters(session: Session, campaign_id: int, overlap: int) -> list[str]:
    """``pair.judged`` and ``pair.open_slots`` against recounts (0 in a certified review
    topic: its queue is closed)."""
    j, a, c, p = _labelled(), Annotator.__table__, Claim.__table__, Pair.__table__
    judged = (sa.select(sa.func.count(sa.distinct(j.c.annotator_id)))
              .select_from(j.join(a, a.c.id == j.c.annotator_id))
              .where(j.c.pair_id == p.c.id, a.c.human.is_(True))
              .scalar_subquery())
    claims = sa.select(sa.func.count()).where(c.c.pair_id == p.c.id).scalar_subquery()
    rt = ReviewTopic.__table__
    closed = sa.exists().where(rt.c.topic_id == p.c.topic_id, rt.c.phase == "certified")
    query = sa.select(p.c.id.label("pair"), p.c.judged, judged.label("recount"),
                      p.c.open_slots, claims.label("claims"), closed.label("closed")
                      ).where(p.c.campaign_id == campaign_id)
    bad_judged, bad_slots = [], []
    for r in session.execute(query):
        if r.judged != r.recount:
            bad_judged.append(r)
        elif r.open_slots != (0 if r.closed else max(overlap - r.judged - r.claims, 0)):
            bad_slots.append(r)
    return (_listed("pair.judged differs from the judgments", bad_judged)
            + _listed(f"pair.open_slots differs from max(K={overlap} - judged - claims, 0)",
                      bad_slots))


def _progress_counters(session: Session, campaign_id: int, overlap: int) -> list[str]:
    """``annotator_topic.judged`` against a recount (missing and extra rows included)."""
    j, p, at, a = _labelled(), Pair.__table__, AnnotatorTopic.__table__, Annotator.__table__
    recount = (sa.select(j.c.annotator_id, p.c.topic_id,
                         sa.func.count(sa.distinct(j.c.pair_id)).label("n"))
               .select_from(j.join(p, p.c.id == j.c.pair_id))
               .where(p.c.campaign_id == campaign_id)
               .group_by(j.c.annotator_id, p.c.topic_id))
    counted = (sa.select(at.c.annotator_id, at.c.topic_id, at.c.judged)
               .select_from(at.join(a, a.c.id == at.c.annotator_id))
               .where(a.c.campaign_id == campaign_id, at.c.judged != 0))
    truth = {(r.annotator_id, r.topic_id): r.n for r in session.execute(recount)}
    stored = {(r.annotator_id, r.topic_id): r.judged for r in session.execute(counted)}
    keys = sorted(set(truth) | set(stored))
    rows = [_Diff(annotator=k[0], topic=k[1], recount=truth.get(k, 0), stored=stored.get(k, 0))
            for k in keys if truth.get(k, 0) != stored.get(k, 0)]
    return _listed("annotator_topic.judged differs from the judgments", rows)


def _topic_slots(session: Session, campaign_id: int, overlap: int) -> list[str]:
    """``topic.open_slots`` = max(K − holders, 0), for campaigns assigned by topic."""
    mode = session.execute(sa.select(Campaign.assign_mode)
                           .where(Campaign.id == campaign_id)).scalar_one()
    if mode != "topic":
        return []
    t, h = Topic.__table__, TopicAssignment.__table__
    holders = sa.select(sa.func.count()).where(h.c.topic_id == t.c.id).scalar_subquery()
    query = sa.select(t.c.key.label("topic"), t.c.open_slots, holders.label("holders")).where(
        t.c.campaign_id == campaign_id)
    rows = [r for r in session.execute(query) if r.open_slots != max(overlap - r.holders, 0)]
    return _listed(f"topic.open_slots differs from max(K={overlap} - holders, 0)", rows)


def _foreign_rows(session: Session, campaign_id: int, overlap: int) -> list[str]:
    """Claims and judgments whose pair and annotator belong to different campaigns."""
    p, a = Pair.__table__, Annotator.__table__
    lines: list[str] = []
    for table, name in ((Claim.__table__, "claim"), (Judgment.__table__, "judgment")):
        query = (sa.select(table.c.id, table.c.pair_id, table.c.annotator_id)
                 .select_from(table.join(p, p.c.id == table.c.pair_id)
                              .join(a, a.c.id == table.c.annotator_id))
                 .where(sa.or_(p.c.campaign_id == campaign_id, a.c.campaign_id == campaign_id),
                        p.c.campaign_id != a.c.campaign_id))
        lines += _listed(f"{name} joins a pair and an annotator of different campaigns",
                         session.execute(query).all())
    return lines


def _version_gaps(session: Session, campaign_id: int, overlap: int) -> list[str]:
    """Versions of (pair, annotator, kind) that are not exactly 1..n."""
    j, p = Judgment.__table__, Pair.__table__
    query = (sa.select(j.c.pair_id.label("pair"), j.c.annotator_id.label("annotator"), j.c.kind,
                       sa.func.count().label("rows"), sa.func.max(j.c.version).label("highest"))
             .select_from(j.join(p, p.c.id == j.c.pair_id))
             .where(p.c.campaign_id == campaign_id)
             .group_by(j.c.pair_id, j.c.annotator_id, j.c.kind)
             .having(sa.or_(sa.func.count() != sa.func.max(j.c.version),
                            sa.func.min(j.c.version) != 1)))
    return _listed("judgment versions are not 1..n", session.execute(query).all())


class _Diff:
    """A difference between a stored counter and its recount, printed like a row."""

    def __init__(self, **values: int) -> None:
        self._mapping = values
