"""Undo and the recent judgments: the annotator's own, newest first.

An undo never deletes: :func:`withdraw_last` appends a ``withdrawn`` version to the annotator's
most recent standing answer (the latest version of a pair, kind ``judgment``, with status
``label`` or ``cannot_judge``), so the pair counts as never judged by them, and hands the pair
back to them as their claim so it is shown again and the next label is the next version.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from pooljudge.annotate.records import JudgmentRecord, PairView
from pooljudge.annotate.store.common import (
    annotator_row,
    judgment_record,
    load_pair_view,
    recount_slots,
    run,
    utcnow,
)
from pooljudge.annotate.store.judgments import record_judgment
from pooljudge.annotate.store.models import Claim, Document, Judgment, Pair, Topic
from sqlmodel import Session

__all__ = ["RecentJudgment", "recent_judgments", "withdraw_last", "withdrawal"]


@dataclass(frozen=True)
class RecentJudgment:
    """One of an annotator's recent answers: a label (``status`` ``label``) or a can't-judge
    answer (``label`` None); ``version`` is the row's, so a change is ``version + 1``."""

    pair_id: int
    topic_id: str
    doc_id: str
    doc_title: str
    label: int | None
    status: str
    version: int
    created_at: datetime


def recent_judgments(session: Session, *, annotator_id: int, limit: int = 10
                     ) -> list[RecentJudgment]:
    """The annotator's last ``limit`` answered pairs (kind judgment; latest version a label or
    a can't-judge answer, never a withdrawal), newest first: the order of
    :func:`pooljudge.annotate.store.history`, so item i is ``history(...)[i]``.

    One query: a backward walk of the index ``(annotator_id, created_at)`` with a probe of the
    unique index per row for a newer version; no document text is read."""
    return [RecentJudgment(*row) for row in run(session, _RECENT, aid=annotator_id, n=limit)]


def withdraw_last(session: Session, *, annotator_id: int, lease_seconds: float = 600
                  ) -> PairView | None:
    """Withdraw the annotator's most recent standing answer and claim its pair for them.

    Appends a ``withdrawn`` version (counters updated: a label gives its slot back), releases
    the annotator's current claim (its slot given back) and claims the withdrawn pair for
    ``lease_seconds``, at the position it was first shown; returns its view, or None when
    nothing is left to undo (nothing stored then). Each call walks one answer further back.
    The annotator's row is locked first (as every writer of their judging does), so two
    sessions undoing at once withdraw two different answers, never one twice. InputError for
    an unknown, removed or non-participant annotator.
    """
    annotator_row(session, annotator_id, participant=True, lock=True)
    last = run(session, _LAST_STANDING, aid=annotator_id).first()
    if last is None:
        return None
    record_judgment(session, annotator_id=annotator_id, pair_id=last.pair_id, label=None,
                    status="withdrawn", position=last.position,
                    expected_version=last.version + 1)
    _claim_again(session, annotator_id, last.pair_id, last.position, lease_seconds)
    return load_pair_view(session, last.pair_id, last.position)


def withdrawal(session: Session, *, annotator_id: int, pair_id: int) -> JudgmentRecord | None:
    """The annotator's latest version of ``pair_id`` (kind judgment) when it is a withdrawal,
    else None: the page labels such a pair as version ``withdrawal.version + 1``. One probe of
    the unique index ``(pair_id, annotator_id, kind, version)``."""
    row = session.execute(
        sa.select(Judgment).where(Judgment.pair_id == pair_id,
                                  Judgment.annotator_id == annotator_id,
                                  Judgment.kind == "judgment")
        .order_by(Judgment.version.desc()).limit(1)).scalar_one_or_none()
    return judgment_record(row) if row is not None and row.status == "withdrawn" else None


def _claim_again(session: Session, annotator_id: int, pair_id: int, position: int | None,
                 lease_seconds: float) -> None:
    """Release the annotator's claim (slot back), then claim ``pair_id`` for them."""
    released = run(session, _RELEASE_MINE, aid=annotator_id).scalars().all()
    for other in released:
        recount_slots(session, other)
    now = utcnow()
    run(session, _CLAIM, pair_id=pair_id, annotator_id=annotator_id, claimed_at=now,
        expires_at=now + timedelta(seconds=lease_seconds), position=position or 0)
    recount_slots(session, pair_id)


def _statements() -> tuple[sa.Select, sa.Select]:
    """(the recent answers with their pairs' keys; the newest standing answer), binding
    ``aid`` (and ``n`` for the first)."""
    j, newer = Judgment.__table__, Judgment.__table__.alias("newer")
    p, t, d = Pair.__table__, Topic.__table__, Document.__table__
    later = sa.exists().where(newer.c.pair_id == j.c.pair_id,
                              newer.c.annotator_id == j.c.annotator_id,
                              newer.c.kind == j.c.kind, newer.c.version > j.c.version)
    standing = (j.c.annotator_id == sa.bindparam("aid"), j.c.kind == "judgment",
                j.c.status != "withdrawn", ~later)
    newest = (j.c.created_at.desc(), j.c.id.desc())
    recent = (sa.select(j.c.pair_id, t.c.key, d.c.key, d.c.title, j.c.label, j.c.status,
                        j.c.version, j.c.created_at)
              .select_from(j.join(p, p.c.id == j.c.pair_id).join(t, t.c.id == p.c.topic_id)
                           .join(d, d.c.id == p.c.document_id))
              .where(*standing).order_by(*newest).limit(sa.bindparam("n")))
    last = (sa.select(j.c.pair_id, j.c.version, j.c.position).where(*standing)
            .order_by(*newest).limit(1))
    return recent, last


_RECENT, _LAST_STANDING = _statements()
_C = Claim.__table__
_RELEASE_MINE = (sa.delete(_C).where(_C.c.annotator_id == sa.bindparam("aid"))
                 .returning(_C.c.pair_id))
_CLAIM = sa.insert(_C)
