"""The topic card and the document frame, side by side: shared by judging and adjudication."""

from __future__ import annotations

import streamlit as st
from pooljudge.annotate.records import PairView
from pooljudge.annotate.ui.passage import show_document
from pooljudge.annotate.ui.render import caption_html, query_terms, text_html

__all__ = ["show_pair"]


def show_pair(view: PairView) -> None:
    """Render the topic (title, description, narrative) and the escaped, highlighted document
    (a passage: inside its document, marked)."""
    terms = query_terms(view.topic_title, view.topic_description)
    topic, document = st.columns([1, 2], gap="medium")
    with topic, st.container(border=True):
        st.html(caption_html(f"Topic {view.topic_id}"))
        st.html(f'<div class="pj-doc-title">{text_html(view.topic_title)}</div>')
        st.html(text_html(view.topic_description))
        with st.expander("Narrative: what counts as relevant", expanded=True):
            st.html(text_html(view.topic_narrative))
    with document:
        show_document(view, terms, split=True)
