"""What the nugget panes read: which answers an assessor still has to assign, their own labels
of an answer, a topic's card, cited documents' texts, the relevant passages of a topic's judged
pool (the creation pane's sources), and whether a campaign has answers and nuggets at all (the
router hides the panes otherwise).

The queue is stable — answers by topic (stored order), then answer id — and an answer is
*done* for a person when each active nugget of its topic has a label of theirs (an answer to a
topic without active nuggets has nothing to assign and is left out).

**Overlap** (revision 0015, :func:`set_nugget_overlap`): without a setting every person of the
campaign assigns every answer. With overlap K, an answer is *held* by the active people
(``human`` annotators; label sources such as models never count) who have labelled at least
one of its cells, and a person's queue holds the answers they hold and the answers held by
fewer than K others; so no one gets an answer twice and answers K people hold — K complete
ones among them — are skipped. The write checks it again
(:func:`pooljudge.annotate.store.record_nugget_assignment`): a first label on an answer that
K others hold is refused, so two people who opened the same answer at once never make it K + 1.
A removed person's slot is freed.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate.store.models import Annotator, Document, Judgment, Pair, Topic
from pooljudge.annotate.store.nugget_models import (
    Nugget,
    NuggetAssignment,
    NuggetSetting,
    RagAnswer,
    table_of,
)
from pooljudge.annotate.store.nuggets import campaign_pk
from sqlmodel import Session

from pooljudge.errors import InputError

__all__ = ["MAX_NUGGET_OVERLAP", "QUEUE_COLUMNS", "answer_holders", "assignment_queue",
           "document_texts", "my_nugget_labels", "nugget_counts", "nugget_overlap",
           "relevant_passages", "set_nugget_overlap", "topic_card"]

QUEUE_COLUMNS = ("answer", "topic", "run", "nuggets", "labelled")
MAX_NUGGET_OVERLAP = 1000
_A, _N, _X, _T, _D = (table_of(RagAnswer), table_of(Nugget), table_of(NuggetAssignment),
                      table_of(Topic), table_of(Document))
_S, _PEOPLE = table_of(NuggetSetting), table_of(Annotator)
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


def nugget_overlap(session: Session, *, campaign: str) -> int | None:
    """The campaign's assignment overlap K, None when every person assigns every answer."""
    return session.execute(sa.select(_S.c.overlap).where(
        _S.c.campaign_id == campaign_pk(session, campaign))).scalar()


def set_nugget_overlap(session: Session, *, campaign: str, overlap: int | None) -> None:
    """Set the campaign's assignment overlap to ``overlap`` (1 to
    :data:`MAX_NUGGET_OVERLAP`), or remove it (None: every person assigns every answer).
    Answers already held by more people keep them; InputError for a bad value."""
    cid = campaign_pk(session, campaign)
    if overlap is not None and not 1 <= overlap <= MAX_NUGGET_OVERLAP:
        raise InputError(f"the overlap must be 1 to {MAX_NUGGET_OVERLAP}, not {overlap}")
    session.execute(sa.delete(_S).where(_S.c.campaign_id == cid))
    if overlap is not None:
        session.execute(sa.insert(_S).values(campaign_id=cid, overlap=overlap))


def answer_holders(campaign_id: int):
    """A query of (answer id, holders): how many active people labelled a cell of each answer
    of the campaign (see the module docstring)."""
    return (sa.select(_X.c.answer_id, sa.func.count(sa.distinct(_X.c.annotator_id)))
            .select_from(_X.join(_A, _A.c.id == _X.c.answer_id)
                         .join(_PEOPLE, _PEOPLE.c.id == _X.c.annotator_id))
            .where(_A.c.campaign_id == campaign_id, _PEOPLE.c.human, _PEOPLE.c.active)
            .group_by(_X.c.answer_id))


def assignment_queue(session: Session, *, campaign: str, annotator_id: int) -> pd.DataFrame:
    """Every answer of ``campaign`` whose topic has active nuggets and that ``annotator_id``
    may assign under the overlap (see the module docstring), in the stable order above:
    columns :data:`QUEUE_COLUMNS` (``nuggets``: the topic's active nuggets; ``labelled``: how
    many of them ``annotator_id`` has labelled for this answer). Done answers have
    ``labelled == nuggets``; at most five queries, whatever the campaign's size."""
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
    overlap = session.execute(sa.select(_S.c.overlap).where(_S.c.campaign_id == cid)).scalar()
    if overlap is not None:
        holders = dict(session.execute(answer_holders(cid)).all())
        held = set(session.execute(sa.select(_X.c.answer_id).where(
            _X.c.annotator_id == annotator_id).distinct()).scalars())
        answers = [a for a in answers if a[0] in held or holders.get(a[0], 0) < overlap]
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
