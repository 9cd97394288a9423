"""Admin pages: which campaign, and its overview (progress, pace, time left); the export is
:mod:`pooljudge.annotate.ui.export_view`.

Rates use the store's judgment times: judgments per hour over the last 24 hours (by hour, for
the chart). The time left is the one estimate the judging page shows too
(:func:`pooljudge.annotate.store.time_left`: judgments still needed / first judgments of all
annotators in the last active hour), with the same words (:data:`~pooljudge.annotate.store.PACE`).
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import timedelta

import pandas as pd
import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.records import CampaignInfo
from pooljudge.annotate.store import PACE, session_scope, time_left
from pooljudge.annotate.ui import keys, review_view, session
from pooljudge.annotate.ui.annotator_stats import render_annotator_stats
from pooljudge.annotate.ui.judge_stats import time_left_text
from pooljudge.annotate.ui.render import duration_text, md_escape
from pooljudge.annotate.ui.tables import show_table
from sqlalchemy import Engine

__all__ = ["hourly_rates", "pick_campaign", "render_overview"]


def pick_campaign(engine: Engine, title: str, *, allowed: Collection[str] = ("admin",)
                  ) -> CampaignInfo:
    """The campaign this page works on, and the page's heading naming it.

    Offered (a sidebar selector): only the campaigns where the logged-in person holds one of
    ``allowed``. Chosen: ``?campaign=`` of the address, else the one picked on an earlier page,
    else their own campaign; the choice is written back to the address, so it survives
    navigation, reload and bookmarks. A campaign they do not hold (typed into the address) is
    refused, and the page stops."""
    names = [name for name, role in session.roles().items() if role in allowed]
    state = st.session_state
    asked = st.query_params.get("campaign") or state.get(keys.CAMPAIGN)
    if asked is not None and asked not in names:
        st.title(title)
        st.error(md_escape(f"Not allowed: you are not {' or '.join(allowed)} of campaign "
                           f"{asked!r}."), icon=":material/block:")
        st.stop()
    if not names:
        st.title(title)
        st.error("Not allowed: you hold this role in no campaign.", icon=":material/block:")
        st.stop()
    state[keys.CAMPAIGN_PICKER] = asked or names[0]
    name = st.sidebar.selectbox("Campaign", names, key=keys.CAMPAIGN_PICKER,
                                on_change=_picked)
    state[keys.CAMPAIGN] = name
    if st.query_params.get("campaign") != name:
        st.query_params["campaign"] = name
    st.title(md_escape(f"{title} · {name}"))
    with session_scope(engine, readonly=True) as db:
        return store.get_campaign(db, name=name)


def _picked() -> None:
    """The selector changed: the new campaign goes into the address (and the session)."""
    name = st.session_state[keys.CAMPAIGN_PICKER]
    st.session_state[keys.CAMPAIGN] = name
    st.query_params["campaign"] = name


def hourly_rates(times: pd.DataFrame, now: pd.Timestamp, hours: int = 24) -> pd.DataFrame:
    """Judgments per hour and annotator over the last ``hours`` hours: columns hour, annotator,
    judgments (hours without judgments are absent)."""
    if times.empty:
        return pd.DataFrame(columns=["hour", "annotator", "judgments"])
    created = pd.to_datetime(times["created_at"])
    recent = times.loc[created >= now - timedelta(hours=hours)].assign(
        hour=created.dt.floor("h"))
    return (recent.groupby(["hour", "annotator"]).size().rename("judgments").reset_index())


_TOPIC_LABELS = {"topic": "Topic", "pairs": "Pairs", "judgments_needed": "Judgments needed",
                 "judgments_done": "Judgments done", "share": "Done"}


def render_overview(engine: Engine, campaign: CampaignInfo) -> None:
    with session_scope(engine, readonly=True) as session:
        topics = store.progress(session, campaign=campaign.name)
        people = store.annotator_progress(session, campaign=campaign.name)
        times = store.judgment_times(session, campaign=campaign.name)
        needed, done = int(topics["judgments_needed"].sum()), int(topics["judgments_done"].sum())
        left = time_left(session, campaign=campaign.name, remaining=needed - done)
    now = pd.Timestamp(pd.to_datetime(times["created_at"]).max()) if len(times) else None
    a, b, c, d = st.columns(4)
    a.metric("Judgments done", f"{done} / {needed}")
    b.metric("Complete", f"{done / needed:.0%}" if needed else "–")
    c.metric("Last active hour", left.last_hour,
             help="judgments of all annotators in the last hour with one")
    d.metric("Time left", duration_text(left.hours), help=PACE)
    st.caption(time_left_text(left) + ".")
    review_view.render_review(engine, campaign)
    st.subheader("By topic")
    shares = topics.assign(share=topics["judgments_done"] / topics["judgments_needed"])
    show_table(shares, _TOPIC_LABELS, column_config={"Done": st.column_config.ProgressColumn(
        "Done", min_value=0.0, max_value=1.0, format="percent")})
    st.subheader("By annotator")
    st.caption("Labelled pairs per annotator (rows) and topic (columns).")
    show_table(people.pivot_table(index="annotator", columns="topic", values="judged",
                                  fill_value=0, margins=True, margins_name="Total",
                                  aggfunc="sum"), {"annotator": "Annotator"}, hide_index=False)
    if now is not None:
        st.subheader("Judgments per hour (last 24 hours of activity)")
        rates = hourly_rates(times, now)
        st.bar_chart(rates.rename(columns={"annotator": "Annotator"}), x="hour", y="judgments",
                     color="Annotator", x_label="Hour", y_label="Judgments")
    render_annotator_stats(engine, campaign)
