"""Who may do what, checked in the writer's own transaction: rights per campaign and logins.

A login is a :class:`Credential`: the login link's token, or a browser session's random id
(made from a token by :func:`start_login_session`; the store keeps only SHA-256 digests of
both). :func:`authorize` resolves it *inside the caller's transaction* and locks the person's
row (``SELECT … FOR UPDATE`` on PostgreSQL; SQLite's writer already holds the database lock), so
a write and a concurrent removal are serialised: a write for a login that no longer logs in
raises :class:`NotAllowed` and its transaction stores nothing.

Rights are per campaign. A person's role in their own campaign is ``annotator.role``; a
``campaign_role`` row grants them ``admin`` or ``adjudicator`` of another campaign (an admin who
creates a campaign in the browser is granted ``admin`` of it). There is no server-wide role.
A login session lives :data:`SESSION_HOURS` hours, ends at *Log out*, and ends with removal;
grants end with removal too (:func:`grant_role`, :func:`revoke_role`).
"""

from __future__ import annotations

import secrets
from collections.abc import Collection
from datetime import timedelta
from typing import NamedTuple

import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate.records import AnnotatorInfo
from pooljudge.annotate.store.access_models import GRANTED_ROLES, CampaignRole, LoginSession
from pooljudge.annotate.store.annotators import hash_token
from pooljudge.annotate.store.common import campaign_row, utcnow
from pooljudge.annotate.store.models import Annotator, Campaign
from sqlmodel import Session

from pooljudge.errors import InputError

__all__ = ["SESSION_HOURS", "Credential", "NotAllowed", "authorize", "campaign_roles",
           "end_login_session", "grant_role", "list_grants", "login", "revoke_role",
           "start_login_session"]

SESSION_HOURS = 12
_SESSION_BYTES = 32


class NotAllowed(InputError):
    """The login is wrong, removed or expired, or lacks the role for that campaign."""


class Credential(NamedTuple):
    """A login: ``kind`` is ``token`` (a login link's) or ``session`` (a browser session's id)."""

    kind: str
    secret: str


def _person(session: Session, credential: Credential, *, lock: bool) -> Annotator | None:
    """The active person ``credential`` logs in as (an unexpired session), row-locked if
    ``lock``; None otherwise."""
    if not credential.secret:
        return None
    digest = hash_token(credential.secret)
    query = sa.select(Annotator).where(Annotator.active, Annotator.human)
    if credential.kind == "token":
        query = query.where(Annotator.token_hash == digest)
    elif credential.kind == "session":
        query = query.join(LoginSession, LoginSession.annotator_id == Annotator.id).where(
            LoginSession.id_hash == digest, LoginSession.expires_at > utcnow())
    else:
        return None
    if lock:
        query = query.with_for_update(of=Annotator)
    return session.execute(query).scalar_one_or_none()


def login(session: Session, *, credential: Credential) -> AnnotatorInfo | None:
    """The active person of ``credential``, in their own campaign; None when it logs in no one."""
    person = _person(session, credential, lock=False)
    return None if person is None else _info(session, person, person.campaign_id, person.role)


def campaign_roles(session: Session, *, annotator_id: int) -> dict[str, str]:
    """Campaign name -> this person's role there: their own campaign, then their grants."""
    own = session.execute(
        sa.select(Campaign.name, Annotator.role).join(Annotator, Annotator.campaign_id ==
                                                      Campaign.id)
        .where(Annotator.id == annotator_id)).all()
    granted = session.execute(
        sa.select(Campaign.name, CampaignRole.role)
        .join(CampaignRole, CampaignRole.campaign_id == Campaign.id)
        .where(CampaignRole.annotator_id == annotator_id).order_by(Campaign.name)).all()
    return {name: role for name, role in [*own, *granted]}


def authorize(session: Session, *, credential: Credential, campaign: str,
              roles: Collection[str]) -> AnnotatorInfo:
    """The person ``credential`` logs in as, holding one of ``roles`` in ``campaign``, checked
    and row-locked in the caller's transaction (call it first in every write). The record names
    ``campaign`` and the person's role there. NotAllowed otherwise (nothing is written)."""
    person = _person(session, credential, lock=True)
    if person is None:
        raise NotAllowed("this login is no longer valid (removed, logged out or expired): "
                         "nothing was saved")
    row = campaign_row(session, campaign)
    role = person.role if row.id == person.campaign_id else session.execute(
        sa.select(CampaignRole.role).where(CampaignRole.annotator_id == person.id,
                                           CampaignRole.campaign_id == row.id)).scalar()
    if role not in roles:
        raise NotAllowed(f"not allowed: this needs the role {' or '.join(sorted(roles))} in "
                         f"campaign {campaign!r}")
    return _info(session, person, row.id, role)


