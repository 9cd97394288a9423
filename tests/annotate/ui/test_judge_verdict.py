"""AppTest (no browser): "I can't judge this" and labels that need a rationale on the judging page.

Campaign ``c``: binary scale whose label 1 has a Markdown-looking name, overlap 1, order ``topic``
(queue d1, d2, d3 of topic 7, then d4 of topic 8), annotator ``ann``; the settings vary per test.
What was stored is read back through the store; the keys in Chromium are
tests/e2e/test_cannot_judge_browser.py.
"""

from __future__ import annotations

import pandas as pd
import pytest
from pooljudge.annotate import store
from pooljudge.annotate.records import Label, LabelScale
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui import judge, judge_verdict, keys
from streamlit.testing.v1 import AppTest

DOCS = {"d1": "7", "d2": "7", "d3": "7", "d4": "8"}
EVIL = "[x](http://evil) <b>bold</b>"
SCALE = LabelScale((Label(0, "Off topic"), Label(1, EVIL)))


@pytest.fixture
def make(app_db, collection):
    """``make(**settings)``: campaign ``c`` with ``settings``; ann's login token."""
    def make_(**settings) -> str:
        with session_scope(app_db) as session:
            store.create_campaign(session, name="c", scale=SCALE, overlap=1, order="topic",
                                  **settings, **collection(DOCS, "text of"))
            return store.add_annotator(session, campaign="c", name="ann")
    return make_


def _rows(engine) -> pd.DataFrame:
    """Every judgment row of ``c``, in the order written."""
    with session_scope(engine, readonly=True) as session:
        return store.judgments_frame(session, campaign="c", latest_only=False)


def _pair(at: AppTest) -> int:
    return at.session_state[keys.CURRENT].pair_id


def _boxes(at: AppTest) -> list[str]:
    return [t.key for t in at.text_input if t.key.startswith("verdict_reason_")]


def _save(at: AppTest, words: str) -> AppTest:
    """Type ``words`` in the open reason box and press Save (Enter, in a browser)."""
    (box,) = _boxes(at)
    at.text_input(key=box).input(words)
    return at.button(key=judge_verdict.save_key(_pair(at))).click().run()


def test_the_displayed_pair_key_is_the_judging_pages() -> None:
    assert judge_verdict._DISPLAYED == judge.DISPLAYED


@pytest.mark.parametrize("offered", [True, False], ids=["offered", "not-offered"])
def test_the_button_and_its_key_only_where_the_campaign_offers_it(make, open_page,
                                                                  offered) -> None:
    at = open_page(make(cannot_judge=offered))
    found = [b for b in at.button if b.key == judge_verdict.cannot_judge_key(_pair(at))]
    assert len(found) == offered
    legend = next(h.value for h in at.get("html") if 'class="pj-legend"' in h.value)
    assert ("<b>i</b> I can&#x27;t judge this (say why)" in legend) == offered
    if offered:
        assert (found[0].label, found[0].proto.shortcut) == ("I can't judge this", "i")


def test_cannot_judge_asks_why_refuses_a_blank_reason_and_stores_the_answer(
        app_db, make, open_page) -> None:
    at = open_page(make(cannot_judge=True))
    first = _pair(at)
    at.text_input(key=keys.comment_key(first)).input("scanned image")
    at.button(key=judge_verdict.cannot_judge_key(first)).click().run()
    assert _boxes(at) == [judge_verdict.reason_key(first, None)] and _rows(app_db).empty
    _save(at, "   ")
    assert _pair(at) == first and _boxes(at) and _rows(app_db).empty
    assert any("type a reason first" in h.value for h in at.get("html"))
    _save(at, " not in a language I read ")
    rows = _rows(app_db)
    assert rows[["doc", "status", "rationale", "comment", "version"]].to_numpy().tolist() == [
        ["d1", "cannot_judge", "not in a language I read", "scanned image", 1]]
    assert pd.isna(rows["label"].iat[0])
    assert _pair(at) != first and not _boxes(at)
    assert any("Saved &quot;I can&#x27;t judge this&quot;" in h.value for h in at.get("html"))
    with session_scope(app_db, readonly=True) as session:
        answers = store.cannot_judge_answers(session, campaign="c")
    assert answers[["doc", "annotator", "reason"]].to_numpy().tolist() == [
        ["d1", "ann", "not in a language I read"]]


def test_a_rationale_label_is_stored_only_with_its_rationale(app_db, make, open_page,
                                                             inert) -> None:
    at = open_page(make(rationale_labels=[1]))
    first = _pair(at)
    at.button(key=keys.label_key(first, 1)).click().run()
    assert _boxes(at) == [judge_verdict.reason_key(first, 1)] and _rows(app_db).empty
    prompt = next(h.value for h in at.get("html") if "pj-verdict-prompt" in h.value)
    shown = inert.html(prompt)
    assert shown.elements == () and f"Why label 1 · {EVIL}?" in shown.text
    at.button(key=judge_verdict.cancel_key(first)).click().run()     # Esc, in a browser
    assert not _boxes(at) and _pair(at) == first and _rows(app_db).empty
    at.button(key=keys.label_key(first, 1)).click().run()
    _save(at, "defines the term")
    at.button(key=keys.label_key(_pair(at), 0)).click().run()       # 0 needs no rationale
    rows = _rows(app_db)
    assert rows[["doc", "label", "status"]].to_numpy().tolist() == [["d1", 1, "label"],
                                                                    ["d2", 0, "label"]]
    assert rows["rationale"].iat[0] == "defines the term" and pd.isna(rows["rationale"].iat[1])
    assert not [b for b in at.button if b.key.startswith("cannot_judge_")]


def test_a_box_left_open_is_dropped_when_another_pair_is_shown(app_db, make, open_page) -> None:
    at = open_page(make(cannot_judge=True, rationale_labels=[1]))
    first = _pair(at)
    at.button(key=keys.label_key(first, 1)).click().run()
    at.button(key=judge_verdict.cannot_judge_key(first)).click().run()  # the box now asks why
    assert _boxes(at) == [judge_verdict.reason_key(first, None)]       # "can't judge"
    at.button(key=keys.label_key(first, 0)).click().run()              # a plain label instead
    assert _pair(at) != first and not _boxes(at)
    assert judge_verdict.PENDING not in at.session_state
    assert _rows(app_db)[["doc", "label"]].to_numpy().tolist() == [["d1", 0]]


def test_going_back_to_an_answer_shows_it_and_a_label_replaces_it(app_db, make,
                                                                  open_page) -> None:
    at = open_page(make(cannot_judge=True))
    first = _pair(at)
    at.button(key=judge_verdict.cannot_judge_key(first)).click().run()
    _save(at, "no access")
    at.button(key=keys.back_key(_pair(at))).click().run()
    assert "your answer: I can't judge this" in at.warning[0].value
    at.button(key=keys.label_key(first, 0)).click().run()
    rows = _rows(app_db)
    assert rows[["doc", "status", "version"]].to_numpy().tolist() == [
        ["d1", "cannot_judge", 1], ["d1", "label", 2]]
    with session_scope(app_db, readonly=True) as session:
        assert store.cannot_judge_answers(session, campaign="c").empty
