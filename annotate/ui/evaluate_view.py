"""Evaluation page: upload runs, score them against the campaign's current qrels.

The qrels are decided from the latest judgments by majority vote (ties: the lower label), as
``pooljudge export`` does by default. The table shows each run's mean scores with
``Judged@10`` (the share of the top 10 that has any judgment) beside them, so a run whose
documents were never judged is visible as such.
"""

from __future__ import annotations

import streamlit as st
from sqlalchemy import Engine

from annotate import store
from annotate.consensus import Policy, consensus_qrels
from annotate.db import session_scope
from annotate.records import CampaignInfo
from annotate.ui import keys
from annotate.ui.uploads import read_uploaded_runs
from metrics import DEFAULT_MEASURES, evaluate
from pooljudge.errors import InputError

__all__ = ["render_evaluation"]


def render_evaluation(engine: Engine, campaign: CampaignInfo) -> None:
    uploads = st.file_uploader("Run files (TREC format, plain or gzip)", accept_multiple_files=True,
                               key=keys.EVAL_RUNS)
    with session_scope(engine, readonly=True) as session:
        latest = store.judgments_frame(session, campaign=campaign.name, latest_only=True)
    if latest.empty:
        st.info("No judgments yet: there are no qrels to evaluate against.")
        return
    qrels, _ = consensus_qrels(latest, campaign.scale.values, Policy.parse("majority"))
    st.caption(f"Current qrels: {len(qrels)} judged pairs over {qrels['topic'].nunique()} topics "
               "(majority of the latest labels).")
    if not uploads:
        return
    try:
        runs = read_uploaded_runs(uploads)
        scores = evaluate(qrels, runs, DEFAULT_MEASURES, per_topic=False)
    except InputError as exc:
        st.error(str(exc))
        return
    table = scores.pivot_table(index="run", columns="measure", values="value", sort=False)
    st.dataframe(table[[m for m in DEFAULT_MEASURES if m in table.columns]],
                 column_config={m: st.column_config.NumberColumn(format="%.4f")
                                for m in DEFAULT_MEASURES})
    st.caption("Judged@10: share of each run's top 10 documents that were judged (mean over "
               "topics). Low values mean the scores rest on unjudged documents counted as "
               "not relevant.")
