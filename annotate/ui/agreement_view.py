"""Agreement dashboard (admins) and adjudication queue (adjudicators and admins).

Statistics come from :mod:`pooljudge.annotate.agreement` and :mod:`pooljudge.annotate.consensus`;
this module only
arranges them: the pairwise table with bootstrap confidence intervals, a heat map of Cohen's
kappa, the confusion matrix of any two annotators (both axes named with the annotator and the
label), the most disagreed pairs, and per annotator their labels and "I can't judge this"
answers (counted apart: never a label, never in a kappa). Names from uploads reach Markdown
only through :func:`~pooljudge.annotate.ui.render.md_escape`; in tables and charts they are plain
text.
"""

from __future__ import annotations

import zlib

import altair as alt
import pandas as pd
import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.agreement import agreement_report, annotator_counts
from pooljudge.annotate.consensus import adjudication_queue, disagreements
from pooljudge.annotate.records import CampaignInfo, LabelScale
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui import keys, session
from pooljudge.annotate.ui.key_gate import mount_gate
from pooljudge.annotate.ui.pair_panels import show_pair
from pooljudge.annotate.ui.render import caption_html, md_escape, text_html
from pooljudge.annotate.ui.tables import MISSING, show_table
from sqlalchemy import Engine

from pooljudge.errors import InputError, StorageError

__all__ = ["DISAGREEMENT_LABELS", "PAIR_LABELS", "confusion", "confusion_view", "kappa_heat",
           "render_adjudication", "render_agreement"]

# The pairwise table's columns (statistics: three decimals) and the disagreements' columns.
PAIR_LABELS = {"a": "Annotator A", "b": "Annotator B", "n": "Pairs", "topics": "Topics",
               "agreement": "Agreement", "cohen_kappa": "Cohen's kappa",
               "weighted_kappa_linear": "Weighted kappa (linear)",
               "weighted_kappa_quadratic": "Weighted kappa (quadratic)",
               "positive_agreement": "Positive agreement",
               "negative_agreement": "Negative agreement", "prevalence": "Prevalence",
               "kappa_ci_low": "Kappa CI low", "kappa_ci_high": "Kappa CI high"}
_FLOATS = ("agreement", "cohen_kappa", "weighted_kappa_linear", "weighted_kappa_quadratic",
           "positive_agreement", "negative_agreement", "prevalence", "kappa_ci_low",
           "kappa_ci_high")
DISAGREEMENT_LABELS = {"topic": "Topic", "doc": "Document", "votes": "Votes",
                       "n_votes": "Votes cast", "spread": "Spread", "adjudicator": "Adjudicator",
                       "adjudicated": "Adjudicated"}


def confusion(latest: pd.DataFrame, a: str, b: str, scale: tuple[int, ...]) -> pd.DataFrame:
    """Counts of (label by ``a``: rows, label by ``b``: columns) over the pairs both judged,
    on the full scale; the axes are the label values, named ``a`` and ``b``."""
    votes = latest.loc[latest["kind"] == "judgment", ["annotator", "topic", "doc", "label"]]
    both = votes[votes["annotator"] == a].merge(votes[votes["annotator"] == b],
                                                on=["topic", "doc"], suffixes=("_a", "_b"))
    # plain integer axes (a categorical axis cannot be read back from Arrow)
    table = (pd.crosstab(both["label_a"], both["label_b"])
             .reindex(index=list(scale), columns=list(scale), fill_value=0).astype("int64"))
    table.index.name, table.columns.name = a, b
    return table


def confusion_view(table: pd.DataFrame, scale: LabelScale) -> pd.DataFrame:
    """:func:`confusion` for the page: each row is ``<a>: <value> · <label name>``, each column
    ``<b>: <value> · <label name>``, and the corner says which annotator is which axis (a
    table's header shows only the row axis' name)."""
    names = {label.value: label.name for label in scale.labels}
    a, b = table.index.name, table.columns.name
    view = table.set_axis([f"{a}: {v} · {names.get(v, v)}" for v in table.index], axis=0)
    view = view.set_axis([f"{b}: {v} · {names.get(v, v)}" for v in table.columns], axis=1)
    view.index.name = f"rows: {a} · columns: {b}"
    return view


