"""Annotators: add (returns a login token, stored only as its SHA-256), remove, list, log in."""

from __future__ import annotations

import hashlib
import secrets

import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate.records import ANNOTATOR_ROLES, AnnotatorInfo
from pooljudge.annotate.store.access_models import CampaignRole, LoginSession
from pooljudge.annotate.store.common import campaign_row, recount_slots, utcnow
from pooljudge.annotate.store.models import (
    Annotator,
    AnnotatorTopic,
    Campaign,
    Claim,
    Judgment,
    Topic,
    TopicAssignment,
)
from sqlmodel import Session

from pooljudge.errors import InputError, has_control

__all__ = [
    "add_annotator",
    "add_label_source",
    "annotator_id",
    "authenticate",
    "hash_token",
    "list_annotators",
    "remove_annotator",
]

TOKEN_BYTES = 24


def hash_token(token: str) -> str:
    """SHA-256 hex digest of a login token (the only form the store keeps)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def add_annotator(session: Session, *, campaign: str, name: str, role: str = "annotator") -> str:
    """Add ``name`` to ``campaign`` (or re-activate a removed one) and return a new login token.

    The plain token is returned once; only its hash is stored. InputError for a bad role or
    blank name, or a name already active in the campaign.
    """
    if role not in ANNOTATOR_ROLES:
        raise InputError(f"unknown role {role!r}; choose from {', '.join(ANNOTATOR_ROLES)}")
    _check_name(name)
    row = campaign_row(session, campaign)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    existing = _by_name(session, row.id, name)
    if existing is not None:
        if existing.active:
            raise InputError(f"annotator {name!r} already exists in campaign {campaign!r}")
        if not existing.human:
            raise InputError(f"{name!r} is an imported label source in campaign {campaign!r}")
        existing.active, existing.role, existing.token_hash = True, role, hash_token(token)
    else:
        session.add(Annotator(campaign_id=row.id, name=name, role=role, human=True, active=True,
                              token_hash=hash_token(token), shown=0, created_at=utcnow()))
    try:
        session.flush()
    except sa.exc.IntegrityError:  # the same name added at the same moment by another session
        raise InputError(f"annotator {name!r} already exists in campaign {campaign!r}") from None
    return token


def add_label_source(session: Session, *, campaign_id: int, name: str) -> int:
    """Create (or find) a non-human annotator for imported labels (``qrels``, ``llm``…); its id.

    Label sources never log in and never count towards the overlap.
    """
    _check_name(name)
    existing = _by_name(session, campaign_id, name)
    if existing is not None:
        return existing.id
    row = Annotator(campaign_id=campaign_id, name=name, role="annotator", human=False,
                    active=True, token_hash=None, shown=0, created_at=utcnow())
    session.add(row)
    session.flush()
    return row.id


def remove_annotator(session: Session, *, campaign: str, name: str) -> None:
    """Deactivate ``name``: the token, browser sessions and roles granted in other campaigns
    stop working, a live claim and held topics are released.

    The annotator's judgments stay (they are never deleted). InputError for an unknown name.
    """
    row = campaign_row(session, campaign)
    annotator = _by_name(session, row.id, name)
    if annotator is None or not annotator.active:
        raise InputError(f"no active annotator {name!r} in campaign {campaign!r}")
    released = session.execute(
        sa.delete(Claim).where(Claim.annotator_id == annotator.id).returning(Claim.pair_id)
    ).scalars().all()
    for pair_id in released:
        recount_slots(session, pair_id)
    topics = session.execute(
        sa.delete(TopicAssignment).where(TopicAssignment.annotator_id == annotator.id)
        .returning(TopicAssignment.topic_id)
    ).scalars().all()
    for topic_id in topics:
        session.execute(sa.update(Topic).where(Topic.id == topic_id)
                        .values(open_slots=Topic.open_slots + 1))
    session.execute(sa.delete(LoginSession).where(LoginSession.annotator_id == annotator.id))
    session.execute(sa.delete(CampaignRole).where(CampaignRole.annotator_id == annotator.id))
    annotator.active = False
    annotator.token_hash = None
    session.flush()


def list_annotators(session: Session, *, campaign: str, include_removed: bool = False
                    ) -> pd.DataFrame:
    """Columns name, role, human, active, judgments (distinct pairs whose latest version is a
    label: withdrawn labels and can't-judge answers are not counted), last_judgment (the
    newest row of kind judgment, whatever its state: an undo is activity too).

    Counts come from the ``annotator_topic`` counters; the last judgment walks the index
    ``(annotator_id, created_at)`` backwards to the newest judgment row, never all judgments.
    """
    row = campaign_row(session, campaign)
    judged = (sa.select(sa.func.coalesce(sa.func.sum(AnnotatorTopic.judged), 0))
              .where(AnnotatorTopic.annotator_id == Annotator.id).scalar_subquery())
    last = (sa.select(Judgment.created_at)
            .where(Judgment.annotator_id == Annotator.id, Judgment.kind == "judgment")
            .order_by(Judgment.created_at.desc()).limit(1).scalar_subquery())
    query = (
        sa.select(Annotator.name, Annotator.role, Annotator.human, Annotator.active, judged, last)
        .where(Annotator.campaign_id == row.id).order_by(Annotator.name)
    )
    if not include_removed:
        query = query.where(Annotator.active)
    columns = ["name", "role", "human", "active", "judgments", "last_judgment"]
    return pd.DataFrame(session.execute(query).all(), columns=columns)


def authenticate(session: Session, *, token: str) -> AnnotatorInfo | None:
    """The active annotator whose token this is; None for a wrong or removed token."""
    if not token:
        return None
    row = session.execute(
        sa.select(Annotator, Campaign.name).join(Campaign, Campaign.id == Annotator.campaign_id)
        .where(Annotator.token_hash == hash_token(token), Annotator.active)
    ).one_or_none()
    if row is None:
        return None
    annotator, campaign_name = row
    return AnnotatorInfo(annotator.id, annotator.campaign_id, campaign_name, annotator.name,
                         annotator.role)


def annotator_id(session: Session, *, campaign: str, name: str) -> int:
    """The id of the active annotator ``name`` of ``campaign``; InputError when unknown."""
    row = campaign_row(session, campaign)
    annotator = _by_name(session, row.id, name)
    if annotator is None or not annotator.active:
        raise InputError(f"no active annotator {name!r} in campaign {campaign!r}")
    return annotator.id


def _by_name(session: Session, campaign_id: int, name: str) -> Annotator | None:
    return session.execute(
        sa.select(Annotator).where(Annotator.campaign_id == campaign_id, Annotator.name == name)
    ).scalar_one_or_none()


def _check_name(name: str) -> None:
    if not name or name != name.strip() or has_control(name):
        raise InputError(f"an annotator name must be non-blank, without tabs, newlines, other "
                         f"control characters or surrounding spaces: {name!r}")
