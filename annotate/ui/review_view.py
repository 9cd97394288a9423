"""The Overview's review section: each topic's phase and its certificate, when it has one.

Shown only for a review campaign. Every value comes from the store's certificate rows
(:func:`pooljudge.annotate.store.certificates`); a certificate whose judgments changed since
it was written is marked stale. Topic ids render as dataframe cells (literal text).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.records import CampaignInfo
from pooljudge.annotate.review_records import ReviewCertificate, ReviewTopicState
from pooljudge.annotate.store import session_scope
from sqlalchemy import Engine

__all__ = ["render_review", "review_table"]

_PHASE = {"rank": "ranked review", "sample": "random sample", "certified": "certified"}


def review_table(states: list[ReviewTopicState], certificates: list[ReviewCertificate]
                 ) -> pd.DataFrame:
    """One row per topic: phase, then the certificate's figures (empty without one)."""
    by_topic = {c.topic: c for c in certificates}
    rows = []
    for state in states:
        c = by_topic.get(state.topic)
        row = {"topic": state.topic, "phase": _PHASE[state.phase], "documents": state.n_docs}
        if c is not None:
            row |= {"reviewed": c.reviewed, "relevant found": c.relevant_found,
                    "sample": c.sample_size, "sample relevant": c.sample_relevant,
                    "relevant remaining": c.remaining,
                    "interval": (None if c.remaining_low is None
                                 else f"{c.remaining_low}–{c.remaining_high}"),
                    "p-value": c.p_value, "judgments": len(c.judgments),
                    "stale": c.stale}
        rows.append(row)
    return pd.DataFrame(rows)


def render_review(engine: Engine, campaign: CampaignInfo) -> None:
    """The section, or nothing when ``campaign`` is not a review."""
    with session_scope(engine, readonly=True) as session:
        settings = store.review_settings(session, campaign_id=campaign.id)
        if settings is None:
            return
        states = store.review_topics(session, campaign_id=campaign.id)
        certificates = store.certificates(session, campaign_id=campaign.id)
    kind = "a guarantee" if settings.rule != "knee" else "a heuristic (no guarantee)"
    st.subheader("Review and certificates")
    st.caption(f"Stopping rule {settings.rule} ({kind}): target recall {settings.target:g} at "
               f"confidence {1 - settings.alpha:g}. {len(certificates)} of {len(states)} "
               "topics certified.")
    st.dataframe(review_table(states, certificates), hide_index=True)
