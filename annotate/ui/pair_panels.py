"""The topic card and the document frame, side by side: shared by judging and adjudication."""

from __future__ import annotations

import streamlit as st
from pooljudge.annotate.records import PairView
from pooljudge.annotate.ui.passage import show_document
from pooljudge.annotate.ui.render import pair_part_html, query_terms, topic_card_html

__all__ = ["show_pair"]


def show_pair(view: PairView, *, mark: int | None = None) -> None:
    """Render the topic (title, description, narrative) and the escaped, highlighted document
    (a passage: inside its document, marked), both marked as parts of pair ``mark`` (default:
    the view's pair id; the adjudication pane marks its own item id, which its buttons carry)."""
    pair = view.pair_id if mark is None else mark
    terms = query_terms(view.topic_title, view.topic_description)
    topic, document = st.columns([1, 2], gap="medium")
    with topic, st.container(border=True):
        st.html(pair_part_html(pair, "topic", topic_card_html(
            view.topic_id, view.topic_title, view.topic_description, view.topic_narrative)))
    with document:
        show_document(view, terms, split=True, mark=pair)
