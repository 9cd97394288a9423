"""Export page (admins): qrels by a chosen policy, the rule that settled each pair, the
undecided pairs, their provenance, every judgment row, and the "I can't judge this" answers.

Before any download the page states how many judged pairs each rule settled (the counts of
:func:`pooljudge.annotate.consensus.settle`, as ``pooljudge export`` prints them). Pairs whose
most frequent labels tie (with the adjudicated policy: and that no adjudicator decided) are
*undecided*: they are listed (topic, document, votes), and the admin chooses, before
downloading, whether the tie rule settles them (lower label, as ``--ties lower``, the default;
or higher) or they stay out of the qrels (``--undecided skip``); a link leads to the Adjudicate
page to decide them first.
"""

from __future__ import annotations

import io

import pandas as pd
import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.campaigns import sampled_export
from pooljudge.annotate.consensus import Policy, Settlement, settle
from pooljudge.annotate.consensus_policies import DEFAULT_TIES, PLAIN_POLICIES
from pooljudge.annotate.records import CampaignInfo
from pooljudge.annotate.settling import summary_text
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui.routes import PAGES
from pooljudge.annotate.ui.tables import MISSING, show_table
from sqlalchemy import Engine

from pooljudge.formats.prels import prels_bytes
from pooljudge.formats.trec import qrels_bytes, write_cannot_judge

__all__ = ["UNDECIDED_CHOICES", "render_export"]

# What to do with the undecided pairs: the choice's words -> the policy's tie rule.
UNDECIDED_CHOICES = {"settle them by the lower label (the tie rule)": "lower",
                     "settle them by the higher label": "higher",
                     "leave them out of the qrels": "skip"}
_TIES_POLICIES = ("majority", "adjudicated")
_PROVENANCE_LABELS = {"topic": "Topic", "doc": "Document", "votes": "Votes",
                      "n_votes": "Votes cast", "decided": "Decided", "label": "Label",
                      "rule": "Rule", "source": "Source"}


def render_export(engine: Engine, campaign: CampaignInfo) -> None:
    """The page's body for ``campaign`` (its heading is drawn by ``admin.pick_campaign``)."""
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
    scale = campaign.scale.values
    settlement = settle(latest, scale, Policy.parse(choice, ties=DEFAULT_TIES))
    if len(settlement.undecided):
        ties = _undecided(campaign, settlement, choice)
        if ties != DEFAULT_TIES:
            settlement = settle(latest, scale, Policy.parse(choice, ties=ties))
    qrels, provenance = settlement.qrels, settlement.provenance
    sampled = None if sample is None else sampled_export(qrels, sample)
    if sampled is not None:
        qrels = sampled.qrels
    answered = (f"; {len(answers)} \"I can't judge this\" answers, not in the qrels"
                if campaign.cannot_judge or len(answers) else "")
    judged = len(qrels) if sampled is None else int((qrels["label"] >= 0).sum())
    st.caption(f"{judged} judged pairs in the qrels; {len(every)} judgment rows in "
               f"total{answered}.")
    st.caption(f"Pairs settled by each rule: {summary_text(settlement.rules)}.")
    _downloads(campaign, qrels, provenance, every)
    _answers_download(campaign, answers)
    if sampled is not None:
        _prels_download(campaign, sampled.prels, len(qrels) - judged)
    st.subheader("Provenance")
    show_table(provenance, _PROVENANCE_LABELS,
               helps={"label": f"the label written to the qrels ({MISSING}: left out of the "
                               "qrels)", "decided": f"the policy's label ({MISSING}: none)"})


def _undecided(campaign: CampaignInfo, settlement: Settlement, policy: str) -> str:
    """The undecided pairs: a warning, their table, a link to Adjudicate and the choice of what
    to do with them; returns the tie rule chosen (``lower``, ``higher`` or ``skip``)."""
    count = len(settlement.undecided)
    st.warning(f"{count} undecided pairs: their most frequent labels tie, so the votes do not "
               "decide them. Choose below what the qrels do with them, or decide them on the "
               "Adjudicate page first"
               + (" (then export with the adjudicated policy)." if policy != "adjudicated"
                  else "."),
               icon=":material/balance:")
    show_table(settlement.undecided, _PROVENANCE_LABELS)
    st.page_link(str(PAGES / "adjudicate.py"), label="Adjudicate them",
                 icon=":material/balance:", query_params={"campaign": campaign.name})
    picked = st.radio(f"The {count} undecided pairs", list(UNDECIDED_CHOICES),
                      key=keys.EXPORT_UNDECIDED)
    return UNDECIDED_CHOICES[picked]


def _downloads(campaign: CampaignInfo, qrels: pd.DataFrame, provenance: pd.DataFrame,
               every: pd.DataFrame) -> None:
    a, b, c = st.columns(3)
    a.download_button("Download qrels", qrels_bytes(qrels), file_name=f"{campaign.name}.qrels",
                      mime="text/plain", key=keys.DOWNLOAD_QRELS, on_click="ignore")
    b.download_button("Download provenance (TSV)", _tsv(provenance),
                      file_name=f"{campaign.name}.provenance.tsv", mime="text/tab-separated-values",
                      key=keys.DOWNLOAD_PROVENANCE, on_click="ignore")
    c.download_button("Download every judgment row (TSV)", _tsv(every),
                      file_name=f"{campaign.name}.judgments.tsv", mime="text/tab-separated-values",
                      key=keys.DOWNLOAD_JUDGMENTS, on_click="ignore")


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
