"""Calibration of automatic judges: the suggestion setting, suggestions shown, and pairs moved
to the front of the queue for people to judge.

``campaign.suggest_from`` names the automatic judge whose label the judging page shows as a
suggestion (NULL: none); each person's judgment stores the label shown (``judgment.suggested``,
NULL: none). A calibration sample is put at the front of the queue by giving its pairs queue
positions below every pair of the campaign (in one transaction), so the atomic claim of
:mod:`pooljudge.annotate.store.assignment` hands them out first, in the sample's order. With
assignment by
topic their topics are moved to the front of the topic queue too (a person finishes the topics
they hold first). Adaptive orders re-rank the front of the queue at every claim, so they
refuse a sample.
"""

from __future__ import annotations

import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate.store.common import campaign_row, run
from pooljudge.annotate.store.models import Annotator, Campaign, Document, Judgment, Pair, Topic
from pooljudge.pooling.orders import adaptive_spec
from sqlmodel import Session

from pooljudge.errors import InputError

__all__ = [
    "calibration_candidates",
    "move_to_front",
    "set_suggest_from",
    "suggest_from",
    "suggestion",
    "suggestions_shown",
]

_C, _A, _J, _P = Campaign.__table__, Annotator.__table__, Judgment.__table__, Pair.__table__
_T, _D = Topic.__table__, Document.__table__


def set_suggest_from(session: Session, *, campaign: str, name: str | None) -> None:
    """Show judge ``name``'s labels as suggestions in ``campaign`` (None: stop showing them).

    The judge need not have labelled anything yet (it may be run later). InputError when
    ``name`` is a person of the campaign (a participant), or empty.
    """
    row = campaign_row(session, campaign)
    if name is not None:
        if not name.strip():
            raise InputError("the automatic judge's name is empty")
        person = session.execute(sa.select(_A.c.human).where(
            _A.c.campaign_id == row.id, _A.c.name == name)).scalar()
        if person:
            raise InputError(f"{name!r} is a person in campaign {campaign!r}, not an automatic "
                             "judge")
    session.execute(sa.update(_C).where(_C.c.id == row.id).values(suggest_from=name))


def suggest_from(session: Session, *, campaign: str) -> str | None:
    """The judge whose labels ``campaign`` shows as suggestions (None: none)."""
    return campaign_row(session, campaign).suggest_from


# The suggestion of one pair: the latest label of the campaign's suggesting judge. Walks the
# unique (campaign_id, name) and (pair_id, annotator_id, kind, version) indexes only.
_JUDGE = _A.alias("judge")
_SUGGESTION = (
    sa.select(_J.c.label, _JUDGE.c.name)
    .select_from(_C.join(_JUDGE, sa.and_(_JUDGE.c.campaign_id == _C.c.id,
                                         _JUDGE.c.name == _C.c.suggest_from))
                 .join(_J, sa.and_(_J.c.annotator_id == _JUDGE.c.id,
                                   _J.c.pair_id == sa.bindparam("pid"),
                                   _J.c.kind == "judgment")))
    .where(_C.c.id == sa.bindparam("cid"), _J.c.label.is_not(None))
    .order_by(_J.c.version.desc()).limit(1)
)


def suggestion(session: Session, *, campaign_id: int, pair_id: int) -> tuple[int, str] | None:
    """(label, judge's name) to suggest for ``pair_id``; None when the campaign shows no
    suggestions or its judge has not labelled the pair. One indexed look-up."""
    row = run(session, _SUGGESTION, cid=campaign_id, pid=pair_id).first()
    return None if row is None else (int(row[0]), str(row[1]))


def suggestions_shown(session: Session, *, campaign: str) -> pd.DataFrame:
    """``annotator, topic, doc, suggested`` of every latest judgment (kind judgment) of a
    person (a non-automatic source) whose latest version is a label; ``suggested`` is the
    label shown (nullable Int64: <NA> when none was)."""
    row = campaign_row(session, campaign)
    newer = _J.alias("newer")
    query = (
        sa.select(_A.c.name, _T.c.key, _D.c.key, _J.c.suggested)
        .select_from(_J.join(_P, _P.c.id == _J.c.pair_id).join(_A, _A.c.id == _J.c.annotator_id)
                     .join(_T, _T.c.id == _P.c.topic_id).join(_D, _D.c.id == _P.c.document_id))
        .where(_P.c.campaign_id == row.id, _J.c.kind == "judgment", _J.c.status == "label",
               _J.c.source != "automatic",
               ~sa.exists().where(newer.c.pair_id == _J.c.pair_id,
                                  newer.c.annotator_id == _J.c.annotator_id,
                                  newer.c.kind == _J.c.kind, newer.c.version > _J.c.version))
    )
    frame = pd.DataFrame(session.execute(query).all(),
                         columns=["annotator", "topic", "doc", "suggested"])
    return frame.astype({"suggested": "Int64"})


