"""A person's changes to a nugget bank: add, edit, merge, delete — each authorised first in its
own transaction (:func:`pooljudge.annotate.store.authorize`: the login still valid, a role in
the campaign) and recorded in the history with who and when.

Nothing is ever removed: a deleted nugget keeps its row (state ``deleted``), a merged one names
the nugget it went into (state ``merged``; its source passages are added to that nugget's).
Only active nuggets can be edited, merged or deleted, and the checks all come before the first
write, so a refused change stores nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import sqlalchemy as sa
from pooljudge.annotate.records import ANNOTATOR_ROLES, NUGGET_IMPORTANCES, NuggetRecord
from pooljudge.annotate.store.access import Credential, authorize
from pooljudge.annotate.store.common import utcnow
from pooljudge.annotate.store.models import Topic
from pooljudge.annotate.store.nugget_models import Nugget, table_of
from pooljudge.annotate.store.nuggets import add_event, nugget_bank, snapshot
from sqlmodel import Session

from pooljudge.errors import InputError
from pooljudge.formats.nuggets import check_nugget_text, check_sources

__all__ = ["NUGGET_EDITORS", "add_nugget", "delete_nugget", "edit_nugget", "merge_nuggets"]

NUGGET_EDITORS = ANNOTATOR_ROLES  # every role of a campaign may build its banks
_N, _T = table_of(Nugget), table_of(Topic)


def add_nugget(session: Session, *, credential: Credential, campaign: str, topic: str,
               text: str, importance: str, sources: Sequence[str] = ()) -> NuggetRecord:
    """A new active nugget at the end of ``topic``'s bank, authored by the logged-in person;
    its record. InputError for an unknown topic, a bad text or importance, or a text an active
    nugget of the topic already has; NotAllowed for a login without a role in ``campaign``."""
    who = authorize(session, credential=credential, campaign=campaign, roles=NUGGET_EDITORS)
    text, sources = check_nugget_text(text), check_sources(sources)
    _check_importance(importance)
    topic_row = session.execute(sa.select(Topic).where(
        _T.c.campaign_id == who.campaign_id, _T.c.key == topic).with_for_update()
    ).scalar_one_or_none()
    if topic_row is None:
        raise InputError(f"campaign {campaign!r} has no topic {topic!r}")
    siblings = session.execute(sa.select(Nugget).where(_N.c.topic_id == topic_row.id)
                               ).scalars().all()
    _check_unique_text(siblings, text, topic)
    taken = set(session.execute(sa.select(_N.c.key).where(
        _N.c.campaign_id == who.campaign_id)).scalars())
    number = len(siblings) + 1
    while f"{topic}-{number}" in taken:
        number += 1
    nugget = Nugget(campaign_id=who.campaign_id, topic_id=topic_row.id, key=f"{topic}-{number}",
                    position=1 + max((n.position for n in siblings), default=-1), text=text,
                    importance=importance, sources=json.dumps(list(sources)),
                    author_kind="person", author=who.name, state="active", created_at=utcnow())
    session.add(nugget)
    session.flush()
    add_event(session, nugget, "created", actor=who.name, annotator_id=who.id, before=None)
    return _record(session, campaign, nugget)


def edit_nugget(session: Session, *, credential: Credential, campaign: str, key: str,
                text: str | None = None, importance: str | None = None,
                sources: Sequence[str] | None = None) -> NuggetRecord:
    """Change the text, importance and/or sources of the active nugget ``key`` (None: keep);
    an ``edited`` event with before and after (none when nothing changed). Same errors as
    :func:`add_nugget`, and InputError for a key that is not an active nugget."""
    who = authorize(session, credential=credential, campaign=campaign, roles=NUGGET_EDITORS)
    nugget = _active(session, who.campaign_id, key)
    new_text = nugget.text if text is None else check_nugget_text(text)
    new_sources = (json.loads(nugget.sources) if sources is None
                   else list(check_sources(sources)))
    new_importance = nugget.importance if importance is None else importance
    _check_importance(new_importance)
    if new_text != nugget.text:
        siblings = session.execute(sa.select(Nugget).where(
            _N.c.topic_id == nugget.topic_id, _N.c.id != nugget.id)).scalars().all()
        _check_unique_text(siblings, new_text, _topic_key(session, nugget))
    before = snapshot(nugget)
    nugget.text, nugget.importance = new_text, new_importance
    nugget.sources = json.dumps(new_sources)
    if snapshot(nugget) != before:
        session.add(nugget)
        add_event(session, nugget, "edited", actor=who.name, annotator_id=who.id, before=before)
    return _record(session, campaign, nugget)


def merge_nuggets(session: Session, *, credential: Credential, campaign: str,
                  keys: Sequence[str], into: str) -> NuggetRecord:
    """Merge the active nuggets ``keys`` into the active nugget ``into`` of the same topic: each
    becomes ``merged`` (a ``merged`` event naming ``into``), and their sources are added to
    ``into``'s (an ``edited`` event when that changes them). Returns ``into``'s record.
    InputError for an empty ``keys``, ``into`` among them, an inactive nugget or another
    topic's."""
    who = authorize(session, credential=credential, campaign=campaign, roles=NUGGET_EDITORS)
    if not keys:
        raise InputError("name at least one nugget to merge")
    if into in keys:
        raise InputError(f"cannot merge nugget {into!r} into itself")
    target = _active(session, who.campaign_id, into)
    merged = [_active(session, who.campaign_id, key) for key in dict.fromkeys(keys)]
    for nugget in merged:
        if nugget.topic_id != target.topic_id:
            raise InputError(f"nugget {nugget.key!r} belongs to another topic than {into!r}")
    for nugget in merged:
        before = snapshot(nugget)
        nugget.state, nugget.merged_into = "merged", target.id
        session.add(nugget)
        add_event(session, nugget, "merged", actor=who.name, annotator_id=who.id,
                  before=before, merged_into=into)
    before = snapshot(target)
    own: list[str] = json.loads(target.sources)
    sources = list(dict.fromkeys([*own, *(s for n in merged for s in json.loads(n.sources))]))
    if sources != own:
        target.sources = json.dumps(sources)
        session.add(target)
        add_event(session, target, "edited", actor=who.name, annotator_id=who.id,
                  before=before)
    return _record(session, campaign, target)


