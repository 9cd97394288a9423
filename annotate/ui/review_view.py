"""The Overview's review section: each topic's phase and its certificate, when it has one.

Shown only for a review campaign. Every value comes from the store's certificate rows
(:func:`pooljudge.annotate.store.certificates`); a certificate whose judgments changed since
it was written is marked stale. Topic ids render as dataframe cells (literal text).
"""

from __future__ import annotations

import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.records import GUARANTEE_RULES, CampaignInfo
from pooljudge.annotate.review import review_table
from pooljudge.annotate.store import session_scope
from sqlalchemy import Engine

__all__ = ["render_review"]

def render_review(engine: Engine, campaign: CampaignInfo) -> None:
    """The section, or nothing when ``campaign`` is not a review."""
    with session_scope(engine, readonly=True) as session:
        settings = store.review_settings(session, campaign_id=campaign.id)
        if settings is None:
            return
        states = store.review_topics(session, campaign_id=campaign.id)
        certificates = store.certificates(session, campaign_id=campaign.id)
    kind = "a guarantee" if settings.rule in GUARANTEE_RULES else "a heuristic (no guarantee)"
    st.subheader("Review and certificates")
    st.caption(f"Stopping rule {settings.rule} ({kind}): target recall {settings.target:g} at "
               f"confidence {1 - settings.alpha:g}. {len(certificates)} of {len(states)} "
               "topics certified. (In the progress above a certified topic counts as "
               "complete: its certificate stopped it.)")
    st.dataframe(review_table(states, certificates), hide_index=True)
