"""Nugget banks (revision 0013): import a file's banks in one transaction, read banks and their
history back.

A bank is the list of nuggets of one (campaign, topic), in ``position`` order. Within a topic no
two active nuggets have the same text (two such nuggets are one nugget twice: merge them), and
a nugget's ``key`` is unique in the campaign (the files' nugget id; made ``<topic>-<n>`` when a
file gives none). Every change appends to the history (``nugget_event``), so how much of a
model's bank people kept, edited, merged or deleted can be measured.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate.records import NuggetRecord
from pooljudge.annotate.store.common import utcnow
from pooljudge.annotate.store.models import Campaign, Topic
from pooljudge.annotate.store.nugget_models import Nugget, NuggetEvent, table_of
from sqlmodel import Session

from pooljudge.errors import InputError
from pooljudge.formats.nuggets import NuggetRow

__all__ = ["NUGGET_COLUMNS", "campaign_pk", "import_nuggets", "nugget_bank", "nugget_history",
           "nuggets_frame", "topic_titles"]

NUGGET_COLUMNS = ("key", "topic", "position", "text", "importance", "sources", "author_kind",
                  "author", "prompt_sha256", "state", "merged_into")
_N, _T, _E, _C = table_of(Nugget), table_of(Topic), table_of(NuggetEvent), table_of(Campaign)
_TARGET = _N.alias("target")


def campaign_pk(session: Session, campaign: str) -> int:
    """The id of the campaign called ``campaign``; InputError when there is none."""
    found = session.execute(sa.select(_C.c.id).where(_C.c.name == campaign)).scalar()
    if found is None:
        raise InputError(f"no campaign named {campaign!r}")
    return found


def import_nuggets(session: Session, *, campaign: str, rows: Sequence[NuggetRow],
                   path: str | None = None, actor: str = "import",
                   topics: Mapping[str, int] | None = None) -> int:
    """Store ``rows`` (from :mod:`pooljudge.formats.nuggets`) as new nuggets of ``campaign``,
    each after its topic's existing nuggets, in file order, with a ``created`` event by
    ``actor``; the number stored.

    Every row is checked before the first write, and the first bad one (in file order) raises
    InputError at ``path:line``: a topic the campaign lacks, a key already used (in the store or
    earlier in the file), a text an active nugget of the same topic already has. ``topics``
    (topic -> line, a file's banks, even empty ones) are checked to exist first.
    """
    cid = campaign_pk(session, campaign)
    known = dict(session.execute(sa.select(_T.c.key, _T.c.id).where(
        _T.c.campaign_id == cid)).all())
    for topic, line in (topics or {}).items():
        if topic not in known:
            raise InputError(f"campaign {campaign!r} has no topic {topic!r}", path=path,
                             line=line)
    existing = session.execute(sa.select(_N.c.key, _N.c.topic_id, _N.c.text, _N.c.state,
                                         _N.c.position).where(_N.c.campaign_id == cid)).all()
    keys = {key for key, *_ in existing}
    texts = {(tid, text) for _, tid, text, state, _ in existing if state == "active"}
    counts: dict[int, int] = {}
    next_position: dict[int, int] = {}
    for _, tid, _, _, position in existing:
        counts[tid] = counts.get(tid, 0) + 1
        next_position[tid] = max(next_position.get(tid, 0), position + 1)
    planned = []
    for item in rows:
        tid = known.get(item.topic)
        if tid is None:
            raise InputError(f"campaign {campaign!r} has no topic {item.topic!r}", path=path,
                             line=item.line)
        counts[tid] = counts.get(tid, 0) + 1
        key = item.key if item.key is not None else _free_key(item.topic, counts[tid], keys)
        if key in keys:
            raise InputError(f"nugget id {key!r} is already used in campaign {campaign!r}",
                             path=path, line=item.line)
        if (tid, item.text) in texts:
            raise InputError(f"topic {item.topic!r} already has a nugget {item.text!r} (merge "
                             "duplicates instead of importing them twice)", path=path,
                             line=item.line)
        keys.add(key)
        texts.add((tid, item.text))
        position = next_position.get(tid, 0)
        next_position[tid] = position + 1
        planned.append((item, tid, key, position))
    if not planned:
        return 0
    now = utcnow()
    values = [{"campaign_id": cid, "topic_id": tid, "key": key, "position": position,
               "text": item.text, "importance": item.importance,
               "sources": json.dumps(list(item.sources), ensure_ascii=False),
               "author_kind": item.author_kind, "author": item.author,
               "prompt_sha256": item.prompt_sha256, "state": "active", "merged_into": None,
               "created_at": now} for item, tid, key, position in planned]
    ids = session.execute(sa.insert(_N).returning(_N.c.id, sort_by_parameter_order=True),
                          values).scalars().all()
    session.execute(sa.insert(_E), [
        {"nugget_id": nid, "action": "created", "actor": actor, "annotator_id": None, "at": now,
         "before_json": None, "after_json": json.dumps(snapshot(Nugget(**v)), ensure_ascii=False)}
        for nid, v in zip(ids, values, strict=True)])
    return len(planned)


def _free_key(topic: str, count: int, taken: set[str]) -> str:
    """``<topic>-<n>`` for the first n >= ``count`` not in ``taken``."""
    while f"{topic}-{count}" in taken:
        count += 1
    return f"{topic}-{count}"


def snapshot(nugget: Nugget, merged_into: str | None = None) -> dict[str, object]:
    """What the history keeps of a nugget: text, importance, sources, state, merged_into."""
    return {"text": nugget.text, "importance": nugget.importance,
            "sources": json.loads(nugget.sources), "state": nugget.state,
            "merged_into": merged_into}


def add_event(session: Session, nugget: Nugget, action: str, *, actor: str,
              annotator_id: int | None, before: dict | None,
              merged_into: str | None = None) -> None:
    """Append ``action`` on ``nugget`` (as it is now) to the history, with ``before``."""
    session.flush()
    session.execute(sa.insert(_E).values(
        nugget_id=nugget.id, action=action, actor=actor, annotator_id=annotator_id,
        at=utcnow(), before_json=None if before is None else json.dumps(before,
                                                                        ensure_ascii=False),
        after_json=json.dumps(snapshot(nugget, merged_into), ensure_ascii=False)))


def _query(campaign_id: int, states: Sequence[str], topic: str | None):
    query = (sa.select(_N.c.key, _T.c.key, _N.c.position, _N.c.text, _N.c.importance,
                       _N.c.sources, _N.c.author_kind, _N.c.author, _N.c.prompt_sha256,
                       _N.c.state, _TARGET.c.key)
             .select_from(_N.join(_T, _T.c.id == _N.c.topic_id)
                          .outerjoin(_TARGET, _TARGET.c.id == _N.c.merged_into))
             .where(_N.c.campaign_id == campaign_id, _N.c.state.in_(list(states)))
             .order_by(_T.c.id, _N.c.position))
    return query if topic is None else query.where(_T.c.key == topic)


def nugget_bank(session: Session, *, campaign: str, topic: str | None = None,
                states: Sequence[str] = ("active",)) -> list[NuggetRecord]:
    """The nuggets of ``campaign`` (of one ``topic``, or all, topics in stored order) in the
    given ``states``, each bank in position order. InputError for an unknown campaign."""
    cid = campaign_pk(session, campaign)
    return [NuggetRecord(key, tkey, text, importance, tuple(json.loads(sources)), kind, author,
                         prompt, state, merged, position)
            for key, tkey, position, text, importance, sources, kind, author, prompt, state,
            merged in session.execute(_query(cid, states, topic)).all()]


def nuggets_frame(session: Session, *, campaign: str,
                  states: Sequence[str] = ("active",)) -> pd.DataFrame:
    """:func:`nugget_bank` as a frame with :data:`NUGGET_COLUMNS` (``sources`` as tuples)."""
    records = nugget_bank(session, campaign=campaign, states=states)
    return pd.DataFrame([[getattr(r, c) for c in NUGGET_COLUMNS] for r in records],
                        columns=list(NUGGET_COLUMNS)).astype({"position": "int64"})


def nugget_history(session: Session, *, campaign: str) -> pd.DataFrame:
    """Every change of every nugget of ``campaign`` in the order made: columns ``key, topic,
    author_kind, action, actor, at, before, after`` (``before``/``after``: dicts of text,
    importance, sources, state, merged_into; ``before`` None for ``created``)."""
    cid = campaign_pk(session, campaign)
    found = session.execute(
        sa.select(_N.c.key, _T.c.key, _N.c.author_kind, _E.c.action, _E.c.actor, _E.c.at,
                  _E.c.before_json, _E.c.after_json)
        .select_from(_E.join(_N, _N.c.id == _E.c.nugget_id).join(_T, _T.c.id == _N.c.topic_id))
        .where(_N.c.campaign_id == cid).order_by(_E.c.id)).all()
    columns = ["key", "topic", "author_kind", "action", "actor", "at", "before", "after"]
    return pd.DataFrame([(*r[:6], None if r[6] is None else json.loads(r[6]), json.loads(r[7]))
                         for r in found], columns=columns)


def topic_titles(session: Session, *, campaign: str) -> dict[str, str]:
    """Topic key -> title, every topic of ``campaign`` in stored order (a bank's query)."""
    return dict(session.execute(sa.select(_T.c.key, _T.c.title).where(
        _T.c.campaign_id == campaign_pk(session, campaign)).order_by(_T.c.id)).all())
