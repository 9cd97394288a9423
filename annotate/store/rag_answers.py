"""RAG answers (revision 0013): an answer per (run, topic), split into sentences with their
citations, imported in one transaction and read back for assignment, scores and export.

(Not :mod:`pooljudge.annotate.store.answers`, which holds "I can't judge this" answers.)
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate.store.common import utcnow
from pooljudge.annotate.store.models import Topic
from pooljudge.annotate.store.nugget_models import AnswerSentence, RagAnswer, table_of
from pooljudge.annotate.store.nuggets import campaign_pk
from sqlmodel import Session

from pooljudge.errors import InputError
from pooljudge.formats.rag_answers import AnswerRow, Sentence

__all__ = ["ANSWER_FRAME_COLUMNS", "answer_texts", "import_rag_answers", "rag_answers_frame"]

ANSWER_FRAME_COLUMNS = ("answer", "topic", "run")
_A, _S, _T = table_of(RagAnswer), table_of(AnswerSentence), table_of(Topic)


def import_rag_answers(session: Session, *, campaign: str, answers: Sequence[AnswerRow],
                       path: str | None = None) -> int:
    """Store ``answers`` (from :func:`pooljudge.formats.rag_answers.read_rag_answers`) in
    ``campaign``; the number stored. Every answer is checked before the first write: InputError
    at ``path:line`` for a topic the campaign lacks or an answer id already stored."""
    cid = campaign_pk(session, campaign)
    topics = dict(session.execute(sa.select(_T.c.key, _T.c.id).where(
        _T.c.campaign_id == cid)).all())
    stored = set(session.execute(sa.select(_A.c.key).where(_A.c.campaign_id == cid)
                                 ).scalars())
    for answer in answers:
        if answer.topic not in topics:
            raise InputError(f"campaign {campaign!r} has no topic {answer.topic!r}", path=path,
                             line=answer.line)
        if answer.key in stored:
            raise InputError(f"answer {answer.key!r} is already stored in campaign "
                             f"{campaign!r}", path=path, line=answer.line)
    if not answers:
        return 0
    now = utcnow()
    ids = session.execute(sa.insert(_A).returning(_A.c.id, sort_by_parameter_order=True), [
        {"campaign_id": cid, "topic_id": topics[a.topic], "key": a.key, "run": a.run,
         "refs": json.dumps(list(a.references), ensure_ascii=False), "created_at": now}
        for a in answers]).scalars().all()
    sentences = [{"answer_id": made, "position": i, "text": s.text,
                  "citations": json.dumps(list(s.citations))}
                 for made, a in zip(ids, answers, strict=True) for i, s in enumerate(a.sentences)]
    if sentences:
        session.execute(sa.insert(_S), sentences)
    return len(answers)


def answer_texts(session: Session, *, campaign: str, topic: str | None = None
                ) -> list[AnswerRow]:
    """The answers of ``campaign`` (of one ``topic``) with their sentences, by topic then
    answer id; InputError for an unknown campaign."""
    cid = campaign_pk(session, campaign)
    query = (sa.select(_A.c.id, _A.c.key, _T.c.key, _A.c.run, _A.c.refs)
             .select_from(_A.join(_T, _T.c.id == _A.c.topic_id))
             .where(_A.c.campaign_id == cid).order_by(_T.c.id, _A.c.key))
    if topic is not None:
        query = query.where(_T.c.key == topic)
    found = session.execute(query).all()
    sentences: dict[int, list[Sentence]] = {aid: [] for aid, *_ in found}
    if found:
        for aid, text, citations in session.execute(
                sa.select(_S.c.answer_id, _S.c.text, _S.c.citations)
                .select_from(_S.join(_A, _A.c.id == _S.c.answer_id))
                .where(_A.c.campaign_id == cid).order_by(_S.c.answer_id, _S.c.position)):
            if aid in sentences:
                sentences[aid].append(Sentence(text, tuple(json.loads(citations))))
    return [AnswerRow(key, tkey, run, tuple(json.loads(refs)), tuple(sentences[aid]))
            for aid, key, tkey, run, refs in found]


def rag_answers_frame(session: Session, *, campaign: str) -> pd.DataFrame:
    """Every answer of ``campaign``: columns answer, topic, run (strings), by topic then id."""
    cid = campaign_pk(session, campaign)
    found = session.execute(
        sa.select(_A.c.key, _T.c.key, _A.c.run).select_from(_A.join(_T, _T.c.id == _A.c.topic_id))
        .where(_A.c.campaign_id == cid).order_by(_T.c.id, _A.c.key)).all()
    return pd.DataFrame([tuple(r) for r in found], columns=list(ANSWER_FRAME_COLUMNS),
                        dtype=object).astype(str)