def calibration_candidates(session: Session, *, campaign: str, judge: str) -> pd.DataFrame:
    """``pair_id, label`` of the pairs judge ``judge`` labelled (its latest label) that no
    person (a participant, ``annotator.human``) has judged in any way yet; by pair id.
    InputError when the campaign has no label source named ``judge``."""
    row = campaign_row(session, campaign)
    judge_id = session.execute(sa.select(_A.c.id).where(
        _A.c.campaign_id == row.id, _A.c.name == judge, ~_A.c.human)).scalar()
    if judge_id is None:
        raise InputError(f"campaign {campaign!r} has no automatic judge named {judge!r}")
    person = _A.alias("person")
    theirs = _J.alias("theirs")
    newer = _J.alias("newer")
    query = (
        sa.select(_J.c.pair_id, _J.c.label)
        .where(_J.c.annotator_id == judge_id, _J.c.kind == "judgment", _J.c.label.is_not(None),
               ~sa.exists().where(newer.c.pair_id == _J.c.pair_id,
                                  newer.c.annotator_id == judge_id,
                                  newer.c.kind == "judgment", newer.c.version > _J.c.version),
               ~sa.exists().where(theirs.c.pair_id == _J.c.pair_id,
                                  theirs.c.kind == "judgment",
                                  person.c.id == theirs.c.annotator_id, person.c.human))
        .order_by(_J.c.pair_id)
    )
    return pd.DataFrame(session.execute(query).all(), columns=["pair_id", "label"]).astype(
        {"pair_id": "int64", "label": "int64"})


_FRONT = sa.select(sa.func.min(_P.c.queue_pos)).where(_P.c.campaign_id == sa.bindparam("cid"))
_MOVE = sa.update(_P).where(_P.c.id == sa.bindparam("pid")).values(
    queue_pos=sa.bindparam("pos"))
_TOPIC_FRONT = sa.select(sa.func.min(_T.c.queue_pos)).where(
    _T.c.campaign_id == sa.bindparam("cid"))
_MOVE_TOPIC = sa.update(_T).where(_T.c.id == sa.bindparam("tid")).values(
    queue_pos=sa.bindparam("pos"))


def move_to_front(session: Session, *, campaign: str, pair_ids: list[int]) -> int:
    """Give ``pair_ids`` (in that order) the first queue positions of ``campaign``; the number
    moved. InputError for a pair of another campaign, a pair given twice, or an adaptive order.
    """
    row = campaign_row(session, campaign)
    if adaptive_spec(row.judging_order) is not None:
        raise InputError(f"campaign {campaign!r} has the adaptive order {row.judging_order}, "
                         "which re-ranks the front of its queue: a calibration sample cannot "
                         "be put there")
    if len(set(pair_ids)) != len(pair_ids):
        raise InputError("a pair is given twice")
    if not pair_ids:
        return 0
    found = dict(session.execute(sa.select(_P.c.id, _P.c.topic_id).where(
        _P.c.campaign_id == row.id, _P.c.id.in_(pair_ids))).all())
    missing = [p for p in pair_ids if p not in found]
    if missing:
        raise InputError(f"pair {missing[0]} is not in campaign {campaign!r}")
    front = run(session, _FRONT, cid=row.id).scalar_one()
    session.connection().execute(_MOVE, [{"pid": p, "pos": front - len(pair_ids) + i}
                                         for i, p in enumerate(pair_ids)])
    if row.assign_mode == "topic":
        topics = list(dict.fromkeys(found[p] for p in pair_ids))
        first = run(session, _TOPIC_FRONT, cid=row.id).scalar_one()
        session.connection().execute(_MOVE_TOPIC, [{"tid": t, "pos": first - len(topics) + i}
                                                   for i, t in enumerate(topics)])
    return len(pair_ids)
