""""Where I stand" on the judging page, and the one time-left sentence every page shows.

The panel is one caption line under the progress bars (it keeps the label buttons and the
document's start in a laptop's first screen): pairs judged today (UTC day) and can't-judge
answers, the median seconds of first judgments and each label's share among the annotator's
newest :data:`pooljudge.annotate.standing.RECENT` judgments, and the pairs left for them (from the
progress counters). Its figures come from :func:`pooljudge.annotate.standing.standing`, read in the
judging fragment's one read-only transaction: a bounded walk of the index ``(annotator_id,
created_at)``, never an aggregation over all judgments.

:func:`time_left_text` is the campaign's time left in the words the judging page and the
Overview both show (:func:`pooljudge.annotate.store.time_left`, :data:`PACE`).
"""

from __future__ import annotations

import html

import pandas as pd
import streamlit as st
from pooljudge.annotate.records import AnnotatorInfo, CampaignInfo
from pooljudge.annotate.standing import Standing, standing
from pooljudge.annotate.store import PACE, TimeLeft
from pooljudge.annotate.ui.render import duration_text
from sqlmodel import Session

__all__ = ["STANDING_CLASS", "read_standing", "render_standing", "standing_html",
           "time_left_text"]

STANDING_CLASS = "pj-standing"


def time_left_text(left: TimeLeft) -> str:
    """``Time left for the campaign at the pace of …: 2 h 05 min`` (``unknown yet`` without
    recent first judgments); ``The campaign is complete`` when nothing remains."""
    if left.remaining <= 0:
        return "The campaign is complete"
    return f"Time left for the campaign {PACE}: {duration_text(left.hours)}"


def read_standing(session: Session, user: AnnotatorInfo, campaign: CampaignInfo,
                  progress: pd.DataFrame) -> Standing:
    """The annotator's figures, read in the caller's transaction (``progress``: the page's
    :func:`pooljudge.annotate.store.progress` frame with ``annotator_done``)."""
    return standing(session, annotator_id=user.id, scale=campaign.scale,
                    progress_frame=progress)


def standing_html(stand: Standing, campaign: CampaignInfo) -> str:
    """The panel's caption line, every piece escaped (label names come from uploads)."""
    today = f"{stand.judged_today}{'+' if stand.today_capped else ''} judged today"
    if stand.cannot_judge_today:
        today += f" (+{stand.cannot_judge_today} can't judge)"
    pieces = [today]
    if stand.median_seconds is not None:
        pieces.append(f"median {stand.median_seconds:.1f} s per pair")
    if sum(stand.labels.values()):
        shares = stand.shares
        names = {lab.value: lab.name for lab in campaign.scale.labels}
        unit = "pair" if stand.window == 1 else "pairs"
        pieces.append(f"your last {stand.window} {unit}: " + ", ".join(
            f"{names[v]} {shares[v]:.0%}" for v in campaign.scale.values))
    pieces.append(f"{stand.pairs_left} pairs left for you")
    body = " · ".join(html.escape(p, quote=True) for p in pieces)
    return f'<div class="pj-caption {STANDING_CLASS}"><b>Where I stand:</b> {body}</div>'


def render_standing(stand: Standing, campaign: CampaignInfo) -> None:
    """Draw the panel (one element)."""
    st.html(standing_html(stand, campaign))