def delete_nugget(session: Session, *, credential: Credential, campaign: str, key: str) -> None:
    """Mark the active nugget ``key`` deleted (a ``deleted`` event); its row, history and
    assignments stay. InputError for a key that is not an active nugget."""
    who = authorize(session, credential=credential, campaign=campaign, roles=NUGGET_EDITORS)
    nugget = _active(session, who.campaign_id, key)
    before = snapshot(nugget)
    nugget.state = "deleted"
    session.add(nugget)
    add_event(session, nugget, "deleted", actor=who.name, annotator_id=who.id, before=before)


def _active(session: Session, campaign_id: int, key: str) -> Nugget:
    nugget = session.execute(sa.select(Nugget).where(
        _N.c.campaign_id == campaign_id, _N.c.key == key).with_for_update()
    ).scalar_one_or_none()
    if nugget is None or nugget.state != "active":
        raise InputError(f"no active nugget {key!r} in this campaign")
    return nugget


def _check_importance(importance: str) -> None:
    if importance not in NUGGET_IMPORTANCES:
        raise InputError(f"importance must be one of {', '.join(NUGGET_IMPORTANCES)}, "
                         f"not {importance!r}")


def _check_unique_text(siblings: Sequence[Nugget], text: str, topic: str) -> None:
    if any(n.state == "active" and n.text == text for n in siblings):
        raise InputError(f"topic {topic!r} already has a nugget {text!r}")


def _topic_key(session: Session, nugget: Nugget) -> str:
    return session.execute(sa.select(_T.c.key).where(_T.c.id == nugget.topic_id)).scalar_one()


def _record(session: Session, campaign: str, nugget: Nugget) -> NuggetRecord:
    session.flush()
    return next(r for r in nugget_bank(session, campaign=campaign, topic=_topic_key(
        session, nugget), states=("active", "merged", "deleted")) if r.key == nugget.key)
