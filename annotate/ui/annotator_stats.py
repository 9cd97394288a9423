"""Per-annotator statistics for admins (Overview): judgments, pace, labels, agreement, drift.

One table (one row per participant: judgments, can't-judge answers, judged today, median
seconds of a first judgment, pairs left, pairs co-judged and the mean Cohen's kappa with the
others), a table of label shares, and a line chart of each person's share of relevant labels
per block of :data:`BLOCK` judgments in the order written (drift). Definitions:
:mod:`pooljudge.annotate.standing`. The figures read every judgment of the campaign, so they are
cached for :data:`TTL` seconds per campaign.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st
from pooljudge.annotate.records import CampaignInfo
from pooljudge.annotate.standing import AnnotatorStatistics, annotator_statistics
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui.tables import MISSING, show_table
from sqlalchemy import Engine

__all__ = ["BLOCK", "SUMMARY_LABELS", "TTL", "label_table", "render_annotator_stats"]

BLOCK = 25
TTL = 120
SUMMARY_LABELS = {"annotator": "Annotator", "role": "Role", "judgments": "Judgments",
                  "cannot_judge": "I can't judge this", "judged_today": "Today (UTC)",
                  "median_seconds": "Median seconds", "pairs_left": "Pairs left",
                  "co_judged": "Pairs co-judged", "kappa": "Mean kappa"}


@st.cache_data(ttl=TTL, show_spinner=False)
def _statistics(_engine: Engine, url: str, campaign: str) -> AnnotatorStatistics:
    """:func:`~pooljudge.annotate.standing.annotator_statistics` of ``campaign`` at ``url``
    (cached)."""
    with session_scope(_engine, readonly=True) as session:
        return annotator_statistics(session, campaign=campaign, block=BLOCK)


def label_table(labels: pd.DataFrame) -> pd.DataFrame:
    """One row per annotator, one column per label (``value · name``): its share."""
    names = labels.assign(column=labels["label"].astype(str) + " · " + labels["name"])
    order = list(dict.fromkeys(names["column"]))
    table = names.pivot(index="annotator", columns="column", values="share")
    return table[order].reset_index().rename_axis(columns=None)


def render_annotator_stats(engine: Engine, campaign: CampaignInfo) -> None:
    """The section "Annotators": summary table, label shares and the drift chart."""
    st.subheader("Annotators")
    stats = _statistics(engine, str(engine.url), campaign.name)
    if stats.summary.empty:
        st.info("Nobody to show yet: add people on the People page.")
        return
    show_table(stats.summary, SUMMARY_LABELS, {"median_seconds": "%.1f", "kappa": "%.2f"},
               helps={"median_seconds": f"median seconds to a first judgment ({MISSING}: no "
                                        "timed first judgment; imported labels have no time)",
                      "kappa": "mean Cohen's kappa with each other annotator, on the pairs "
                               f"both labelled ({MISSING}: undefined: no pair labelled with "
                               "another annotator yet, or one label only)"})
    st.caption("Label shares (of each person's labelled pairs)")
    shares = label_table(stats.labels)
    show_table(shares, SUMMARY_LABELS, column_config={
        c: st.column_config.ProgressColumn(c, min_value=0.0, max_value=1.0, format="percent")
        for c in shares.columns if c != "annotator"})
    if not stats.drift.empty:
        st.caption(f"Drift: share of relevant labels per {BLOCK} judgments, in the order "
                   f"written (figures at most {TTL // 60} minutes old)")
        drift = stats.drift.rename(columns={"block": "Block", "annotator": "Annotator",
                                            "relevant_share": "Share relevant"})
        st.line_chart(drift, x="Block", y="Share relevant", color="Annotator")
