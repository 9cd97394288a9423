""""I can't judge this" answers of a campaign: read apart from the labels, for the agreement
report and the export (which count them, and never as a label)."""

from __future__ import annotations

import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate.store.common import campaign_row, run
from pooljudge.annotate.store.models import Annotator, Document, Judgment, Pair, Topic
from sqlmodel import Session

__all__ = ["ANSWER_COLUMNS", "cannot_judge_answers"]

ANSWER_COLUMNS = ("topic", "doc", "annotator", "reason", "created_at")

_J, _P, _T, _D, _A = (Judgment.__table__, Pair.__table__, Topic.__table__, Document.__table__,
                      Annotator.__table__)
_NEWER = sa.orm.aliased(Judgment.__table__, name="newer")
_ANSWERS = (
    sa.select(_T.c.key, _D.c.key, _A.c.name, _J.c.rationale, _J.c.created_at)
    .select_from(_J.join(_P, _P.c.id == _J.c.pair_id)
                 .join(_T, _T.c.id == _P.c.topic_id)
                 .join(_D, _D.c.id == _P.c.document_id)
                 .join(_A, _A.c.id == _J.c.annotator_id))
    .where(_P.c.campaign_id == sa.bindparam("cid"), _J.c.kind == "judgment",
           _J.c.status == "cannot_judge",
           ~sa.exists().where(_NEWER.c.pair_id == _J.c.pair_id,  # the unique index's prefix
                              _NEWER.c.annotator_id == _J.c.annotator_id,
                              _NEWER.c.kind == _J.c.kind, _NEWER.c.version > _J.c.version))
    .order_by(_T.c.key, _D.c.key, _A.c.name)
)


def cannot_judge_answers(session: Session, *, campaign: str) -> pd.DataFrame:
    """The pairs whose latest judgment (kind judgment) by an annotator is "I can't judge this":
    columns topic, doc, annotator, reason, created_at, sorted by topic, doc, annotator (text
    order). An answer later replaced by a label or withdrawn is not listed; a label later
    replaced by such an answer is. InputError for an unknown campaign."""
    rows = run(session, _ANSWERS, cid=campaign_row(session, campaign).id).all()
    frame = pd.DataFrame([tuple(r) for r in rows], columns=list(ANSWER_COLUMNS), dtype=object)
    frame["created_at"] = pd.to_datetime(frame["created_at"])
    return frame.astype({"topic": str, "doc": str, "annotator": str, "reason": str})
