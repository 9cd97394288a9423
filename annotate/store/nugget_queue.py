"""What the nugget panes read: which answers an assessor still has to assign, their own labels
of an answer, a topic's card, cited documents' texts, the relevant passages of a topic's judged
pool (the creation pane's sources), and whether a campaign has answers and nuggets at all (the
router hides the panes otherwise).

Assignment has no overlap setting in the store (revision 0013): every person of the campaign
assigns every answer. The queue is stable — answers by topic (stored order), then answer id —
and an answer is *done* for a person when each active nugget of its topic has a label of
theirs (an answer to a topic without active nuggets has nothing to assign and is left out).
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate.store.models import Document, Judgment, Pair, Topic
from pooljudge.annotate.store.nugget_models import Nugget, NuggetAssignment, RagAnswer, table_of
from pooljudge.annotate.store.nuggets import campaign_pk
from sqlmodel import Session

__all__ = ["QUEUE_COLUMNS", "assignment_queue", "document_texts", "my_nugget_labels",
           "nugget_counts", "relevant_passages", "topic_card"]

QUEUE_COLUMNS = ("answer", "topic", "run", "nuggets", "labelled")
_A, _N, _X, _T, _D = (table_of(RagAnswer), table_of(Nugget), table_of(NuggetAssignment),
                      table_of(Topic), table_of(Document))
_J, _P = table_of(Judgment), table_of(Pair)
_LATER = _J.alias("later")


def nugget_counts(session: Session, *, campaign: str) -> tuple[int, int]:
    """(RAG answers, active nuggets) of ``campaign``; InputError for an unknown campaign."""
    cid = campaign_pk(session, campaign)
    answers = session.execute(sa.select(sa.func.count()).select_from(_A).where(
        _A.c.campaign_id == cid)).scalar_one()
    nuggets = session.execute(sa.select(sa.func.count()).select_from(_N).where(
        _N.c.campaign_id == cid, _N.c.state == "active")).scalar_one()
    return int(answers), int(nuggets)


def assignment_queue(session: Session, *, campaign: str, annotator_id: int) -> pd.DataFrame:
    """Every answer of ``campaign`` whose topic has active nuggets, in the stable order above:
    columns :data:`QUEUE_COLUMNS` (``nuggets``: the topic's active nuggets; ``labelled``: how
    many of them ``annotator_id`` has labelled for this answer). Done answers have
    ``labelled == nuggets``; three queries, whatever the campaign's size."""
    cid = campaign_pk(session, campaign)
    answers = session.execute(
        sa.select(_A.c.id, _A.c.key, _T.c.key, _A.c.run, _A.c.topic_id)
        .select_from(_A.join(_T, _T.c.id == _A.c.topic_id))
        .where(_A.c.campaign_id == cid).order_by(_T.c.id, _A.c.key)).all()
    per_topic = dict(session.execute(
        sa.select(_N.c.topic_id, sa.func.count()).where(_N.c.campaign_id == cid,
                                                         _N.c.state == "active")
        .group_by(_N.c.topic_id)).all())
    mine = dict(session.execute(
        sa.select(_X.c.answer_id, sa.func.count(sa.distinct(_X.c.nugget_id)))
        .select_from(_X.join(_N, _N.c.id == _X.c.nugget_id))
        .where(_X.c.annotator_id == annotator_id, _N.c.campaign_id == cid,
               _N.c.state == "active").group_by(_X.c.answer_id)).all())
    rows = [(key, topic, run, int(per_topic[tid]), int(mine.get(aid, 0)))
            for aid, key, topic, run, tid in answers if per_topic.get(tid)]
    return pd.DataFrame(rows, columns=list(QUEUE_COLUMNS)).astype(
        {"answer": object, "topic": object, "run": object, "nuggets": "int64",
         "labelled": "int64"})


def my_nugget_labels(session: Session, *, campaign: str, annotator_id: int,
                     answer: str) -> dict[str, str]:
    """Active nugget key -> the latest label ``annotator_id`` gave it for ``answer`` (cells
    they have not labelled are absent)."""
    cid = campaign_pk(session, campaign)
    found = session.execute(
        sa.select(_N.c.key, _X.c.label)
        .select_from(_X.join(_A, _A.c.id == _X.c.answer_id).join(_N, _N.c.id == _X.c.nugget_id))
        .where(_A.c.campaign_id == cid, _A.c.key == answer, _X.c.annotator_id == annotator_id,
               _N.c.state == "active").order_by(_X.c.version)).all()
    return dict(found)  # in version order: the latest label of each cell wins


def topic_card(session: Session, *, campaign: str, topic: str) -> tuple[str, str, str]:
    """(title, description, narrative) of ``topic``; empty strings for a topic not found."""
    found = session.execute(sa.select(_T.c.title, _T.c.description, _T.c.narrative).where(
        _T.c.campaign_id == campaign_pk(session, campaign), _T.c.key == topic)).one_or_none()
    return ("", "", "") if found is None else (found[0], found[1], found[2])


def document_texts(session: Session, *, campaign: str, keys: Iterable[str]
                   ) -> dict[str, tuple[str, str]]:
    """Document key -> (title, text) for those of ``keys`` the campaign holds (others are
    absent: an answer may cite documents outside the collection)."""
    wanted = sorted(set(keys))
    if not wanted:
        return {}
    cid = campaign_pk(session, campaign)
    return {key: (title, text) for key, title, text in session.execute(
        sa.select(_D.c.key, _D.c.title, _D.c.text).where(_D.c.campaign_id == cid,
                                                          _D.c.key.in_(wanted))).all()}


def relevant_passages(session: Session, *, campaign: str, topic: str
                      ) -> list[tuple[str, str, str]]:
    """(document key, title, text) of every pooled document of ``topic`` that people judged
    relevant, in pool order: its latest adjudication has a label above 0, or, without an
    adjudication, some person's latest judgment does (automatic labels and withdrawn or
    "can't judge" answers do not count)."""
    cid = campaign_pk(session, campaign)
    later = sa.exists().where(_LATER.c.pair_id == _J.c.pair_id,
                              _LATER.c.annotator_id == _J.c.annotator_id,
                              _LATER.c.kind == _J.c.kind, _LATER.c.version > _J.c.version)
    found = session.execute(
        sa.select(_P.c.id, _D.c.key, _D.c.title, _D.c.text, _J.c.kind, _J.c.label, _J.c.id)
        .select_from(_J.join(_P, _P.c.id == _J.c.pair_id).join(_T, _T.c.id == _P.c.topic_id)
                     .join(_D, _D.c.id == _P.c.document_id))
        .where(_P.c.campaign_id == cid, _T.c.key == topic, _J.c.status == "label",
               _J.c.source != "automatic", ~later)
        .order_by(_P.c.pool_order, _J.c.id)).all()
    votes: dict[int, dict[str, list[int]]] = {}
    texts: dict[int, tuple[str, str, str]] = {}
    for pair, key, title, text, kind, label, _ in found:
        votes.setdefault(pair, {}).setdefault(kind, []).append(int(label))
        texts[pair] = (key, title, text)
    return [texts[pair] for pair, kinds in votes.items()
            if (kinds["adjudication"][-1] if "adjudication" in kinds
                else max(kinds["judgment"])) > 0]
