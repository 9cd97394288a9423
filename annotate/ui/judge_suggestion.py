"""The judging page's suggestion: an automatic judge's label, shown as a small caption.

Off unless the campaign names a judge (``pooljudge calibrate suggest --from NAME``, stored in
``campaign.suggest_from``). :func:`read` is one indexed look-up inside the page's read-only
transaction; :func:`show` draws ``Suggested: 2 · Highly relevant (llm-a)`` (escaped: label
names and the judge's name are user text) and remembers which label was shown for which pair,
so the label callback stores it with the judgment (:func:`shown`; ``judgment.suggested``).
Nothing is shown, and None is stored, when the judge has not labelled the pair.
"""

from __future__ import annotations

import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.records import CampaignInfo, PairView
from pooljudge.annotate.ui.render import caption_html
from sqlmodel import Session

__all__ = ["SUGGESTED", "read", "show", "shown", "suggestion_text"]

SUGGESTED = "pj_suggested"  # session state: (pair id, label) of the suggestion on screen


def read(session: Session, campaign: CampaignInfo,
         view: PairView | None) -> tuple[int, str] | None:
    """(label, judge) to suggest for the pair on screen; None when there is none."""
    if view is None:
        return None
    return store.suggestion(session, campaign_id=campaign.id, pair_id=view.pair_id)


def suggestion_text(campaign: CampaignInfo, label: int, judge: str) -> str:
    """``Suggested: 2 · Highly relevant (llm-a)`` (plain text, escaped when drawn)."""
    name = next((lab.name for lab in campaign.scale.labels if lab.value == label), str(label))
    return f"Suggested: {label} · {name} ({judge})"


def show(campaign: CampaignInfo, view: PairView | None,
         suggestion: tuple[int, str] | None) -> None:
    """Draw the suggestion of the pair on screen (nothing when None) and remember it."""
    if view is None or suggestion is None:
        st.session_state[SUGGESTED] = None
        return
    st.session_state[SUGGESTED] = (view.pair_id, suggestion[0])
    st.html(caption_html(suggestion_text(campaign, *suggestion), css_class="pj-suggestion"))


def shown(pair_id: int) -> int | None:
    """The label suggested on screen for ``pair_id`` (None: no suggestion was shown)."""
    value = st.session_state.get(SUGGESTED)
    return value[1] if value is not None and value[0] == pair_id else None
