"""The judging flow in a real browser: login link, keyboard labels, changing a label, two people
at once, a wrong token, and a document that tries to run script."""

from __future__ import annotations

import threading

import pandas as pd
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from pooljudge.annotate.ui import keys

from tests.support.browser import (
    DONE_TEXT,
    launch_chromium,
    shown_doc,
    shown_pair,
    wait_for_new_pair,
    wait_idle,
)

TIMEOUT_MS = 20_000


def test_login_link_opens_the_judging_page(app, page) -> None:
    _campaign, tokens = app.campaign()
    app.open_as(page, tokens["ann"])
    page.wait_for_selector(".pj-doc-body")
    body = page.inner_text("body")
    assert "ann · annotator" in body and "widgets 101" in body
    assert "runA" not in body  # never which system retrieved the document
    assert page.locator(".st-key-" + keys.label_key(shown_pair(page), 1)).count() == 1


def test_wrong_token_shows_a_message_and_nothing_else(app, page) -> None:
    app.campaign()
    app.open_as(page, "not-a-real-token")
    page.wait_for_selector("text=This login is not valid")
    assert page.locator(".pj-doc-body").count() == 0
    assert page.locator("button").filter(has_text="Relevant").count() == 0
    assert "widgets" not in page.inner_text("body")


def test_keyboard_labels_write_one_version_each(app, page) -> None:
    campaign, tokens = app.campaign()
    app.open_as(page, tokens["ann"])
    seen, pair = [], shown_pair(page)
    for digit in "1010":
        seen.append(shown_doc(page))
        page.keyboard.press(digit)
        pair = wait_for_new_pair(page, pair)
    # A key held down: many presses while the app reruns must not judge a pair twice.
    for _ in range(6):
        page.keyboard.press("1")
    wait_idle(page)
    frame = app.judgments(campaign)
    assert frame["version"].max() == 1
    assert frame.groupby("doc").size().max() == 1
    first = frame.set_index("doc").loc[seen[:4], "label"].tolist()
    assert first == [1, 0, 1, 0]
    assert (frame["seconds"] > 0).all() and frame["source"].eq("human").all()


def test_previous_pair_changes_a_label_as_a_new_version(app, page) -> None:
    campaign, tokens = app.campaign()
    app.open_as(page, tokens["ann"])
    first, pair = shown_doc(page), shown_pair(page)
    page.keyboard.press("1")
    wait_for_new_pair(page, pair)
    page.keyboard.press("b")
    page.wait_for_selector("text=You are changing an earlier judgment")
    page.wait_for_function("p => document.querySelector(`.st-key-label_${p}_0`) !== null", arg=pair)
    wait_idle(page)
    assert shown_doc(page) == first
    page.keyboard.press("0")
    page.wait_for_selector("text=You are changing an earlier judgment", state="detached")
    wait_idle(page)
    rows = app.judgments(campaign).query("doc == @first").sort_values("version")
    assert rows[["version", "label"]].to_numpy().tolist() == [[1, 1], [2, 0]]


def test_two_annotators_at_once_never_share_a_pair_beyond_the_overlap(app) -> None:
    campaign, tokens = app.campaign(people=(("a", "annotator"), ("b", "annotator")),
                                     topics=2)
    errors: list[BaseException] = []

    def judge_all(person: str, digit: str) -> None:
        try:
            _judge_until_done(app, (campaign, person), tokens[person], digit)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    # Playwright's sync API is bound to its thread: each person gets a browser of their own.
    threads = [threading.Thread(target=judge_all, args=(n, d)) for n, d in
               (("a", "1"), ("b", "0"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=240)
    assert not errors, errors
    frame = app.judgments(campaign)
    per_pair = frame.groupby(["topic", "doc"])["annotator"].nunique()
    assert len(per_pair) == 12 and per_pair.eq(1).all()
    assert set(frame["annotator"]) == {"a", "b"}


def test_document_html_never_runs(app, page) -> None:
    hostile = pd.DataFrame({
        "id": ["evil"],
        "title": ['<img src=x onerror="window.__pwned=1;alert(1)">Title'],
        "text": ['<script>window.__pwned=2;alert(2)</script>'
                 '<img src=x onerror="window.__pwned=3"><b id="injected">bold</b> '
                 '<a href="javascript:alert(3)">link</a> widgets'],
    })
    _campaign, tokens = app.campaign(docs=hostile)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    app.open_as(page, tokens["ann"])
    frame = page.wait_for_selector(".pj-doc-body")
    page.wait_for_timeout(500)
    assert dialogs == []
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#injected").count() == 0
    assert page.locator(".pj-doc img, .pj-doc script, .pj-doc a").count() == 0
    assert "<script>window.__pwned=2" in frame.inner_text()
    assert frame.inner_html().count("<mark>") == 1  # only the topic term "widgets", ours


def _label_with_key(app, page, who: tuple[str, str], digit: str, pair: int) -> int | None:
    """Press ``digit`` on ``pair``; the next pair id (None when done).

    Streamlit 1.67 can drop the first key press that follows a slow first page load (measured
    with two Chromiums on two cores: the keydown reached hotkeys-js, no message left the
    browser, the next press worked). A press is repeated only when, after 5 s, the pair is
    still on screen and the database holds no judgment of it, so a repeat can never hide a
    double write: the final counts of the test still see every stored row.
    """
    before = _stored_by(app, who)
    for _attempt in range(3):
        page.keyboard.press(digit)
        try:
            return wait_for_new_pair(page, pair, allow_done=True, timeout=5_000)
        except PlaywrightTimeout:
            if _stored_by(app, who) != before:
                return wait_for_new_pair(page, pair, allow_done=True)
    raise AssertionError(f"three presses of {digit!r} on pair {pair} stored nothing")


def _stored_by(app, who: tuple[str, str]) -> int:
    campaign, person = who
    return int(app.judgments(campaign)["annotator"].eq(person).sum())


def _judge_until_done(app, who: tuple[str, str], token: str, digit: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        pressed: list[int] = []
        try:
            app.open_as(page, token)
            page.locator(".pj-doc-id").or_(page.get_by_text(DONE_TEXT)).first.wait_for()
            current = shown_pair(page) if page.locator(".pj-doc-id").count() else None
            while current is not None:
                pressed.append(current)
                current = _label_with_key(app, page, who, digit, current)
        except Exception as exc:  # say what the page showed: a bare timeout explains nothing
            state = page.evaluate(_PAGE_STATE)
            raise AssertionError(f"{digit!r} presses on pairs {pressed}; page: {state}") from exc
        finally:
            browser.close()


_PAGE_STATE = """() => ({
    script: document.querySelector('[data-testid="stApp"]')?.getAttribute('data-test-script-state'),
    bound: window.hotkeys ? window.hotkeys.getAllKeyCodes().map(k => k.shortcut) : null,
    labels: [...document.querySelectorAll('[class*="st-key-label_"]')]
        .map(e => e.className.match(/st-key-label_\\S+/)?.[0]),
    text: document.body.innerText.slice(0, 600),
})"""
