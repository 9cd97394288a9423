"""The evaluation page's views of parsed runs: the sections of ``pooljudge report``.

Every number comes from :func:`pooljudge.metrics.report.collect` and every view from
:func:`pooljudge.metrics.report.sections` (the same DataFrames and matplotlib figures the HTML
report
embeds); this module only lays them out in Streamlit. Text from uploads (run names, topic ids)
reaches the page only inside dataframes (shown as plain text) or through
:func:`~pooljudge.annotate.ui.render.md_escape` (warnings, captions); plot labels are escaped by
:mod:`pooljudge.metrics.report` itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import streamlit as st
from pooljudge.annotate.ui.render import md_escape
from pooljudge.annotate.ui.tables import MISSING
from pooljudge.metrics.report import REPORT_MEASURES, ReportData, collect, sections
from pooljudge.metrics.report_html import Section

from pooljudge.errors import InputError

__all__ = ["DEFAULT_POOL_DEPTH", "POOL_DEPTH", "render_run_views", "render_section"]

POOL_DEPTH = "eval_pool_depth"          # widget key: depth of the pools of the bias table
DEFAULT_POOL_DEPTH = 10                  # the new-campaign page's default pool depth


def render_run_views(qrels: pd.DataFrame, runs: Mapping[str, pd.DataFrame], *,
                     title: str = "Evaluation report", meta: Sequence[str] = ()) -> None:
    """Score ``runs`` (name -> ``topic, doc, score`` frame) against ``qrels`` and show the
    report's views: warnings, then means, RBP intervals, pool bias (depth chosen here; 0 leaves
    the table out, as omitting ``--pool-depth`` does), precision–recall curves and per-topic
    scores. An InputError from scoring is shown with st.error instead."""
    depth = st.number_input(
        "Pool depth for the bias table (0: no bias table)", min_value=0,
        value=DEFAULT_POOL_DEPTH, step=1, key=POOL_DEPTH,
        help="Leave one run out: each run scored against the qrels cut to the depth-K pool of "
             "all runs, then to the pool of the other runs (pooljudge report --pool-depth).")
    try:
        with st.spinner("Scoring the runs…"):
            data = collect(qrels, runs, REPORT_MEASURES, pool_depth=int(depth) or None,
                           title=title, meta=meta)
    except InputError as exc:
        st.error(md_escape(str(exc)))
        return
    _render_header(data)
    for section in sections(data):
        render_section(section)


def _render_header(data: ReportData) -> None:
    """The meta line (topics, runs, pool depth) and the warnings, one box each."""
    st.caption(md_escape("; ".join(data.meta)))
    if data.warnings:
        st.subheader("Warnings", anchor="eval-warnings")
        for warning in data.warnings:
            st.warning(md_escape(warning))


def render_section(section: Section) -> None:
    """One report section: title, note, tables (folded in expanders when ``collapsed``), then
    figures, in the order the HTML report uses."""
    st.subheader(md_escape(section.title), anchor=f"eval-{section.key}")
    if section.note:
        st.caption(md_escape(section.note))
    for caption, frame in section.tables.items():
        if section.collapsed:
            with st.expander(md_escape(caption)):
                _table(frame)
        else:
            if caption:
                st.markdown(f"**{md_escape(caption)}**")
            _table(frame)
    for caption, figure in section.figures.items():
        st.pyplot(figure, clear_figure=False)
        st.caption(md_escape(caption))


def _table(frame: pd.DataFrame) -> None:
    """A dataframe whose float columns show four decimals (the report's format)."""
    floats = [c for c in frame.columns if pd.api.types.is_float_dtype(frame[c])]
    st.dataframe(frame, placeholder=MISSING, column_config={
        c: st.column_config.NumberColumn(format="%.4f") for c in floats})
