"""Highlighting in a real browser (Chromium at 1366x768): the campaign's term ``format`` marks
``formatting``; the annotator opens "Highlight terms" and adds a term with the keyboard alone
(label keys typed into the box are text, Esc leaves it without adding, Enter adds and gives the
keys back to the page) and the term is marked; removing it unmarks it. References: the marks
in the document frame's DOM and the database."""

from __future__ import annotations

import pandas as pd
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from pooljudge.annotate import store
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui.judge_terms import TERM_INPUT, TERMS_EXPANDER, remove_term_key

# A 1366x768 tab (the laptop fixture of the keyboard tests).
from tests.e2e.test_keyboard_browser import laptop  # noqa: F401
from tests.support.browser import shown_pair, wait_idle

BOX = f".st-key-{TERM_INPUT} input"
MARKS = ".pj-doc-body mark"
TEXT = ("String formatting rules for <b>widgets</b>. A zebra and two zebras read the "
        "formatted text.")


def _marks(page) -> list[str]:
    return page.locator(MARKS).all_inner_texts()


def _focused(page, selector: str) -> bool:
    return page.evaluate("s => !!document.activeElement?.closest(s)", selector)


def _tab_to(page, selector: str, limit: int = 40) -> None:
    """Press Tab until the focus is inside ``selector`` (the keyboard's way to a control)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if _focused(page, selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def _press_until(page, key: str, condition: str, tries: int = 3) -> None:
    """Press ``key`` until ``condition`` holds (a press during a slow first load may be lost)."""
    for _ in range(tries - 1):
        page.keyboard.press(key)
        try:
            page.wait_for_function(condition, timeout=3000)
            return
        except PlaywrightTimeout:
            continue
    page.keyboard.press(key)
    page.wait_for_function(condition)


def _own(app, campaign: str) -> tuple[str, ...]:
    with session_scope(app.engine, readonly=True) as session:
        who = store.annotator_id(session, campaign=campaign, name="ann")
        return store.highlight_terms(session, annotator_id=who, topic="101").own


def test_terms_mark_and_the_annotator_steers_them_by_keyboard(app, laptop) -> None:  # noqa: F811
    page = laptop
    docs = pd.DataFrame({"id": ["d1", "d2"], "title": ["Doc one", "Doc two"], "text": TEXT})
    campaign, tokens = app.campaign(docs=docs)
    with session_scope(app.engine) as session:
        store.set_topic_terms(session, campaign=campaign, terms={"101": ["format"]})
    app.open_as(page, tokens["ann"])
    pair = shown_pair(page)
    assert _marks(page) == ["formatting", "widgets", "formatted"]
    assert page.locator(f".st-key-{TERM_INPUT}").count() == 0       # closed by default

    _press_until(page, "/", "document.activeElement?.tagName === 'INPUT'")  # the comment box
    _tab_to(page, f".st-key-{TERMS_EXPANDER} summary")
    page.keyboard.press("Enter")                         # opens the expander
    page.locator(BOX).wait_for(state="visible")
    wait_idle(page)
    if not _focused(page, BOX):
        _tab_to(page, BOX)
    page.keyboard.type("Zebra")
    page.keyboard.press("1")                             # a label key, typed into the box
    assert page.locator(BOX).input_value() == "Zebra1"
    page.keyboard.press("Backspace")
    page.keyboard.press("Escape")                        # leaves the box, adds nothing
    assert page.evaluate("document.activeElement === document.body")
    wait_idle(page)
    assert _own(app, campaign) == ()
    _tab_to(page, BOX)                                   # back in: the text is still there
    assert page.locator(BOX).input_value() == "Zebra"
    page.keyboard.press("Enter")                         # adds the term
    page.wait_for_function(f"[...document.querySelectorAll('{MARKS}')]"
                           ".some(m => m.innerText === 'zebras')")
    wait_idle(page)
    assert _marks(page) == ["formatting", "widgets", "zebra", "zebras", "formatted"]
    assert _own(app, campaign) == ("zebra",)
    assert app.judgments(campaign).empty                 # the 1 was text, not a label
    assert shown_pair(page) == pair
    assert page.evaluate("document.activeElement === document.body")  # keys are shortcuts
    _tab_to(page, f".st-key-{remove_term_key('zebra')}")
    page.keyboard.press("Enter")                         # removes it
    page.wait_for_function(f"document.querySelectorAll('{MARKS}').length === 3")
    wait_idle(page)
    assert _marks(page) == ["formatting", "widgets", "formatted"]
    assert _own(app, campaign) == ()
    assert app.judgments(campaign).empty