def kappa_heat(pairs: pd.DataFrame) -> pd.DataFrame:
    """The heat map's data: Cohen's kappa of every ordered pair (a, b) of annotators, both ways
    (columns a, b, cohen_kappa as float, NaN where undefined)."""
    heat = pd.concat([pairs[["a", "b", "cohen_kappa"]],
                      pairs[["b", "a", "cohen_kappa"]].set_axis(["a", "b", "cohen_kappa"], axis=1)],
                     ignore_index=True)
    return heat.astype({"cohen_kappa": "float64"})


def render_agreement(engine: Engine, campaign: CampaignInfo) -> None:
    with session_scope(engine, readonly=True) as session:
        latest = store.judgments_frame(session, campaign=campaign.name, latest_only=True)
        answers = store.cannot_judge_answers(session, campaign=campaign.name)
    votes = latest[latest["kind"] == "judgment"]
    if votes["annotator"].nunique() < 2:
        st.info("Agreement needs at least two annotators who judged the same pairs.")
        _per_annotator(annotator_counts(votes, answers))
        return
    scale = campaign.scale.values
    report = agreement_report(votes, scale, cannot_judge=answers)
    pairs = report.pairs
    _overall(report.overall)
    st.subheader("Pairwise (95% bootstrap intervals over topics)")
    st.caption(f"{MISSING}: undefined (a kappa when both used one label only; an interval "
               "with fewer than two topics judged by both).")
    show_table(pairs, PAIR_LABELS, dict.fromkeys(_FLOATS, "%.3f"))
    st.altair_chart(alt.Chart(kappa_heat(pairs)).mark_rect().encode(
        x=alt.X("a:N", title="Annotator A"), y=alt.Y("b:N", title="Annotator B"),
        color=alt.Color("cohen_kappa:Q", title="Cohen's kappa",
                        scale=alt.Scale(domain=[-1, 1], scheme="redblue")),
        tooltip=[alt.Tooltip("a", title="Annotator A"), alt.Tooltip("b", title="Annotator B"),
                 alt.Tooltip("cohen_kappa", title="Cohen's kappa")]).properties(height=260))
    names = sorted(votes["annotator"].unique())
    left, right = st.columns(2)
    a = left.selectbox("Annotator A", names, index=0)
    b = right.selectbox("Annotator B", names, index=1)
    st.subheader(f"Confusion matrix: {md_escape(a)} × {md_escape(b)}")
    st.dataframe(confusion_view(confusion(latest, a, b, scale), campaign.scale))
    st.subheader("Most disagreed pairs")
    st.caption(f"Adjudicator and Adjudicated: {MISSING} until an adjudicator decides the pair.")
    show_table(disagreements(latest, scale).head(50), DISAGREEMENT_LABELS)
    _per_annotator(report.annotators)


def _per_annotator(counts: pd.DataFrame | None) -> None:
    """Labels and "I can't judge this" answers per annotator (names as plain table text)."""
    if counts is None or counts.empty:
        return
    st.subheader("Per annotator")
    show_table(counts, {"annotator": "Annotator", "labels": "Labels",
                        "cannot_judge": "I can't judge this"},
               helps={"labels": "latest labels", "cannot_judge": "answers counted apart: "
                      "never a label, never in a kappa"})


_ALPHA_HELP = "Krippendorff's alpha over pairs judged by two or more annotators, level: "


def _overall(overall: dict[str, object]) -> None:
    """Campaign-wide coefficients as metric cards; an undefined one reads "undefined"."""
    st.subheader("Overall")
    cards = [("Judgments", overall["judgments"], None), ("Annotators", overall["annotators"], None),
             ("Pairs judged by 2+", overall["items_shared"], None),
             ("Fleiss' kappa", overall["fleiss_kappa"], overall["fleiss_kappa_note"]),
             ("α nominal", overall["krippendorff_alpha_nominal"], _ALPHA_HELP + "nominal"),
             ("α ordinal", overall["krippendorff_alpha_ordinal"], _ALPHA_HELP + "ordinal")]
    for column, (name, value, note) in zip(st.columns(len(cards)), cards, strict=True):
        shown = "undefined" if value is None else (f"{value:.3f}" if isinstance(value, float)
                                                    else f"{value:,}")
        column.metric(name, shown, help=note)


