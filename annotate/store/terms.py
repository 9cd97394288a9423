"""Highlight terms (revision 0007): the campaign's per topic (set by an admin, ``topic_term``)
and each annotator's own per topic (``annotator_term``).

Terms are cleaned and checked by :func:`pooljudge.formats.terms.clean_term` (InputError for a
blank, too long or control-character term); a topic holds at most ``MAX_TERMS`` campaign terms,
and an annotator at most ``MAX_TERMS`` own terms per topic. Topics are named by their key (the
id in the files). The judging page reads both kinds in one indexed query
(:func:`highlight_terms`: the primary keys start with the topic, and with the annotator).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import sqlalchemy as sa
from pooljudge.annotate.store.common import annotator_row, campaign_row, run, utcnow
from pooljudge.annotate.store.models import Annotator, AnnotatorTerm, Topic, TopicTerm
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session

from pooljudge.errors import InputError
from pooljudge.formats.terms import MAX_TERMS, clean_term

__all__ = ["TopicTerms", "UnknownTopic", "add_annotator_term", "campaign_terms",
           "highlight_terms", "remove_annotator_term", "set_topic_terms"]


class UnknownTopic(InputError):
    """The campaign has no topic with this key (``topic`` holds it)."""

    def __init__(self, campaign: str, topic: str) -> None:
        super().__init__(f"campaign {campaign!r} has no topic {topic!r}")
        self.topic = topic


class TopicTerms(NamedTuple):
    """The highlight terms of one topic for one annotator: the campaign's (alphabetical) and
    their own (in the order they added them)."""

    campaign: tuple[str, ...]
    own: tuple[str, ...]


_T, _TT, _AT, _A = (Topic.__table__, TopicTerm.__table__, AnnotatorTerm.__table__,
                    Annotator.__table__)
_TOPIC = (sa.select(_T.c.id).select_from(_A.join(_T, _T.c.campaign_id == _A.c.campaign_id))
          .where(_A.c.id == sa.bindparam("aid"), _T.c.key == sa.bindparam("topic")))
_BOTH = sa.union_all(
    sa.select(sa.literal_column("'campaign'").label("kind"), _TT.c.term,
              sa.cast(sa.null(), sa.DateTime()).label("at"))
    .select_from(_A.join(_T, _T.c.campaign_id == _A.c.campaign_id)
                 .join(_TT, _TT.c.topic_id == _T.c.id))
    .where(_A.c.id == sa.bindparam("aid"), _T.c.key == sa.bindparam("topic")),
    sa.select(sa.literal_column("'own'").label("kind"), _AT.c.term,
              _AT.c.created_at.label("at"))
    .select_from(_AT.join(_T, _T.c.id == _AT.c.topic_id))
    .where(_AT.c.annotator_id == sa.bindparam("aid"), _T.c.key == sa.bindparam("topic")),
)


def highlight_terms(session: Session, *, annotator_id: int, topic: str) -> TopicTerms:
    """The campaign's and ``annotator_id``'s own terms for topic ``topic`` of their campaign
    (one query; empty tuples for a topic without terms or a key the campaign lacks)."""
    rows = run(session, _BOTH, aid=annotator_id, topic=topic).all()
    campaign = sorted(term for kind, term, _ in rows if kind == "campaign")
    own = [term for kind, term, at in sorted((r for r in rows if r[0] == "own"),
                                             key=lambda r: (r[2], r[1]))]
    return TopicTerms(tuple(campaign), tuple(own))


def campaign_terms(session: Session, *, campaign: str) -> dict[str, tuple[str, ...]]:
    """Every topic of ``campaign`` (by key, in the order they were stored) with its campaign
    terms (alphabetical; empty for none). InputError for an unknown campaign."""
    row = campaign_row(session, campaign)
    found = session.execute(
        sa.select(_T.c.key, _TT.c.term)
        .select_from(_T.outerjoin(_TT, _TT.c.topic_id == _T.c.id))
        .where(_T.c.campaign_id == row.id).order_by(_T.c.id, _TT.c.term)).all()
    terms: dict[str, list[str]] = {}
    for key, term in found:
        terms.setdefault(key, [])
        if term is not None:
            terms[key].append(term)
    return {key: tuple(values) for key, values in terms.items()}


def set_topic_terms(session: Session, *, campaign: str,
                    terms: Mapping[str, Sequence[str]]) -> int:
    """Replace the campaign terms of each topic named in ``terms`` (topic key -> its terms; an
    empty list clears the topic); topics not named keep theirs. Terms are cleaned, and
    duplicates after cleaning kept once. Returns the number of terms stored.

    Raises UnknownTopic for a topic the campaign lacks, InputError (naming the topic) for a bad
    term or more than ``MAX_TERMS`` terms for a topic; nothing is written then (the caller's
    transaction rolls back, and the checks all come before the first write).
    """
    row = campaign_row(session, campaign)
    ids = dict(session.execute(sa.select(_T.c.key, _T.c.id).where(
        _T.c.campaign_id == row.id, _T.c.key.in_([str(k) for k in terms]))).all())
    cleaned: dict[int, list[str]] = {}
    for key, values in terms.items():
        if str(key) not in ids:
            raise UnknownTopic(campaign, str(key))
        cleaned[ids[str(key)]] = _clean_all(str(key), values)
    if not cleaned:
        return 0
    session.execute(sa.delete(_TT).where(_TT.c.topic_id.in_(list(cleaned))))
    rows = [{"topic_id": tid, "term": term} for tid, values in cleaned.items() for term in values]
    if rows:
        session.execute(sa.insert(_TT), rows)
    return len(rows)


def add_annotator_term(session: Session, *, annotator_id: int, topic: str, term: str) -> str:
    """Add ``term`` (cleaned; returned) to the annotator's own terms for topic ``topic`` of
    their campaign; a term they already have is left as it is.

    InputError for a removed annotator, an unknown topic, a bad term, or a topic already
    holding ``MAX_TERMS`` of their terms.
    """
    topic_id = _topic_of(session, annotator_id, topic)
    cleaned = clean_term(term)
    count = session.execute(sa.select(sa.func.count()).select_from(_AT).where(
        _AT.c.annotator_id == annotator_id, _AT.c.topic_id == topic_id,
        _AT.c.term != cleaned)).scalar_one()
    if count >= MAX_TERMS:
        raise InputError(f"you already have {MAX_TERMS} terms for this topic: remove one first")
    insert = (postgresql.insert(_AT) if session.get_bind().dialect.name == "postgresql"
              else sqlite.insert(_AT))
    session.execute(insert.values(annotator_id=annotator_id, topic_id=topic_id, term=cleaned,
                                  created_at=utcnow()).on_conflict_do_nothing())
    return cleaned


def remove_annotator_term(session: Session, *, annotator_id: int, topic: str,
                          term: str) -> bool:
    """Remove ``term`` from the annotator's own terms for topic ``topic``; False when they did
    not have it. InputError for a removed annotator or an unknown topic."""
    topic_id = _topic_of(session, annotator_id, topic)
    try:
        key = clean_term(term)
    except InputError:  # never stored, so not theirs
        return False
    gone = session.execute(sa.delete(_AT).where(
        _AT.c.annotator_id == annotator_id, _AT.c.topic_id == topic_id, _AT.c.term == key))
    return bool(gone.rowcount)


def _topic_of(session: Session, annotator_id: int, topic: str) -> int:
    """The id of topic ``topic`` in the active annotator's campaign (InputError otherwise)."""
    annotator_row(session, annotator_id)
    topic_id = run(session, _TOPIC, aid=annotator_id, topic=topic).scalar_one_or_none()
    if topic_id is None:
        raise InputError(f"no topic {topic!r} in your campaign")
    return topic_id


def _clean_all(topic: str, values: Sequence[str]) -> list[str]:
    """The cleaned distinct terms of one topic; InputError naming the topic."""
    if isinstance(values, str):
        values = [values]
    try:
        cleaned = list(dict.fromkeys(clean_term(v) for v in values))
    except InputError as exc:
        raise InputError(f"topic {topic}: {exc.message}") from None
    if len(cleaned) > MAX_TERMS:
        raise InputError(f"topic {topic}: {len(cleaned)} terms, at most {MAX_TERMS}")
    return cleaned
