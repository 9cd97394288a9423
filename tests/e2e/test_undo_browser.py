"""Undo and the recent judgments in a real browser (Chromium at 1366x768), keyboard only for the
judging: a label, ``u`` brings the same pair back with a message and a withdrawal stored, the
next label is version 3; the recent strip lists the last labels, and choosing one shows it as
an earlier judgment to change.

References are independent of the page's code: the database (what was stored), the pair id
of the buttons on screen and the shortcuts Streamlit itself bound.
"""

from __future__ import annotations

import pandas as pd
import pytest

from tests.support.browser import shown_pair, wait_for_new_pair, wait_idle, wait_keys_ready

STRIP = ".st-key-recent_strip"


@pytest.fixture
def laptop(page):
    """The module's tab (conftest ``page``) at a laptop's 1366x768."""
    page.set_viewport_size({"width": 1366, "height": 768})
    return page


def _press(page, key: str) -> None:
    """Press ``key`` once the last run has finished and its shortcuts are bound (a key pressed
    during a run acts on a pair no longer displayed, and the page rightly ignores it)."""
    wait_idle(page)
    wait_keys_ready(page)
    page.keyboard.press(key)


def _rows(app, campaign: str) -> list[list]:
    """(doc, version, status, label or None) of every judgment row, in the order written."""
    rows = app.judgments(campaign).sort_values(["created_at", "version"])
    return [[d, int(v), s, None if pd.isna(lab) else int(lab)]
            for d, v, s, lab in rows[["doc", "version", "status", "label"]].itertuples(
                index=False)]


def test_u_withdraws_the_last_label_and_shows_the_pair_again(app, laptop) -> None:
    page = laptop
    campaign, tokens = app.campaign()
    app.open_as(page, tokens["ann"])
    first = shown_pair(page)
    _press(page, "1")
    second = wait_for_new_pair(page, first)
    _press(page, "u")
    assert wait_for_new_pair(page, second) == first      # the same pair is back
    assert "Withdrawn: 101 · d1 · 1 · Relevant" in page.locator("body").inner_text()
    assert _rows(app, campaign) == [["d1", 1, "label", 1], ["d1", 2, "withdrawn", None]]
    _press(page, "0")                             # labelled anew: version 3
    assert wait_for_new_pair(page, first) == second
    assert _rows(app, campaign)[-1] == ["d1", 3, "label", 0]


def test_the_recent_strip_lists_the_last_labels_and_jumps_back(app, laptop) -> None:
    page = laptop
    campaign, tokens = app.campaign()
    app.open_as(page, tokens["ann"])
    pair = shown_pair(page)
    ids = [pair]
    for key in "101":
        _press(page, key)
        pair = wait_for_new_pair(page, pair)
        ids.append(pair)
    chips = page.locator(f"{STRIP} button", has_text="·")  # not the help icon
    assert [" ".join(t.split()) for t in chips.all_inner_texts()] == [
        "101 · d3 · 1 · Relevant", "101 · d2 · 0 · Not relevant", "101 · d1 · 1 · Relevant"]
    chips.nth(2).click()                                 # the oldest: d1
    assert wait_for_new_pair(page, pair) == ids[0]
    wait_idle(page)
    assert "changing an earlier judgment" in page.locator("body").inner_text()
    _press(page, "0")                             # the change is version 2
    assert wait_for_new_pair(page, ids[0]) == pair       # back to the claimed pair
    assert _rows(app, campaign)[-1] == ["d1", 2, "label", 0]
