"""Guidelines first: who has acknowledged which version of a campaign's guidelines.

A version is named by the SHA-256 of the guidelines' text (UTF-8). An annotator *needs* the
guidelines while the campaign has some (text that is not blank) and no ``guidelines_ack`` row
holds the annotator with the current text's SHA-256; :func:`set_guidelines` changes the text, so
every annotator must acknowledge again. An acknowledgement names the version that was shown:
acknowledging text that was changed meanwhile does not acknowledge the new text.
"""

from __future__ import annotations

import hashlib
import re

import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate.store.common import annotator_row, campaign_row, run, utcnow
from pooljudge.annotate.store.models import Annotator, Campaign, GuidelinesAck
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session

from pooljudge.errors import InputError

__all__ = ["acknowledge_guidelines", "acknowledgements", "guidelines_sha256",
           "needs_guidelines", "set_guidelines"]

_ACK, _A, _C = GuidelinesAck.__table__, Annotator.__table__, Campaign.__table__
_HEX64 = re.compile(r"[0-9a-f]{64}")


def guidelines_sha256(text: str) -> str:
    """The SHA-256 (hex) of the guidelines ``text`` encoded as UTF-8: the version's name."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _insert(dialect) -> sa.Insert:
    """``INSERT … ON CONFLICT DO NOTHING`` of one acknowledgement (binds aid, sha, at)."""
    return dialect.insert(_ACK).values(
        annotator_id=sa.bindparam("aid"), guidelines_sha256=sa.bindparam("sha"),
        acked_at=sa.bindparam("at")).on_conflict_do_nothing().returning(_ACK.c.annotator_id)


_INSERT = {"sqlite": _insert(sqlite), "postgresql": _insert(postgresql)}
_GUIDELINES_OF = (sa.select(_C.c.guidelines).join(_A, _A.c.campaign_id == _C.c.id)
                  .where(_A.c.id == sa.bindparam("aid")))
_ACKED = sa.select(sa.exists().where(_ACK.c.annotator_id == sa.bindparam("aid"),
                                     _ACK.c.guidelines_sha256 == sa.bindparam("sha")))


def acknowledge_guidelines(session: Session, *, annotator_id: int, sha256: str) -> bool:
    """Record that the active annotator read the guidelines of SHA-256 ``sha256``.

    Idempotent: True when a row was added, False when it existed already (a second press, or
    another tab). InputError for an unknown or removed annotator, or a malformed SHA-256.
    """
    if not isinstance(sha256, str) or not _HEX64.fullmatch(sha256):
        raise InputError(f"not a SHA-256 in hex: {sha256!r}")
    annotator_row(session, annotator_id)
    statement = _INSERT[session.get_bind().dialect.name]
    return run(session, statement, aid=annotator_id, sha=sha256, at=utcnow()).first() is not None


def needs_guidelines(session: Session, *, annotator_id: int) -> bool:
    """Whether the annotator must read the guidelines first: their campaign has guidelines
    (not blank) and they have not acknowledged this text. Two indexed look-ups; False for an
    annotator that does not exist (the login check refuses them anyway)."""
    text = run(session, _GUIDELINES_OF, aid=annotator_id).scalar_one_or_none()
    if text is None or not text.strip():
        return False
    return not run(session, _ACKED, aid=annotator_id, sha=guidelines_sha256(text)).scalar()


def set_guidelines(session: Session, *, campaign: str, text: str) -> str:
    """Replace ``campaign``'s guidelines with ``text``; the new SHA-256.

    Every annotator must acknowledge the new text before judging again (unless it is blank, or
    the very text acknowledged before). Earlier acknowledgements stay as history. InputError
    for an unknown campaign or text that is not a string.
    """
    if not isinstance(text, str):
        raise InputError(f"guidelines must be text, got {type(text).__name__}")
    row = campaign_row(session, campaign)
    row.guidelines = text
    session.flush()
    return guidelines_sha256(text)


def acknowledgements(session: Session, *, campaign: str) -> pd.DataFrame:
    """The campaign's active participants and whether they acknowledged its current guidelines:
    columns ``annotator, role, acknowledged`` (bool), ``acked_at`` (naive UTC or NaT), by name."""
    row = campaign_row(session, campaign)
    acked = (sa.select(_ACK.c.annotator_id, _ACK.c.acked_at)
             .where(_ACK.c.guidelines_sha256 == guidelines_sha256(row.guidelines)).subquery())
    rows = session.execute(
        sa.select(_A.c.name, _A.c.role, acked.c.acked_at)
        .outerjoin(acked, acked.c.annotator_id == _A.c.id)
        .where(_A.c.campaign_id == row.id, _A.c.human, _A.c.active).order_by(_A.c.name)).all()
    frame = pd.DataFrame(rows, columns=["annotator", "role", "acked_at"])
    frame["acked_at"] = pd.to_datetime(frame["acked_at"])
    frame.insert(2, "acknowledged", frame["acked_at"].notna())
    return frame