def grant_role(session: Session, *, annotator_id: int, campaign: str, role: str) -> None:
    """Grant the person ``annotator_id`` the ``role`` (admin or adjudicator) in ``campaign``
    (replacing an earlier grant there). InputError for another role, an unknown campaign, a
    person removed or not human (a label source), or their own campaign."""
    if role not in GRANTED_ROLES:
        raise InputError(f"a campaign role is one of {', '.join(GRANTED_ROLES)}, not {role!r}")
    row = campaign_row(session, campaign)
    person = _grantee(session, annotator_id)
    if person.campaign_id == row.id:
        raise InputError(f"cannot grant {person.name!r} a role in {campaign!r}: it is their own "
                         "campaign (their role there is the one they were added with)")
    session.execute(sa.delete(CampaignRole).where(CampaignRole.annotator_id == annotator_id,
                                                  CampaignRole.campaign_id == row.id))
    session.add(CampaignRole(annotator_id=annotator_id, campaign_id=row.id, role=role,
                             created_at=utcnow()))
    session.flush()


def revoke_role(session: Session, *, annotator_id: int, campaign: str) -> str:
    """Withdraw the person's granted role in ``campaign`` (their open pages of it are refused
    at their next write or page run); the role they held. InputError for an unknown campaign
    or when they hold no granted role there."""
    row = campaign_row(session, campaign)
    removed = session.execute(
        sa.delete(CampaignRole).where(CampaignRole.annotator_id == annotator_id,
                                      CampaignRole.campaign_id == row.id)
        .returning(CampaignRole.role)).scalar()
    if removed is None:
        person = session.get(Annotator, annotator_id)
        who = repr(person.name) if person is not None else "this person"
        raise InputError(f"{who} holds no granted role in campaign {campaign!r}")
    return str(removed)


def list_grants(session: Session, *, campaign: str) -> pd.DataFrame:
    """The roles granted in ``campaign`` to people of other campaigns: columns name, of (their
    own campaign), role; ordered by name, then own campaign. (A removal ends a person's grants.)
    """
    row = campaign_row(session, campaign)
    home = sa.orm.aliased(Campaign)
    query = (sa.select(Annotator.name, home.name, CampaignRole.role)
             .join(CampaignRole, CampaignRole.annotator_id == Annotator.id)
             .join(home, home.id == Annotator.campaign_id)
             .where(CampaignRole.campaign_id == row.id).order_by(Annotator.name, home.name))
    return pd.DataFrame(session.execute(query).all(), columns=["name", "of", "role"])


def _grantee(session: Session, annotator_id: int) -> Annotator:
    """The active human person ``annotator_id``, row-locked (grants to one person are
    serialised, as :func:`authorize` serialises writes); InputError otherwise."""
    person = session.execute(sa.select(Annotator).where(Annotator.id == annotator_id)
                             .with_for_update()).scalar_one_or_none()
    if person is None or not person.active or not person.human:
        raise InputError("a role can be granted only to an active person who logs in")
    return person


def start_login_session(session: Session, *, token: str, hours: float = SESSION_HOURS
                        ) -> str | None:
    """A new browser session for the person of ``token``: its random id (stored only as its
    SHA-256, expiring in ``hours``), or None for a token that logs in no one."""
    person = _person(session, Credential("token", token), lock=True)
    if person is None:
        return None
    secret = secrets.token_urlsafe(_SESSION_BYTES)
    now = utcnow()
    session.add(LoginSession(id_hash=hash_token(secret), annotator_id=person.id, created_at=now,
                             expires_at=now + timedelta(hours=hours)))
    session.execute(sa.delete(LoginSession).where(LoginSession.expires_at <= now))
    session.flush()
    return secret


def end_login_session(session: Session, *, session_id: str) -> None:
    """Log out: the session ``session_id`` stops working at once (nothing for an unknown id)."""
    session.execute(sa.delete(LoginSession).where(LoginSession.id_hash ==
                                                  hash_token(session_id)))


def end_sessions_of(session: Session, *, annotator_id: int) -> None:
    """Every browser session of a person (their removal)."""
    session.execute(sa.delete(LoginSession).where(LoginSession.annotator_id == annotator_id))


def _info(session: Session, person: Annotator, campaign_id: int, role: str) -> AnnotatorInfo:
    name = session.execute(sa.select(Campaign.name).where(Campaign.id == campaign_id)).scalar()
    return AnnotatorInfo(person.id, campaign_id, name, person.name, role)
