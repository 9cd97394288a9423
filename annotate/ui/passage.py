"""The document frame of a pair, and of a passage shown inside its document.

For a campaign of passages (``pooljudge init --units``) the pair's unit is a passage
(:class:`pooljudge.annotate.records.PassageContext`): the frame shows its whole document, escaped
and
highlighted like any document (:mod:`pooljudge.annotate.ui.render`), with the passage wrapped in
``<mark class="pj-passage">``, under the caption "Judge the marked passage (chars start–end of
document D)". The frame is scrolled so that the passage's start sits two lines below the
frame's top when a new pair appears (a long document would otherwise open at its top, the
passage out of sight): by one small script mounted with ``st.components.v2``, trusted code of
ours that receives only the pair's id, never page text. It scrolls the frame alone (never the
page), once per pair, so an annotator who scrolls away is not pulled back by a rerun.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import streamlit as st
from pooljudge.annotate.records import PairView
from pooljudge.annotate.ui.render import (
    PASSAGE_SCROLL,
    caption_html,
    document_html,
    pair_part_html,
)

__all__ = ["caption_panel_html", "document_panel_html", "frame_html", "passage_caption",
           "show_document"]

_JS = """
function place(pair) {
  const state = window.__pooljudgePassage;
  const mark = document.querySelector(".pj-doc-body mark.pj-passage");
  const frame = mark && mark.closest(".pj-doc-body");
  if (!frame || frame.clientHeight === 0) return false;
  const line = parseFloat(getComputedStyle(frame).lineHeight);
  const margin = 2 * (Number.isFinite(line) ? line : 20);
  const top = mark.getBoundingClientRect().top - frame.getBoundingClientRect().top;
  frame.scrollTop = Math.max(0, frame.scrollTop + top - margin);
  state.placed = pair;
  return true;
}

export default function (component) {
  const state = (window.__pooljudgePassage ??= { placed: null, timer: null });
  const pair = component.data && component.data.pair;
  if (pair === undefined || pair === null || state.placed === pair) return;
  clearInterval(state.timer);
  let tries = 0;
  // The frame's HTML may arrive after this script, and its height is set by the keyboard
  // script (pooljudge.annotate.ui.keyboard) a frame later: place it, then again once sizes settle.
  state.timer = setInterval(() => {
    tries += 1;
    const done = place(pair);
    if ((done && tries >= 6) || tries > 100) clearInterval(state.timer);
  }, 50);
}
"""


def passage_caption(view: PairView) -> str:
    """The caption above a passage's document (plain text: callers escape it)."""
    passage = view.passage
    if passage is None:
        return f"Document {view.doc_id}"
    return (f"Judge the marked passage (chars {passage.start}–{passage.end} of document "
            f"{passage.doc_id})")


def caption_panel_html(view: PairView) -> str:
    """The escaped caption above ``view``'s document frame (:func:`passage_caption`)."""
    css = "pj-doc-id" if view.passage is None else "pj-doc-id pj-passage-caption"
    return caption_html(passage_caption(view), css_class=css)


def frame_html(view: PairView, terms: Iterable[str]) -> str:
    """``view``'s document frame, escaped and highlighted: for a passage, its whole document
    with the passage marked."""
    passage = view.passage
    if passage is None:
        return document_html(view.doc_title, view.doc_text, terms)
    return document_html(passage.title, passage.text, terms, (passage.start, passage.end))


def document_panel_html(view: PairView, terms: Iterable[str]) -> str:
    """The caption and the frame in one piece of HTML (one element: one browser render)."""
    return caption_panel_html(view) + frame_html(view, terms)


def show_document(view: PairView, terms: Iterable[str], *, split: bool = False,
                  mark: int | None = None) -> None:
    """Draw :func:`document_panel_html` (``split``: the caption and the frame as two elements),
    marked as the document part of pair ``mark`` (default: the view's pair id); for a passage,
    mount the script that scrolls the frame to it (an invisible element)."""
    pair = view.pair_id if mark is None else mark  # the id the pane's buttons carry
    if split:
        st.html(pair_part_html(pair, "document", caption_panel_html(view)))
        st.html(pair_part_html(pair, "document", frame_html(view, terms)))
    else:
        st.html(pair_part_html(pair, "document", document_panel_html(view, terms)))
    if view.passage is not None:
        _component()(key=PASSAGE_SCROLL, data={"pair": view.pair_id}, width="stretch",
                     height="content")


@functools.cache
def _component():
    """The registered component (once per process: registering again only logs a warning)."""
    return st.components.v2.component("pooljudge_passage", js=_JS)
