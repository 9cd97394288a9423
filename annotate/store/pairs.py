"""Looking a pair up by its identity (topic id, document id): for adjudicators and admins."""

from __future__ import annotations

import sqlalchemy as sa
from pooljudge.annotate.records import PairView
from pooljudge.annotate.store.common import load_pair_view, run
from pooljudge.annotate.store.models import Campaign, Document, Pair, Topic
from sqlmodel import Session

from pooljudge.errors import InputError

__all__ = ["pair_by_key"]

_C, _T, _D, _P = Campaign.__table__, Topic.__table__, Document.__table__, Pair.__table__
_PAIR_ID = (
    sa.select(_P.c.id)
    .select_from(_P.join(_C, _C.c.id == _P.c.campaign_id)
                 .join(_T, _T.c.id == _P.c.topic_id)
                 .join(_D, _D.c.id == _P.c.document_id))
    .where(_C.c.name == sa.bindparam("campaign"), _T.c.key == sa.bindparam("topic"),
           _D.c.key == sa.bindparam("doc"))
)


def pair_by_key(session: Session, *, campaign: str, topic: str, doc: str) -> PairView:
    """The topic and document text of the pooled pair (``topic``, ``doc``) of ``campaign``.

    Like every PairView it carries no run, rank or label. Raises InputError when the campaign
    has no such pair. ``position`` is None: the pair is not being shown in a judging queue.
    """
    pair_id = run(session, _PAIR_ID, campaign=campaign, topic=topic, doc=doc).scalar_one_or_none()
    if pair_id is None:
        raise InputError(f"campaign {campaign!r} has no pair (topic {topic}, document {doc})")
    return load_pair_view(session, pair_id, None)
