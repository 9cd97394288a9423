"""Tables of revision 0011: rights per campaign (``campaign_role``) and browser logins
(``login_session``). See :mod:`pooljudge.annotate.store.access` for their invariants."""

from __future__ import annotations

from datetime import datetime

from pooljudge.annotate.records import GRANTED_ROLES
from sqlalchemy import CheckConstraint, Column, DateTime, UniqueConstraint
from sqlmodel import Field, SQLModel

__all__ = ["GRANTED_ROLES", "CampaignRole", "LoginSession"]


class CampaignRole(SQLModel, table=True):
    """The person logging in as ``annotator_id`` also holds ``role`` in ``campaign_id``."""

    __tablename__ = "campaign_role"
    __table_args__ = (
        UniqueConstraint("annotator_id", "campaign_id", name="uq_campaign_role"),
        CheckConstraint("role IN ('adjudicator', 'admin')", name="ck_campaign_role_role"),
    )

    id: int | None = Field(default=None, primary_key=True)
    annotator_id: int = Field(foreign_key="annotator.id")
    campaign_id: int = Field(foreign_key="campaign.id", index=True)
    role: str
    created_at: datetime = Field(sa_column=Column(DateTime(), nullable=False))


class LoginSession(SQLModel, table=True):
    """A browser's login: the SHA-256 of the cookie's random id, whose login, until when."""

    __tablename__ = "login_session"

    id_hash: str = Field(primary_key=True)
    annotator_id: int = Field(foreign_key="annotator.id", index=True)
    created_at: datetime = Field(sa_column=Column(DateTime(), nullable=False))
    expires_at: datetime = Field(sa_column=Column(DateTime(), nullable=False))
