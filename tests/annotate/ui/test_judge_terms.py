"""AppTest (no browser): the judging page's highlight terms — the topic's, the campaign's and the
annotator's own mark the document; the annotator adds and removes their own on the topic card.

Campaign ``c``: topics 7 (widgets) and 8 (gadgets), documents d1 d2 of topic 7, no guidelines
(so no acknowledgement gate), annotators ``ann`` and ``bob``.
"""

from __future__ import annotations

import re

import pytest
from pooljudge.annotate import store
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui.judge_terms import (
    TERM_ADD,
    TERM_INPUT,
    TERMS_EXPANDER,
    TERMS_TITLE,
    remove_term_key,
)
from streamlit.testing.v1 import AppTest

TEXT = "String formatting of <script>alert(1)</script> widgets, zebras and narrow things."


@pytest.fixture
def tokens(app_db, collection):
    """Campaign ``c`` (narrative ``narrow`` highlighted when asked); tokens of ann and bob."""
    def make(*, narrative: bool = False) -> dict[str, str]:
        frames = collection({"d1": "7", "d2": "7"}, TEXT)
        frames["topics"]["narrative"] = "Anything narrow."
        with session_scope(app_db) as session:
            store.create_campaign(session, name="c", scale=LabelScale.binary(),
                                  highlight_narrative=narrative, **frames)
            return {n: store.add_annotator(session, campaign="c", name=n) for n in ("ann", "bob")}
    return make


def _marked(at: AppTest) -> list[str]:
    """The words marked in the document frame."""
    (frame,) = [h.value for h in at.get("html") if 'class="pj-doc-body"' in h.value]
    return re.findall(r"<mark>(.*?)</mark>", frame.split('class="pj-doc-body">', 1)[1])


def _open_terms(open_page, token: str) -> AppTest:
    """The judging page with the terms expander opened (as a click on it would)."""
    return _rerun(open_page(token))


def _rerun(at: AppTest) -> AppTest:
    """Run again with the expander open: a browser sends its state back, AppTest does not."""
    at.session_state[TERMS_EXPANDER] = True
    return at.run()


def _press(at: AppTest, key: str) -> AppTest:
    """Press the button ``key``: the panel stays open."""
    at.button(key=key).click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state[TERMS_EXPANDER]
    return at


def _own(app_db, person: str = "ann") -> tuple[str, ...]:
    with session_scope(app_db, readonly=True) as session:
        who = store.annotator_id(session, campaign="c", name=person)
        return store.highlight_terms(session, annotator_id=who, topic="7").own


def test_topic_and_campaign_terms_mark_the_document(app_db, tokens, open_page) -> None:
    people = tokens()
    assert _marked(open_page(people["ann"])) == ["widgets"]
    with session_scope(app_db) as session:
        store.set_topic_terms(session, campaign="c", terms={"7": ["format", "zebra"]})
    assert _marked(open_page(people["ann"])) == ["formatting", "widgets", "zebras"]


def test_narrative_words_only_when_the_campaign_says_so(tokens, open_page) -> None:
    people = tokens(narrative=True)
    assert _marked(open_page(people["ann"])) == ["widgets", "narrow"]


def test_the_panel_is_closed_by_default_and_draws_nothing_then(tokens, open_page) -> None:
    at = open_page(tokens()["ann"])
    assert [e.label for e in at.expander].count(TERMS_TITLE) == 1
    assert not [t for t in at.text_input if t.key == TERM_INPUT]


def test_own_terms_are_added_marked_and_removed(app_db, tokens, open_page) -> None:
    people = tokens()
    at = _open_terms(open_page, people["ann"])
    at.text_input(key=TERM_INPUT).input("  Zebra ")
    _press(at, TERM_ADD)
    assert _own(app_db) == ("zebra",)
    assert _marked(at) == ["widgets", "zebras"]
    assert at.text_input(key=TERM_INPUT).value == ""  # the box is ready for the next term
    assert any("From the topic: widgets" in h.value for h in at.get("html"))
    assert _marked(open_page(people["bob"])) == ["widgets"]  # own terms are not shared
    _press(at, remove_term_key("zebra"))
    assert _own(app_db) == ()
    assert _marked(at) == ["widgets"]


def test_a_hostile_term_is_stored_as_text_and_marks_only_text(app_db, tokens, open_page,
                                                              inert) -> None:
    at = _open_terms(open_page, tokens()["ann"])
    at.text_input(key=TERM_INPUT).input("<script>")
    _press(at, TERM_ADD)
    assert _own(app_db) == ("<script>",)
    assert _marked(at) == ["script", "script", "widgets"]
    for shown in at.get("html"):
        assert inert.html(shown.value).elements == ()
    (button,) = [b for b in at.button if b.key == remove_term_key("<script>")]
    assert inert.markdown(button.label).elements == ()
    assert inert.markdown(button.label).text == "✕ <script>"


def test_a_bad_term_is_refused_with_a_message(app_db, tokens, open_page) -> None:
    at = _open_terms(open_page, tokens()["ann"])
    at.text_input(key=TERM_INPUT).input("x" * 101)
    _press(at, TERM_ADD)
    assert _own(app_db) == ()
    assert any("Not saved: a term has at most 100 characters" in h.value
               for h in at.get("html"))
    assert at.text_input(key=TERM_INPUT).value == "x" * 101  # kept, to be corrected
