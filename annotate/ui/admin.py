"""Admin pages: which campaign, its overview (progress, pace, time left) and the export.

Rates use the store's judgment times: judgments per hour over the last 24 hours (by hour, for
the chart). The time left is the one estimate the judging page shows too
(:func:`pooljudge.annotate.store.time_left`: judgments still needed / first judgments of all
annotators in the last active hour), with the same words (:data:`~pooljudge.annotate.store.PACE`).
"""

from __future__ import annotations

import io
from collections.abc import Collection
from datetime import timedelta

import pandas as pd
import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.campaigns import sampled_export
from pooljudge.annotate.consensus import Policy, consensus_qrels
from pooljudge.annotate.consensus_policies import PLAIN_POLICIES
from pooljudge.annotate.records import CampaignInfo
from pooljudge.annotate.store import PACE, session_scope, time_left
from pooljudge.annotate.ui import keys, review_view, session
from pooljudge.annotate.ui.annotator_stats import render_annotator_stats
from pooljudge.annotate.ui.judge_stats import time_left_text
from pooljudge.annotate.ui.render import duration_text, md_escape
from sqlalchemy import Engine

from pooljudge.formats.prels import prels_bytes
from pooljudge.formats.trec import qrels_bytes, write_cannot_judge

__all__ = ["hourly_rates", "pick_campaign", "render_export", "render_overview"]


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
    c.metric("Judgments in the last active hour", left.last_hour)
    d.metric(f"Time left {PACE}", duration_text(left.hours))
    st.caption(time_left_text(left) + ".")
    review_view.render_review(engine, campaign)
    st.subheader("By topic")
    st.dataframe(topics.assign(share=topics["judgments_done"] / topics["judgments_needed"]),
                 hide_index=True, column_config={"share": st.column_config.ProgressColumn(
                     "done", min_value=0.0, max_value=1.0, format="percent")})
    st.subheader("By annotator")
    st.dataframe(people.pivot_table(index="annotator", columns="topic", values="judged",
                                    fill_value=0, margins=True, margins_name="total",
                                    aggfunc="sum"))
    if now is not None:
        st.subheader("Judgments per hour (last 24 hours of activity)")
        rates = hourly_rates(times, now)
        st.bar_chart(rates, x="hour", y="judgments", color="annotator")
    render_annotator_stats(engine, campaign)


def render_export(engine: Engine, campaign: CampaignInfo) -> None:
    """Qrels by a chosen policy, their provenance, every judgment row, and the "I can't judge
    this" answers (never in the qrels: counted, and offered as their own TSV)."""
    with session_scope(engine, readonly=True) as session:
        latest = store.judgments_frame(session, campaign=campaign.name, latest_only=True)
        every = store.judgments_frame(session, campaign=campaign.name, latest_only=False)
        answers = store.cannot_judge_answers(session, campaign=campaign.name)
        sample = store.pool_sample(session, campaign=campaign.name)
    if latest.empty:
        st.info("No judgments yet: nothing to export.")
        _answers_download(campaign, answers)
        return
    choice = st.selectbox("Policy for one label per pair", PLAIN_POLICIES, key=keys.EXPORT_POLICY,
                          help="majority (ties: lower label), adjudicated (an adjudicator's "
                               "label, else majority), mean (rounded), max, min")
    qrels, provenance = consensus_qrels(latest, campaign.scale.values, Policy.parse(choice))
    sampled = None if sample is None else sampled_export(qrels, sample)
    if sampled is not None:
        qrels = sampled.qrels
    answered = (f"; {len(answers)} \"I can't judge this\" answers, not in the qrels"
                if campaign.cannot_judge or len(answers) else "")
    judged = len(qrels) if sampled is None else int((qrels["label"] >= 0).sum())
    st.caption(f"{judged} judged pairs in the qrels; {len(every)} judgment rows in "
               f"total{answered}.")
    qrels_text = qrels_bytes(qrels)
    a, b, c = st.columns(3)
    a.download_button("Download qrels", qrels_text, file_name=f"{campaign.name}.qrels",
                      mime="text/plain", key=keys.DOWNLOAD_QRELS, on_click="ignore")
    b.download_button("Download provenance (TSV)", _tsv(provenance),
                      file_name=f"{campaign.name}.provenance.tsv", mime="text/tab-separated-values",
                      key=keys.DOWNLOAD_PROVENANCE, on_click="ignore")
    c.download_button("Download every judgment row (TSV)", _tsv(every),
                      file_name=f"{campaign.name}.judgments.tsv", mime="text/tab-separated-values",
                      key=keys.DOWNLOAD_JUDGMENTS, on_click="ignore")
    _answers_download(campaign, answers)
    if sampled is not None:
        _prels_download(campaign, sampled.prels, len(qrels) - judged)
    st.dataframe(provenance, hide_index=True)


DOWNLOAD_PRELS = "download_prels"


def _prels_download(campaign: CampaignInfo, prels: pd.DataFrame, unsampled: int) -> None:
    """A sampled campaign's prels (what ``pooljudge export --prels`` writes) and a word on the
    qrels' -1 lines (pooled but not sampled: trec_eval's infAP convention)."""
    st.caption(f"Sampled pool: the qrels also hold {unsampled} pooled-but-unsampled pairs with "
               "label -1; the prels (every pooled pair with its stratum and inclusion "
               "probability) feed the estimators: pooljudge eval --prels FILE.")
    st.download_button("Download prels (TSV)", prels_bytes(prels),
                       file_name=f"{campaign.name}.prels.tsv", mime="text/tab-separated-values",
                       key=DOWNLOAD_PRELS, on_click="ignore")


DOWNLOAD_CANNOT_JUDGE = "download_cannot_judge"


def _answers_download(campaign: CampaignInfo, answers: pd.DataFrame) -> None:
    """The "I can't judge this" answers as ``pooljudge export --cannot-judge`` writes them
    (topic, doc, annotator, reason); nothing when there are none."""
    if answers.empty:
        return
    text = io.StringIO()
    write_cannot_judge(answers, text)
    st.download_button(f"Download the {len(answers)} \"I can't judge this\" answers (TSV)",
                       text.getvalue(), file_name=f"{campaign.name}.cannot_judge.tsv",
                       mime="text/tab-separated-values", key=DOWNLOAD_CANNOT_JUDGE,
                       on_click="ignore")


def _tsv(frame: pd.DataFrame) -> str:
    buffer = io.StringIO()
    frame.to_csv(buffer, sep="\t", index=False, lineterminator="\n")
    return buffer.getvalue()
