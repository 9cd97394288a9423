"""Automatic judges: their annotator row, the pairs left to them, their labels and failures.

An automatic judge is a non-human annotator (``annotator.human`` false): it never logs in,
never claims, and never counts towards the overlap, so creating it or writing its labels never
changes a pair's ``open_slots`` or ``judged``. Each label is one transaction: the judgment row
(source ``automatic``, version 1), its :class:`pooljudge.annotate.store.models.AutoJudgment`
provenance, and
the removal of the pair's failure row. A second label of the same pair by the same judge (two
processes at once) hits the judgment table's UNIQUE (pair, annotator, kind, version) and
raises :class:`pooljudge.annotate.store.DuplicateWrite`, with nothing written.
"""

from __future__ import annotations

import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate.records import PairView
from pooljudge.annotate.store.annotators import add_label_source
from pooljudge.annotate.store.common import VIEW_COLUMNS, campaign_row, pair_view_of, run, utcnow
from pooljudge.annotate.store.judgments import DuplicateWrite, record_judgment
from pooljudge.annotate.store.models import (
    Annotator,
    AutoFailure,
    AutoJudgment,
    Document,
    Judgment,
    Pair,
    Topic,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session

from pooljudge.errors import InputError

__all__ = [
    "auto_failures",
    "auto_judge",
    "pair_runs",
    "pair_views",
    "pairs_for_judge",
    "record_auto_failure",
    "record_auto_judgment",
]

PAIR_MODES = ("all", "unjudged")
_VIEW_BATCH = 500
_J, _A, _P = Judgment.__table__, Annotator.__table__, Pair.__table__
_T, _D, _F = Topic.__table__, Document.__table__, AutoFailure.__table__


def auto_judge(session: Session, *, campaign: str, name: str, create: bool = True
               ) -> int | None:
    """The id of the automatic judge ``name`` of ``campaign``, created if new (None when new
    and not ``create``).

    InputError when the campaign is unknown, ``name`` is a person (a participant) there, or a
    removed label source; DuplicateWrite when another session created the judge meanwhile
    (PostgreSQL; the caller's transaction is spoilt, a new one finds the judge).
    """
    row = campaign_row(session, campaign)
    existing = session.execute(sa.select(_A.c.id, _A.c.human, _A.c.active).where(
        _A.c.campaign_id == row.id, _A.c.name == name)).first()
    if existing is not None and existing.human:
        raise InputError(f"{name!r} is a person in campaign {campaign!r}, not an automatic "
                         "judge; choose another --name")
    if existing is not None and not existing.active:
        raise InputError(f"the label source {name!r} was removed from campaign {campaign!r}")
    if existing is None and not create:
        return None
    try:
        return add_label_source(session, campaign_id=row.id, name=name)
    except sa.exc.IntegrityError:
        raise DuplicateWrite(f"the automatic judge {name!r} was created concurrently") from None


def pairs_for_judge(session: Session, *, campaign: str, annotator_id: int | None,
                    pairs: str = "all") -> tuple[list[int], int]:
    """(ids of the pairs left to the judge in queue order, number of pairs skipped).

    ``annotator_id`` None: a judge not created yet (it labelled nothing).
    ``all``: every pair the judge has not labelled; ``unjudged``: only those no participant
    (``annotator.human``) has labelled: ``pair.judged`` = 0, so a withdrawn label or a
    can't-judge answer leaves the pair to the judge. A pair of the judge's failure table is
    left to it (failures are retried).
    """
    if pairs not in PAIR_MODES:
        raise InputError(f"unknown pair selection {pairs!r}; choose from {', '.join(PAIR_MODES)}")
    row = campaign_row(session, campaign)
    query = sa.select(_P.c.id).where(_P.c.campaign_id == row.id)
    if annotator_id is not None:
        query = query.where(~sa.exists().where(
            _J.c.pair_id == _P.c.id, _J.c.annotator_id == annotator_id,
            _J.c.kind == "judgment"))
    if pairs == "unjudged":
        query = query.where(_P.c.judged == 0)
    left = list(session.execute(query.order_by(_P.c.queue_pos, _P.c.id)).scalars())
    total = session.execute(sa.select(sa.func.count()).where(_P.c.campaign_id == row.id)
                            ).scalar_one()
    return left, int(total) - len(left)


def pair_runs(session: Session, *, campaign: str) -> pd.DataFrame:
    """The campaign's pairs in queue order: columns pair_id, topic, doc, runs (the names of
    the runs that retrieved the pair, comma-separated as in the pool file). InputError for an
    unknown campaign."""
    row = campaign_row(session, campaign)
    query = (sa.select(_P.c.id, _T.c.key, _D.c.key, _P.c.runs)
             .select_from(_P.join(_T, _T.c.id == _P.c.topic_id)
                          .join(_D, _D.c.id == _P.c.document_id))
             .where(_P.c.campaign_id == row.id).order_by(_P.c.queue_pos, _P.c.id))
    return pd.DataFrame(session.execute(query).all(),
                        columns=["pair_id", "topic", "doc", "runs"])


_VIEWS = (
    sa.select(_P.c.id, *VIEW_COLUMNS)
    .select_from(_P.join(_T, _T.c.id == _P.c.topic_id).join(_D, _D.c.id == _P.c.document_id))
    .where(_P.c.id.in_(sa.bindparam("ids", expanding=True)))
)


def pair_views(session: Session, *, pair_ids: list[int]) -> list[PairView]:
    """The views (topic and document texts) of ``pair_ids``, in that order; unknown ids are
    left out."""
    found: dict[int, PairView] = {}
    for start in range(0, len(pair_ids), _VIEW_BATCH):
        for row in run(session, _VIEWS, ids=pair_ids[start:start + _VIEW_BATCH]):
            found[row[0]] = pair_view_of(row[0], None, row[1:])
    return [found[i] for i in pair_ids if i in found]


def record_auto_judgment(
    session: Session, *, annotator_id: int, pair_id: int, label: int, model: str,
    template_sha256: str, prompt_sha256: str, reply: str, reason: str | None,
    tokens_in: int, tokens_out: int, latency: float, attempts: int, seconds: float,
) -> int:
    """Write the judge's label of ``pair_id`` with its provenance; the judgment id.

    DuplicateWrite when the judge already labelled the pair (nothing written); InputError for
    a label outside the scale or a pair of another campaign.
    """
    record = record_judgment(session, annotator_id=annotator_id, pair_id=pair_id, label=label,
                             seconds=seconds, source="automatic", expected_version=1)
    run(session, _INSERT_AUTO, judgment_id=record.id, model=model,
        template_sha256=template_sha256, prompt_sha256=prompt_sha256, reply=reply,
        reason=reason, tokens_in=tokens_in, tokens_out=tokens_out, latency=latency,
        attempts=attempts)
    run(session, _DELETE_FAILURE, pid=pair_id, aid=annotator_id)
    return record.id


_INSERT_AUTO = sa.insert(AutoJudgment.__table__)
_DELETE_FAILURE = sa.delete(_F).where(_F.c.pair_id == sa.bindparam("pid"),
                                      _F.c.annotator_id == sa.bindparam("aid"))


def _failure_upsert(dialect) -> sa.Insert:
    statement = dialect.insert(_F)
    return statement.on_conflict_do_update(
        index_elements=[_F.c.pair_id, _F.c.annotator_id],
        set_={c: statement.excluded[c] for c in ("model", "reason", "reply", "attempts",
                                                 "failed_at")})


_FAILURE_UPSERT = {"sqlite": _failure_upsert(sqlite), "postgresql": _failure_upsert(postgresql)}


def record_auto_failure(session: Session, *, annotator_id: int, pair_id: int, model: str,
                        reason: str, reply: str | None, attempts: int) -> None:
    """Record (or replace) the judge's failure to label ``pair_id``; a no-op when the pair is
    meanwhile labelled by the judge (another process)."""
    done = session.execute(sa.select(sa.exists().where(
        _J.c.pair_id == pair_id, _J.c.annotator_id == annotator_id))).scalar()
    if done:
        return
    statement = _FAILURE_UPSERT[session.get_bind().dialect.name]
    session.connection().execute(statement.values(
        pair_id=pair_id, annotator_id=annotator_id, model=model, reason=reason, reply=reply,
        attempts=attempts, failed_at=utcnow()))


def auto_failures(session: Session, *, campaign: str, name: str | None = None) -> pd.DataFrame:
    """The failures of the campaign's automatic judges (or of judge ``name``), in queue order:
    columns judge, topic, doc, model, attempts, reason, reply, failed_at. A pair the judge has
    meanwhile labelled (a failure written by a run racing the one that labelled it) is not
    listed."""
    row = campaign_row(session, campaign)
    query = (
        sa.select(_A.c.name, _T.c.key, _D.c.key, _F.c.model, _F.c.attempts, _F.c.reason,
                  _F.c.reply, _F.c.failed_at)
        .select_from(_F.join(_A, _A.c.id == _F.c.annotator_id)
                     .join(_P, _P.c.id == _F.c.pair_id).join(_T, _T.c.id == _P.c.topic_id)
                     .join(_D, _D.c.id == _P.c.document_id))
        .where(_A.c.campaign_id == row.id, ~sa.exists().where(  # labelled by a racing run
            _J.c.pair_id == _F.c.pair_id, _J.c.annotator_id == _F.c.annotator_id))
        .order_by(_A.c.name, _P.c.queue_pos, _P.c.id)
    )
    if name is not None:
        query = query.where(_A.c.name == name)
    columns = ["judge", "topic", "doc", "model", "attempts", "reason", "reply", "failed_at"]
    return pd.DataFrame(session.execute(query).all(), columns=columns)
