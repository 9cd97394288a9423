"""A passage shown inside its document: the mark built from escaped pieces (render), the
caption, and the judging page (AppTest) of a campaign of passages."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from pooljudge.annotate import store
from pooljudge.annotate.records import LabelScale, PairView, PassageContext
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui.passage import document_panel_html, passage_caption
from pooljudge.annotate.ui.render import PASSAGE_MARK, body_html

EVIL = "<script>alert(1)</script> [x](http://evil) &amp;"
BEFORE = f"Widgets before {EVIL} here.\n\n"
PASSAGE = f"The widget passage {EVIL} itself."
AFTER = "\n\n    pre widget block\n\nA widget after."
TEXT = BEFORE + PASSAGE + AFTER
START, END = len(BEFORE), len(BEFORE) + len(PASSAGE)


def _inside(markup: str) -> list[str]:
    """The markup inside each passage mark (its own marks nested, no passage mark nested)."""
    return re.findall(r'<mark class="pj-passage">((?:(?!</?mark class="pj-passage").)*?'
                      r'(?:<mark>[^<]*</mark>(?:(?!</?mark class="pj-passage").)*?)*)</mark>',
                      markup, flags=re.S)


# --- render: the passage mark -------------------------------------------------------------------

def test_the_passage_is_marked_with_terms_inside_and_outside_and_text_escaped(inert):
    markup = body_html(TEXT, ["widget"], (START, END))
    inside = _inside(markup)
    assert len(inside) == 1
    shown = inert.html(inside[0])
    assert shown.elements == () and shown.text == PASSAGE  # hostile text literal in the mark
    assert "<mark>widget</mark>" in inside[0]              # a term inside the passage
    whole = inert.html(markup)                             # nothing but div and mark
    assert whole.elements == () and whole.text.count(EVIL) == 2 and "<script>" not in markup
    before, after = markup.split(PASSAGE_MARK)
    assert "<mark>Widgets</mark> before" in before and "<mark>widget</mark> after" in after


def test_without_a_passage_the_body_is_unchanged():
    assert PASSAGE_MARK not in body_html(TEXT, ["widget"])
    assert body_html(TEXT, ["widget"], None) == body_html(TEXT, ["widget"])


@pytest.mark.parametrize(("start", "end", "marks"), [
    (0, len(TEXT), 7),                       # 7 blocks (3 blank, 1 preformatted): 7 marks
    (START, START, 1),                       # empty: one empty mark to scroll to
    (len(TEXT), len(TEXT), 1),               # empty, at the very end
    (0, 1, 1),
])
def test_a_passage_gets_a_mark_per_block_it_crosses(inert, start, end, marks):
    markup = body_html(TEXT, ["widget"], (start, end))
    assert markup.count(PASSAGE_MARK) == marks
    shown = "".join(inert.html(m).text for m in _inside(markup))
    assert "".join(shown.split()) == "".join(TEXT[start:end].split())  # flowed: spacing differs


def _view(passage: PassageContext | None) -> PairView:
    return PairView(1, "7", "widget", "", "", "D#1", "Title <D>", PASSAGE, 1, passage)


def test_the_caption_names_the_offsets_and_the_document(inert):
    view = _view(PassageContext("D <b>", "Title <D>", TEXT, START, END))
    assert passage_caption(view) == (f"Judge the marked passage (chars {START}–{END} of "
                                     "document D <b>)")
    panel = document_panel_html(view, ["widget"])
    assert inert.html(panel).elements == ()
    assert "document D &lt;b&gt;)" in panel and "Title &lt;D&gt;" in panel
    plain = document_panel_html(_view(None), [])
    assert "Document D#1" in plain and PASSAGE_MARK not in plain


# --- the judging page -----------------------------------------------------------------------------

@pytest.fixture
def passage_token(app_db) -> str:
    """Campaign ``p``: topic 7 (widget), pool D#1 then E#0 (passages of D and E)."""
    documents = pd.DataFrame({"id": ["D", "E"], "title": ["Doc [D](http://evil)", "Doc E"],
                              "text": [TEXT, "plain text"]})
    topics = pd.DataFrame({"id": ["7"], "title": ["widget"], "description": "d",
                           "narrative": "n"})
    pool = pd.DataFrame({"topic": "7", "doc": ["D#1", "E#0"], "order": [1, 2],
                         "best_rank": [1, 2], "runs": "r"})
    units = pd.DataFrame({"chunk": ["D#0", "D#1", "E#0"], "doc": ["D", "D", "E"],
                          "start": [0, START, 0], "end": [START, END, 5]})
    with session_scope(app_db) as session:
        store.create_campaign(session, name="p", scale=LabelScale.binary(), topics=topics,
                              documents=documents, pool=pool, units=units)
        return store.add_annotator(session, campaign="p", name="ann")


def test_the_judging_page_shows_the_passage_marked_in_its_document(passage_token, open_page,
                                                                    inert):
    at = open_page(passage_token)
    assert at.session_state[keys.CURRENT].doc_id == "D#1"
    frames = [h.value for h in at.get("html") if "pj-doc-id" in h.value]
    assert len(frames) == 1
    frame = frames[0]
    assert f"Judge the marked passage (chars {START}–{END} of document D)" in frame
    assert inert.html(frame).elements == ()
    inside = _inside(frame)
    assert len(inside) == 1 and inert.html(inside[0]).text == PASSAGE
    assert "<mark>widget</mark>" in inside[0] and "<mark>Widgets</mark> before" in frame
    assert "Doc [D](http://evil)" in inert.html(frame).text     # the title, literal
    label = keys.label_key(at.session_state[keys.CURRENT].pair_id, 1)
    at.button(key=label).click().run()
    assert at.session_state[keys.CURRENT].doc_id == "E#0"
    frame = next(h.value for h in at.get("html") if "pj-doc-id" in h.value)
    assert "chars 0–5 of document E" in frame and _inside(frame) == ["plain"]


def _adjudication_panel() -> None:
    """An AppTest script: :func:`show_pair` (the adjudication page's panels) of a passage."""
    from pooljudge.annotate.records import PairView, PassageContext
    from pooljudge.annotate.ui.pair_panels import show_pair

    text = "Before <i>x</i>. The widget passage. After."
    start = text.index("The")
    show_pair(PairView(5, "7", "widget", "", "", "D#1", "Doc D", text[start:start + 19], None,
                       PassageContext("D", "Doc D", text, start, start + 19)))


def test_the_adjudication_panels_mark_the_passage_too(inert):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_adjudication_panel).run()
    assert not at.exception
    shown = [h.value for h in at.get("html")]
    assert '<div class="pj-caption pj-doc-id pj-passage-caption">Judge the marked passage ' \
           '(chars 17–36 of document D)</div>' in "".join(shown)
    frame = next(h for h in shown if "pj-doc-body" in h)
    assert _inside(frame) == ["The <mark>widget</mark> passage."]
    assert "&lt;i&gt;x&lt;/i&gt;" in frame and inert.html(frame).elements == ()
