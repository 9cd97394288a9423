"""The next pair, drawn ahead: the judging pane shows it the moment a label is accepted.

Each run of the judging area forecasts the pair the annotator will be given next
(:func:`pooljudge.annotate.store.peek_next_pair`, read only) and hands its topic card and
document, rendered exactly as the next run will render them, to the pane's gate
(:mod:`pooljudge.annotate.ui.key_gate`). When the gate admits a label (or skip) key, it puts them
on screen at once, in place of the pair just answered, while Streamlit runs the write and the
real claim. The run then draws the pair actually claimed: the same one (nothing changes on
screen), or another when someone took the forecast's last slot first, or the answered pair
again with "Not saved" when the write failed. No key acts on the forecast before that run has
finished (the gate waits for it), so a forecast can never receive a label.

No forecast for an earlier pair being changed, for passages (their frame scrolls to the passage
by a script of its own), for labels that ask for a rationale and for "I can't judge this" (a
reason box comes first): those keys keep the pair on screen until the run answers.
"""

from __future__ import annotations

from pooljudge.annotate import store
from pooljudge.annotate.keymap import label_action
from pooljudge.annotate.records import AnnotatorInfo, CampaignInfo, JudgmentRecord, PairView
from pooljudge.annotate.ui import judge_terms
from pooljudge.annotate.ui.passage import document_panel_html
from pooljudge.annotate.ui.render import pair_part_html, topic_card_html
from sqlalchemy import Engine

__all__ = ["forecast", "swapping_actions", "topic_part_html"]


def topic_part_html(view: PairView) -> str:
    """The topic card of ``view`` as the judging pane draws it (one element)."""
    return pair_part_html(view.pair_id, "topic", topic_card_html(
        view.topic_id, view.topic_title, view.topic_description, view.topic_narrative))


def forecast(session, engine: Engine, user: AnnotatorInfo, campaign: CampaignInfo,
             view: PairView, earlier: JudgmentRecord | None) -> dict | None:
    """The gate's ``next``: the forecast pair's id and its topic and document parts' HTML, or
    None (see the module docstring)."""
    if earlier is not None or view.passage is not None:
        return None
    coming = store.peek_next_pair(session, annotator_id=user.id, held_pair_id=view.pair_id)
    if coming is None or coming.passage is not None:
        return None
    terms = judge_terms.terms_in_use(engine, user, campaign, coming).all
    return {"pair": str(coming.pair_id), "topic": topic_part_html(coming),
            "document": pair_part_html(coming.pair_id, "document",
                                       document_panel_html(coming, terms))}


def swapping_actions(campaign: CampaignInfo) -> list[str]:
    """The actions that put the forecast on screen: labels that need no rationale, and skip."""
    return [label_action(lab.value) for lab in campaign.scale.labels
            if lab.value not in campaign.rationale_labels] + ["skip"]
