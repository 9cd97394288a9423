"""The judging page's highlight terms: which terms mark the document, and the annotator's own.

A pair's terms are the topic's (title and description words and quoted phrases, the narrative's
too when the campaign says so: :func:`pooljudge.annotate.highlight.topic_terms`), the campaign's
for the
topic (set by an admin) and the annotator's own for the topic
(:mod:`pooljudge.annotate.store.terms`).

On the topic card an expander "Highlight terms" (closed by default; it remembers being opened)
lists them and lets the annotator add a term (a text box in a form: Enter adds it and gives the
keys back to the page; Esc leaves the box without adding, like any text field of the page, see
:mod:`pooljudge.annotate.ui.keyboard`; keys typed into the box are text, never shortcuts) and
remove their
own (a small button per term). Its contents are drawn only while it is open. A refused term
stays in the box, with the reason above it.

Reads: the stored terms of (annotator, topic) are one indexed query, kept in the session for
:data:`TERMS_TTL` seconds per topic, so most key presses read nothing; an own change drops the
topic's copy at once, an admin's change shows within :data:`TERMS_TTL` seconds.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.highlight import topic_terms
from pooljudge.annotate.records import AnnotatorInfo, CampaignInfo, PairView
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui.render import caption_html, md_escape
from sqlalchemy import Engine

from pooljudge.errors import InputError, StorageError

__all__ = ["TERMS_EXPANDER", "TERMS_TITLE", "TERM_ADD", "TERM_FORM", "TERM_INPUT", "PairTerms",
           "remove_term_key", "terms_in_use", "terms_panel"]

TERMS_EXPANDER = "highlight_terms"  # the expander (its open state, in the session)
TERM_FORM = "term_form"
TERM_INPUT = "term_input"
TERM_ADD = "term_add"
TERMS_CACHE = "pj_terms_cache"      # (annotator id, topic) -> (monotonic time, TopicTerms)
TERMS_FLASH = "pj_terms_flash"      # the last add's or removal's refusal
TERMS_TTL = 60.0
TERMS_TITLE = "Highlight terms"


@dataclass(frozen=True)
class PairTerms:
    """The terms marking a pair: from the topic's text, the campaign's, the annotator's own."""

    topic: tuple[str, ...]
    campaign: tuple[str, ...]
    own: tuple[str, ...]

    @property
    def all(self) -> tuple[str, ...]:
        """Every term once, in the order topic, campaign, own."""
        return tuple(dict.fromkeys(self.topic + self.campaign + self.own))


def remove_term_key(term: str) -> str:
    """The button removing the annotator's own ``term`` (a digest: terms hold any character)."""
    return f"term_remove_{hashlib.sha1(term.encode()).hexdigest()[:12]}"


def terms_in_use(engine: Engine, user: AnnotatorInfo, campaign: CampaignInfo,
                 view: PairView) -> PairTerms:
    """The pair's terms (see the module docstring for the reads)."""
    texts = (view.topic_title, view.topic_description,
             *((view.topic_narrative,) if campaign.highlight_narrative else ()))
    stored = _stored_terms(engine, user.id, view.topic_id)
    return PairTerms(topic_terms(*texts), stored.campaign, stored.own)


def _stored_terms(engine: Engine, annotator_id: int, topic: str) -> store.TopicTerms:
    cache = st.session_state.setdefault(TERMS_CACHE, {})
    hit = cache.get((annotator_id, topic))
    if hit is not None and time.monotonic() - hit[0] < TERMS_TTL:
        return hit[1]
    with session_scope(engine, readonly=True) as session:
        terms = store.highlight_terms(session, annotator_id=annotator_id, topic=topic)
    cache[(annotator_id, topic)] = (time.monotonic(), terms)
    return terms


def terms_panel(engine: Engine, user: AnnotatorInfo, view: PairView, terms: PairTerms) -> None:
    """The expander on the topic card: the terms in use, the own ones removable, a box to add."""
    panel = st.expander(TERMS_TITLE, key=TERMS_EXPANDER, on_change="rerun",
                        icon=":material/ink_highlighter:")  # a fixed label keeps its state
    if not panel.open:
        return
    with panel:
        if message := st.session_state.pop(TERMS_FLASH, None):
            st.html(caption_html(message, css_class="pj-terms-error"))
        shared = [("From the topic", terms.topic), ("Set for the campaign", terms.campaign)]
        st.html("".join(caption_html(f"{what}: " + " · ".join(values))
                        for what, values in shared if values)
                or caption_html("No terms from the topic or the campaign."))
        if terms.own:
            st.html(caption_html("Yours (press one to remove it):"))
        with st.container(horizontal=True, gap="small"):  # one wrapping row of small buttons
            for term in terms.own:
                st.button(f"✕ {md_escape(term)}", key=remove_term_key(term), type="secondary",
                          help="Remove this term of yours", on_click=_remove,
                          args=(engine, user.id, view.topic_id, term), width="content")
        with st.form(TERM_FORM, border=False):
            box, add = st.columns([3, 1], gap="small", vertical_alignment="bottom")
            box.text_input("Add a term", key=TERM_INPUT, label_visibility="collapsed",
                           placeholder="Add a word or phrase · Enter")
            add.form_submit_button("Add", key=TERM_ADD, on_click=_add,
                                   args=(engine, user.id, view.topic_id))


def _add(engine: Engine, annotator_id: int, topic: str) -> None:
    """Store the box's term for this topic; a refusal is shown in the panel."""
    text = st.session_state.get(TERM_INPUT) or ""
    if text.strip() and _write(store.add_annotator_term, engine, annotator_id, topic, text):
        st.session_state[TERM_INPUT] = ""  # kept when refused, to be corrected


def _remove(engine: Engine, annotator_id: int, topic: str, term: str) -> None:
    _write(store.remove_annotator_term, engine, annotator_id, topic, term)


def _write(change, engine: Engine, annotator_id: int, topic: str, term: str) -> bool:
    """Run ``change`` in a transaction of its own and forget the topic's cached terms; False
    (and a message for the panel) when it was refused."""
    st.session_state.get(TERMS_CACHE, {}).pop((annotator_id, topic), None)
    try:
        with session_scope(engine) as session:
            change(session, annotator_id=annotator_id, topic=topic, term=term)
    except InputError as exc:
        st.session_state[TERMS_FLASH] = f"Not saved: {exc}"
        return False
    except StorageError:
        st.session_state[TERMS_FLASH] = "Not saved: the database could not store it."
        return False
    return True
