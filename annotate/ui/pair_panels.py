"""The topic card and the document frame, side by side: shared by judging and adjudication."""

from __future__ import annotations

import streamlit as st
from pooljudge.annotate.records import PairView
from pooljudge.annotate.ui.passage import show_document
from pooljudge.annotate.ui.render import pair_part_html, query_terms, topic_card_html

__all__ = ["show_pair"]


def show_pair(view: PairView) -> None:
    """Render the topic (title, description, narrative) and the escaped, highlighted document
    (a passage: inside its document, marked)."""
    terms = query_terms(view.topic_title, view.topic_description)
    topic, document = st.columns([1, 2], gap="medium")
    with topic, st.container(border=True):
        st.html(pair_part_html(view.pair_id, "topic", topic_card_html(
            view.topic_id, view.topic_title, view.topic_description, view.topic_narrative)))
    with document:
        show_document(view, terms, split=True)