def render_adjudication(engine: Engine, campaign: CampaignInfo) -> None:
    """The next undecided disagreement of ``campaign``, with one button per label."""
    with session_scope(engine, readonly=True) as session:
        latest = store.judgments_frame(session, campaign=campaign.name, latest_only=True)
    queue = adjudication_queue(latest, campaign.scale.values) if len(latest) else pd.DataFrame()
    flash = st.session_state.pop(keys.FLASH, None)  # one line, so nothing below moves
    st.html(caption_html(f"{len(queue)} disagreements wait for a decision."
                         + (f" {flash}" if flash else "")))
    if queue.empty:
        st.session_state[_DECIDING] = None
        st.success("No disagreement waits for adjudication.", icon=":material/done_all:")
        return
    topic, doc = str(queue["topic"].iat[0]), str(queue["doc"].iat[0])
    st.session_state[_DECIDING] = (topic, doc)
    with session_scope(engine, readonly=True) as session:
        view = store.pair_by_key(session, campaign=campaign.name, topic=topic, doc=doc)
    st.html(caption_html(f"Votes: {queue['votes'].iat[0]}"))
    item = zlib.crc32(f"{topic}\t{doc}".encode())
    _mount_gate(campaign)
    show_pair(view, mark=item)
    rows = latest[(latest["topic"] == topic) & (latest["doc"] == doc)]
    comments = [f"{a}: {c}" for a, c in zip(rows["annotator"], rows["comment"], strict=True)
                if isinstance(c, str) and c]
    st.html(text_html("Comments:\n" + "\n".join(comments) if comments else "No comments."))
    columns = st.columns(len(campaign.scale.labels))
    for column, label in zip(columns, campaign.scale.labels, strict=True):
        digit = str(label.value)
        column.button(f"{label.value} · {md_escape(label.name)}", width="stretch",
                      key=keys.adjudicate_key(item, label.value),
                      shortcut=digit if len(digit) == 1 and digit not in "cr" else None,
                      on_click=_on_decide, args=(engine, campaign.name, topic, doc, label.value))


_DECIDING = "pj_deciding"
ADJUDICATORS = ("adjudicator", "admin")


def _mount_gate(campaign: CampaignInfo) -> None:
    """The judging pane's gate over the label digits (:mod:`pooljudge.annotate.ui.key_gate`):
    a held or doubled digit decides once, only for the pair on screen, after the dwell."""
    digits = {str(lab.value): "adjudicate" for lab in campaign.scale.labels
              if len(str(lab.value)) == 1 and str(lab.value) not in "cr"}
    mount_gate(None, min_dwell_ms=campaign.min_dwell_ms, actions=digits)


def _on_decide(engine: Engine, campaign: str, topic: str, doc: str, label: int) -> None:
    """Store the decision as an adjudication, once: a press for a pair no longer shown is stale.

    The login is re-checked in the write's transaction (adjudicator or admin of ``campaign``).
    A person deciding in a campaign other than their own is recorded as the label source
    ``name@their-campaign`` (they are no annotator there)."""
    state = st.session_state
    if state.get(_DECIDING) != (topic, doc):
        return
    state[_DECIDING] = None
    try:
        with session.write(engine, campaign=campaign, allowed=ADJUDICATORS) as (db, me):
            home = state[keys.USER].campaign_name
            name = me.name if home == campaign else f"{me.name}@{home}"
            frame = pd.DataFrame({"annotator": [name], "topic": [topic], "doc": [doc],
                                  "label": [label], "kind": ["adjudication"],
                                  "source": ["human"]})
            store.import_judgments(db, campaign=campaign, frame=frame,
                                   label_sources=() if home == campaign else (name,))
    except (InputError, StorageError) as exc:
        state[keys.FLASH] = f"Not saved: {exc}"
    else:
        state[keys.FLASH] = f"Decided {label} for topic {topic}, document {doc}."
