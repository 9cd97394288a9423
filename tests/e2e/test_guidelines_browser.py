"""Guidelines first and "Where I stand" in a real browser, keyboard only, at 1366x768.

A first visit shows the whole guidelines open and no label button; Enter acknowledges them
(one stored row) and the first pair appears; the panel under the progress bars then shows the
annotator's figures and follows each key press; a change to the guidelines opens them again.
References: the database (what was stored) and the DOM.
"""

from __future__ import annotations

import sqlalchemy as sa
from pooljudge.annotate import store
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui.guidelines import ACK
from pooljudge.annotate.ui.judge_stats import STANDING_CLASS

from tests.support.browser import shown_pair, wait_for_new_pair, wait_idle, wait_keys_ready

RULES = ("Rule 1: judge the page, not the site.\n"
         "<b>Rule 2</b>: [links](http://evil.example) stay text.")
BUTTON = f".st-key-{ACK} button"


def _acks(app, campaign: str) -> int:
    with session_scope(app.engine, readonly=True) as session:
        return session.execute(sa.text(
            "SELECT COUNT(*) FROM guidelines_ack g JOIN annotator a ON a.id = g.annotator_id "
            "JOIN campaign c ON c.id = a.campaign_id WHERE c.name = :c"), {"c": campaign}
        ).scalar_one()


def _set(app, campaign: str, text: str) -> None:
    with session_scope(app.engine) as session:
        store.set_guidelines(session, campaign=campaign, text=text)


def _panel(page) -> str:
    return page.locator(f".{STANDING_CLASS}").inner_text()


def test_enter_acknowledges_the_guidelines_then_pairs_and_figures_appear(app, laptop) -> None:
    page = laptop
    campaign, tokens = app.campaign()
    _set(app, campaign, RULES)
    app.open_as(page, tokens["ann"], read_guidelines=False)
    page.locator(BUTTON).wait_for(state="visible")
    wait_keys_ready(page)
    body = page.inner_text("[data-testid='stMain']")
    assert "Rule 1: judge the page, not the site." in body
    assert "<b>Rule 2</b>: [links](http://evil.example) stay text." in body   # literal text
    assert page.locator("[data-testid='stMain'] a[href*='evil']").count() == 0
    assert page.locator(BUTTON).bounding_box()["y"] + 40 <= 768          # in the first screen
    assert page.locator('[class*="st-key-label_"]').count() == 0         # no pair yet
    assert _acks(app, campaign) == 0
    page.keyboard.press("Enter")
    pair = shown_pair(page)                                              # the first pair
    assert _acks(app, campaign) == 1
    assert _panel(page).startswith("Where I stand: 0 judged today")
    assert "6 pairs left for you" in _panel(page)
    for digit in "10":
        page.keyboard.press(digit)
        pair = wait_for_new_pair(page, pair)
    wait_idle(page)
    panel = _panel(page)
    assert panel.startswith("Where I stand: 2 judged today · median ")
    assert "your last 2 pairs: Not relevant 50%, Relevant 50%" in panel
    assert panel.endswith("4 pairs left for you")
    assert app.judgments(campaign)["label"].tolist() == [1, 0]


def test_a_change_opens_the_guidelines_again(app, laptop) -> None:
    page = laptop
    campaign, tokens = app.campaign()
    _set(app, campaign, RULES)
    app.open_as(page, tokens["ann"])                                     # read before
    shown_pair(page)
    _set(app, campaign, RULES + "\nRule 3: new.")
    app.open_as(page, tokens["ann"], read_guidelines=False)
    page.locator(BUTTON).wait_for(state="visible")
    assert "Rule 3: new." in page.inner_text("[data-testid='stMain']")
    assert page.locator('[class*="st-key-label_"]').count() == 0
    wait_keys_ready(page)
    page.keyboard.press("Enter")
    shown_pair(page)
    assert _acks(app, campaign) == 2
