"""Start a test past the guidelines gate: acknowledge the current guidelines for a login.

Tests that are not about the gate (:mod:`pooljudge.annotate.ui.guidelines`) open the judging page
as a
person who has already read the guidelines, so they keep testing what they did before the
gate existed; the gate's own tests open pages without it.
"""

from __future__ import annotations

from pooljudge.annotate import store
from pooljudge.annotate.store import session_scope
from sqlalchemy import Engine

__all__ = ["acknowledge_for"]


def acknowledge_for(engine: Engine, token: str) -> None:
    """Acknowledge the current guidelines of the person logged in by ``token`` (nothing for a
    token that logs nobody in, or a campaign without guidelines)."""
    with session_scope(engine) as session:
        person = store.authenticate(session, token=token)
        if person is None:
            return
        text = store.get_campaign(session, name=person.campaign_name).guidelines
        if text.strip():
            store.acknowledge_guidelines(session, annotator_id=person.id,
                                         sha256=store.guidelines_sha256(text))
