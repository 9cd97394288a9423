"""A passage judged inside its long document, in Chromium at 1366x768: when a pair appears, its
marked passage is inside the document frame's visible part and on the screen, without the user
scrolling, and the page itself is not scrolled; the next pair's passage too.

References are independent of the page's code: the DOM's geometry (the mark's rectangle against
the frame's and the window's) and the offsets stored with the campaign.
"""

from __future__ import annotations

import pandas as pd
from pooljudge.annotate import store
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import session_scope

from tests.support.browser import shown_pair, wait_for_new_pair, wait_idle

LINES = [f"Line {i}: the parser reads widgets one line at a time." for i in range(300)]
TEXT = "\n".join(LINES)
MARK = ".pj-doc-body mark.pj-passage"


def _span(first: int, last: int) -> tuple[int, int]:
    """The offsets of lines ``first`` to ``last`` (inclusive) in TEXT."""
    start = sum(len(line) + 1 for line in LINES[:first])
    return start, start + len("\n".join(LINES[first:last + 1]))


def _campaign(app) -> str:
    """Passages of one 300-line document: lines 200-202 first, then lines 40-41; ann's token."""
    name = f"p{next(app._names)}"
    documents = pd.DataFrame({"id": ["D"], "title": ["A long document"], "text": [TEXT]})
    topics = pd.DataFrame({"id": ["101"], "title": "widgets parser",
                           "description": "Find passages about parsing widgets.",
                           "narrative": "Anything that parses widgets is relevant."})
    units = pd.DataFrame([("D#deep", "D", *_span(200, 202)), ("D#early", "D", *_span(40, 41))],
                         columns=["chunk", "doc", "start", "end"])
    pool = pd.DataFrame({"topic": "101", "doc": ["D#deep", "D#early"], "order": [1, 2],
                         "best_rank": [1, 2], "runs": "runA"})
    with session_scope(app.engine) as session:
        store.create_campaign(session, name=name, scale=LabelScale.binary(), topics=topics,
                              documents=documents, pool=pool, units=units)
        return store.add_annotator(session, campaign=name, name="ann")


def _geometry(page) -> dict:
    """The mark's, the frame's and the window's rectangles once the mark has been placed (its
    top stays put for 300 ms), and the scroll positions."""
    page.wait_for_function(
        """(selector) => {
            const mark = document.querySelector(selector);
            if (!mark) return false;
            const top = Math.round(mark.getBoundingClientRect().top);
            const state = (window.__passageProbe ??= { top: null, since: 0 });
            if (state.top !== top) { state.top = top; state.since = performance.now(); }
            return performance.now() - state.since > 300;
        }""", arg=MARK, polling=50)
    return page.evaluate(
        """(selector) => {
            const mark = document.querySelector(selector);
            const frame = mark.closest('.pj-doc-body');
            const m = mark.getBoundingClientRect(), f = frame.getBoundingClientRect();
            window.__passageProbe = null;
            return { markTop: m.top, markBottom: m.bottom, frameTop: f.top,
                     frameBottom: f.top + frame.clientHeight, frameScroll: frame.scrollTop,
                     windowHeight: window.innerHeight, pageScroll: window.scrollY,
                     text: mark.innerText };
        }""", MARK)


def _assert_in_view(shape: dict, first_line: int) -> None:
    assert shape["text"].startswith(f"Line {first_line}:")
    assert shape["pageScroll"] == 0                                   # the page did not move
    assert shape["frameTop"] <= shape["markTop"] < shape["markBottom"] <= shape["frameBottom"]
    assert shape["markTop"] >= 0 and shape["markBottom"] <= shape["windowHeight"]


def test_the_marked_passage_is_in_view_without_scrolling(app, laptop) -> None:
    token = _campaign(app)
    app.open_as(laptop, token)
    pair = shown_pair(laptop)
    deep = _geometry(laptop)
    _assert_in_view(deep, 200)
    assert deep["frameScroll"] > 0         # line 200 of 300 is far below the frame's first screen
    assert "chars" in laptop.locator(".pj-passage-caption").inner_text()
    laptop.keyboard.press("1")
    wait_for_new_pair(laptop, pair)
    wait_idle(laptop)
    early = _geometry(laptop)
    _assert_in_view(early, 40)
    assert early["frameScroll"] < deep["frameScroll"]
