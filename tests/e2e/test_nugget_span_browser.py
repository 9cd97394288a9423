"""The creation pane's selection picker in a real Chromium at 1366x768: a span selected in the
passage, ``s``, Enter — a nugget with exactly that text (HTML in it kept literal) and the
passage as its source; a selection reaching outside the passage is clipped to it; ``s`` with
nothing selected, or with only the topic card selected, does nothing."""

from __future__ import annotations

from tests.support.browser import act_and_wait_run, wait_idle, wait_keys_ready
from tests.support.nugget_campaign import make_nugget_campaign

EVIL = " <b>bold</b> & [link](http://evil.example)"
SELECT = r"""([fromCard, start, end]) => {
    // select characters start..end of the passage's text node holding "Passage text of"
    const passage = document.querySelector('[data-pj-part="document"]');
    const walker = document.createTreeWalker(passage, NodeFilter.SHOW_TEXT);
    let node;
    while ((node = walker.nextNode()) && !node.data.includes("Passage text of"));
    const range = document.createRange();
    if (fromCard) {
        const card = document.querySelector('[data-pj-part="topic"]');
        range.setStart(card, 0);
    } else {
        range.setStart(node, start);
    }
    range.setEnd(node, end ?? node.data.length);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    return node.data;
}"""


def _ready(page) -> None:
    page.locator('[class*="st-key-label_"] button').first.wait_for(state="visible")
    wait_idle(page)
    wait_keys_ready(page)


def _box(page) -> str:
    return page.locator('[class*="st-key-comment_bank_"] input').input_value()


def _picked(page) -> int:
    return page.evaluate("() => (window.__pooljudgeSpanPick || {picked: 0}).picked")


def test_a_selected_span_becomes_a_nugget_with_its_passage(app, laptop) -> None:
    from pooljudge.annotate import store
    from pooljudge.annotate.store import session_scope

    tokens = make_nugget_campaign(app.engine, "spans", topics=1, nuggets=0, evil=EVIL,
                                  people=(("chief", "admin"),))
    app.open_as(laptop, tokens["chief"], "/nuggets")
    _ready(laptop)
    laptop.keyboard.press("s")                     # nothing selected: nothing happens
    assert _picked(laptop) == 0 and _box(laptop) == ""
    text = laptop.evaluate(SELECT, [False, 0, None])
    assert text == f"Passage text of d301-1.{EVIL}"
    laptop.keyboard.press("s")
    laptop.wait_for_function("() => window.__pooljudgeSpanPick.picked === 1")
    assert _box(laptop) == text                    # the page's own text, HTML and all
    act_and_wait_run(laptop, lambda: laptop.keyboard.press("Enter"))
    laptop.get_by_text("Added nugget 301-1").first.wait_for()
    _ready(laptop)
    laptop.evaluate(SELECT, [True, 0, 12])         # from the topic card into the passage
    laptop.keyboard.press("s")
    laptop.wait_for_function("() => window.__pooljudgeSpanPick.picked === 2")
    assert _box(laptop) == "Passage text"          # clipped to the passage
    act_and_wait_run(laptop, lambda: laptop.keyboard.press("Enter"))
    laptop.get_by_text("Added nugget 301-2").first.wait_for()
    with session_scope(app.engine, readonly=True) as session:
        bank = store.nugget_bank(session, campaign="spans")
    assert [(n.text, n.sources, n.author) for n in bank] == [
        (text, ("d301-1",), "chief"), ("Passage text", ("d301-1",), "chief")]
    assert laptop.locator("b", has_text="bold").count() == 0   # never rendered as HTML
