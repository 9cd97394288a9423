"""Evaluation page: upload runs, score them against the campaign's current qrels.

The qrels are decided from the latest judgments by majority vote (ties: the lower label), as
``pooljudge export`` does by default. The page then shows the views of ``pooljudge report``
(:mod:`pooljudge.annotate.ui.evaluate_panels`): means with the unjudged share of the top 10 and
condensed
variants, RBP intervals, the pool-bias table, precision–recall curves, per-topic scores and
warnings. A run file that cannot be read is named with its line (``path:line: message``).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.consensus import Policy, consensus_qrels
from pooljudge.annotate.records import CampaignInfo
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui.evaluate_panels import render_run_views
from pooljudge.annotate.ui.render import md_escape
from pooljudge.annotate.ui.uploads import read_uploaded_runs
from sqlalchemy import Engine

from pooljudge.errors import InputError

__all__ = ["current_qrels", "render_evaluation"]


def current_qrels(engine: Engine, campaign: CampaignInfo) -> pd.DataFrame | None:
    """The campaign's qrels (``topic, doc, label``) by majority of the latest labels, ties to
    the lower label; None before the first judgment."""
    with session_scope(engine, readonly=True) as session:
        latest = store.judgments_frame(session, campaign=campaign.name, latest_only=True)
    if latest.empty:
        return None
    return consensus_qrels(latest, campaign.scale.values, Policy.parse("majority"))[0]


def render_evaluation(engine: Engine, campaign: CampaignInfo) -> None:
    uploads = st.file_uploader("Run files (TREC format, plain or gzip)", accept_multiple_files=True,
                               key=keys.EVAL_RUNS)
    qrels = current_qrels(engine, campaign)
    if qrels is None:
        st.info("No judgments yet: there are no qrels to evaluate against.")
        return
    st.caption(f"Current qrels: {len(qrels)} judged pairs over {qrels['topic'].nunique()} topics "
               "(majority of the latest labels).")
    if not uploads:
        return
    try:
        runs = read_uploaded_runs(uploads)
    except InputError as exc:
        st.error(md_escape(str(exc)))
        return
    render_run_views(qrels, runs, title=f"Evaluation of campaign {campaign.name}",
                     meta=(f"campaign {campaign.name}", "qrels: majority of the latest labels"))
