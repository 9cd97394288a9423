"""The judging page on a laptop, keyboard only, in a real browser (Chromium at 1366x768 and
1280x720): the comment box never traps the keyboard, the buttons and the document's start are
in the first screen, the keys scroll the document in its frame, the legend lists every key bound
and ``?`` toggles it, a 5-grade scale is never cut off, and an admin's link opens Overview.

References are independent of the page's code: the database (what was stored), the DOM's
geometry, the shortcuts Streamlit itself bound (``window.hotkeys``), and the keys the judging
page's specification names.
"""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd
import pytest
import sqlalchemy as sa
from pooljudge.annotate import store
from pooljudge.annotate.records import Label, LabelScale
from pooljudge.annotate.store import session_scope

from tests.support.browser import (
    act_and_wait_run,
    shown_pair,
    wait_for_new_pair,
    wait_idle,
    wait_keys_ready,
)

LAPTOPS = [pytest.param((1366, 768), id="1366x768"), pytest.param((1280, 720), id="1280x720")]
# The page's own keys at the defaults, as the specification lists them (buttons come on top).
PAGE_KEYS = {"/", "Space", "PageDown", "PageUp", "j", "k", "Down", "Up", "Home", "End", "?",
             "Esc", "Enter"}
# Five grades with long names (the "2 · Highly relev…" was cut at 1400 px).
FIVE = LabelScale((Label(0, "Not relevant", "nothing on the topic"),
                   Label(1, "Marginally relevant"), Label(2, "Highly relevant"),
                   Label(3, "Perfectly relevant"), Label(4, "Key document, essential reading")))
TEXT = ("FeedParser - An email feed parser.\n\n" + "=" * 400 + "\n"
        + "\n".join(f"Line {i}: the parser reads widgets one line at a time." for i in range(150))
        + "\nThe last line of the document.")

BOX = "[class*='st-key-comment_'] input"
FRAME = ".pj-doc-body"


@pytest.fixture
def laptop(browser, request) -> Iterator[object]:
    """A tab of ``request.param`` pixels (default 1366x768)."""
    width, height = getattr(request, "param", (1366, 768))
    context = browser.new_context(viewport={"width": width, "height": height})
    tab = context.new_page()
    tab.set_default_timeout(20_000)
    yield tab
    context.close()


def _campaign(app, *, scale: LabelScale = FIVE, docs: int = 4) -> tuple[str, dict[str, str]]:
    """A campaign of ``docs`` long documents under ``scale``: its name, tokens of ann and boss."""
    name = f"k{next(app._names)}"
    ids = [f"d{i}" for i in range(1, docs + 1)]
    documents = pd.DataFrame({"id": ids, "title": [f"Document {d}" for d in ids], "text": TEXT})
    topics = pd.DataFrame({"id": ["101"], "title": "widgets parser",
                           "description": "Find documents about parsing widgets.",
                           "narrative": "Anything that parses widgets is relevant."})
    pool = pd.DataFrame({"topic": "101", "doc": ids, "order": range(1, docs + 1),
                         "best_rank": range(1, docs + 1), "runs": "runA"})
    with session_scope(app.engine) as session:
        store.create_campaign(session, name=name, scale=scale, topics=topics, documents=documents,
                              pool=pool)
        tokens = {person: store.add_annotator(session, campaign=name, name=person, role=role)
                  for person, role in (("ann", "annotator"), ("boss", "admin"))}
    return name, tokens


def _open(app, page, token: str) -> int:
    app.open_as(page, token)
    return shown_pair(page)


def _stored(app, campaign: str) -> pd.DataFrame:
    return app.judgments(campaign).sort_values("created_at").reset_index(drop=True)


def _focus(page) -> str:
    """What has the keyboard: the tag of the focused element (BODY when nothing does)."""
    return page.evaluate("document.activeElement ? document.activeElement.tagName : 'BODY'")


def _scroll(page) -> dict[str, float]:
    return page.eval_on_selector(FRAME, "f => ({top: f.scrollTop, height: f.clientHeight, "
                                        "total: f.scrollHeight})")


# --- 1. the comment box never traps the keyboard --------------------------------------------------

@pytest.mark.parametrize("laptop", LAPTOPS[:1], indirect=True)
def test_escape_and_enter_leave_the_comment_and_the_next_label_key_labels(app, laptop) -> None:
    page = laptop
    campaign, tokens = _campaign(app, scale=LabelScale.binary(), docs=4)
    pair = _open(app, page, tokens["ann"])
    page.locator(BOX).click()                            # the mouse puts the focus in the box
    page.keyboard.type("only the intro, 10 of them")     # digits typed here are text
    page.keyboard.press("Escape")
    assert _focus(page) == "BODY"
    page.keyboard.press("1")                             # at once: no wait for the rerun
    pair = wait_for_new_pair(page, pair)
    page.keyboard.press("/")                             # the comment key focuses the box
    page.wait_for_function(f"document.activeElement?.matches(\"{BOX}\")")
    page.keyboard.type("second")
    act_and_wait_run(page, lambda: page.keyboard.press("Enter"))  # keeps the comment (a run)
    page.wait_for_function("document.activeElement === document.body")  # and leaves the box
    assert page.locator(BOX).input_value() == "second"
    page.keyboard.press("0")
    pair = wait_for_new_pair(page, pair)
    for digit in "10":                                   # and every later press labels
        page.keyboard.press(digit)
        pair = wait_for_new_pair(page, pair, allow_done=True)
    stored = _stored(app, campaign)
    assert stored[["doc", "label", "version"]].to_numpy().tolist() == [
        ["d1", 1, 1], ["d2", 0, 1], ["d3", 1, 1], ["d4", 0, 1]]
    assert stored["comment"].tolist()[:2] == ["only the intro, 10 of them", "second"]
    assert stored["comment"].iloc[2:].isna().all()


# --- 3. the laptop layout -------------------------------------------------------------------------

@pytest.mark.parametrize("laptop", LAPTOPS, indirect=True)
def test_buttons_and_the_documents_start_are_in_the_first_screen(app, laptop) -> None:
    page = laptop
    _campaign_name, tokens = _campaign(app)
    _open(app, page, tokens["ann"])
    page.wait_for_timeout(300)                           # the frame's height is fitted
    height = page.viewport_size["height"]
    geometry = page.evaluate(f"""() => {{
        const box = el => el.getBoundingClientRect();
        const buttons = [...document.querySelectorAll('[class*="st-key-label_"]')]
            .map(el => el.querySelector('button'));
        const frame = document.querySelector('{FRAME}');
        const scrolled = [...document.querySelectorAll('*')].some(e => e.scrollTop > 0);
        return {{buttons: buttons.map(b => box(b).bottom), top: box(frame).top,
                 bottom: box(frame).bottom, wide: frame.scrollWidth - frame.clientWidth,
                 first: frame.innerText.split('\\n')[0], scrolled}};
    }}""")
    assert not geometry["scrolled"]                      # nothing was scrolled to get here
    assert len(geometry["buttons"]) == 5 and max(geometry["buttons"]) <= height
    assert geometry["top"] + 150 <= height               # the document's first lines show
    assert geometry["bottom"] <= height                  # and the whole frame: its end too
    assert geometry["first"] == "FeedParser - An email feed parser."
    assert geometry["wide"] <= 0                         # the ===== line stays in the frame


@pytest.mark.parametrize("laptop", [pytest.param((1280, 720), id="1280x720")], indirect=True)
def test_a_five_grade_scale_is_never_cut_off(app, laptop) -> None:
    page = laptop
    _campaign_name, tokens = _campaign(app)
    _open(app, page, tokens["ann"])
    labels = page.evaluate("""() => [...document.querySelectorAll('[class*="st-key-label_"]')]
        .map(el => ({text: el.innerText.replace(/\\s+/g, ' ').trim(),
                     cut: [el, ...el.querySelectorAll('*')].filter(e => {
                         const css = getComputedStyle(e);
                         const wide = e.scrollWidth > e.clientWidth + 1;
                         const tall = e.scrollHeight > e.clientHeight + 1;
                         return (wide && css.overflowX !== 'visible')
                             || (tall && css.overflowY !== 'visible');
                     }).length}))""")
    names = [f"{x.value} · {x.name}" for x in FIVE.labels]
    assert [x["cut"] for x in labels] == [0] * 5
    for label, name in zip(labels, names, strict=True):
        assert label["text"].startswith(name), (label, name)   # the whole name, then the key


# --- keyboard scrolling ---------------------------------------------------------------------------

@pytest.mark.parametrize("laptop", LAPTOPS[:1], indirect=True)
def test_keys_scroll_the_document_in_its_frame(app, laptop) -> None:
    page = laptop
    campaign, tokens = _campaign(app)
    _open(app, page, tokens["ann"])
    moves = {}
    for key in ("Space", "PageDown", "j", "ArrowDown", "k", "ArrowUp", "PageUp"):
        before = _scroll(page)["top"]
        page.keyboard.press(key)
        page.wait_for_function(f"document.querySelector('{FRAME}').scrollTop !== {before}")
        moves[key] = _scroll(page)["top"] - before
    assert moves["Space"] > 0 and moves["PageDown"] > 0 and moves["j"] > 0
    assert moves["ArrowDown"] > 0 and moves["k"] < 0 and moves["ArrowUp"] < 0
    assert moves["PageUp"] < 0
    page.keyboard.press("End")
    page.wait_for_function(f"(f => f.scrollTop + f.clientHeight >= f.scrollHeight - 1)"
                           f"(document.querySelector('{FRAME}'))")
    assert page.get_by_text("The last line of the document.").is_visible()
    page.keyboard.press("Home")
    page.wait_for_function(f"document.querySelector('{FRAME}').scrollTop === 0")
    # Space scrolls even when a button has the focus (after a click): it does not press it.
    page.locator("[class*='st-key-label_'] button").first.focus()
    page.keyboard.press("Space")
    page.wait_for_function(f"document.querySelector('{FRAME}').scrollTop > 0")
    wait_idle(page)
    assert app.judgments(campaign).empty
    assert page.evaluate("window.scrollY") == 0          # the page itself never moved


# --- the legend -----------------------------------------------------------------------------------

@pytest.mark.parametrize("laptop", LAPTOPS[:1], indirect=True)
def test_the_legend_lists_every_bound_key_and_question_mark_toggles_it(app, laptop) -> None:
    page = laptop
    _campaign_name, tokens = _campaign(app)
    _open(app, page, tokens["ann"])
    legend = page.locator(".pj-legend")
    assert not legend.is_visible()
    page.keyboard.press("?")
    legend.wait_for(state="visible")
    box = legend.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"]
    listed = {k.lower() for k in legend.locator(".pj-legend-row:not(.pj-legend-idle) b")
              .all_inner_texts()}
    idle = {k.lower() for k in legend.locator(".pj-legend-idle b").all_inner_texts()}
    assert idle == {"n", "u"}  # forward and undo do nothing on a first new pair: greyed
    bound = page.evaluate("[...new Set(window.hotkeys.getAllKeyCodes().map(k => k.shortcut))]")
    buttons = {"0", "1", "2", "3", "4", "s", "b"}      # the five labels, skip, previous pair
    assert buttons <= set(bound)
    assert listed == {k.lower() for k in buttons | PAGE_KEYS}
    assert set(bound) - {"c", "r"} <= listed             # Streamlit's own c and r aside
    page.keyboard.press("?")
    legend.wait_for(state="hidden")
    page.keyboard.press("?")
    legend.wait_for(state="visible")
    page.keyboard.press("Escape")                        # Esc closes it too
    legend.wait_for(state="hidden")


# --- 8. an admin's link ---------------------------------------------------------------------------

@pytest.mark.parametrize("laptop", LAPTOPS[:1], indirect=True)
def test_an_admins_link_lands_on_overview_and_claims_no_pair(app, laptop) -> None:
    page = laptop
    campaign, tokens = _campaign(app)
    app.open_as(page, tokens["boss"])
    page.get_by_text("By annotator").first.wait_for()
    wait_idle(page)
    assert page.url.split("?")[0].endswith("/overview")
    assert page.locator(FRAME).count() == 0
    assert page.locator("[class*='st-key-label_']").count() == 0
    with session_scope(app.engine, readonly=True) as session:
        boss = store.annotator_id(session, campaign=campaign, name="boss")
        claims = session.execute(sa.text("SELECT COUNT(*) FROM claim WHERE annotator_id = :a"),
                                 {"a": boss}).scalar()
    assert claims == 0
    page.locator('[data-testid="stSidebarNav"] a[href$="/judge"]').click()  # on purpose
    page.wait_for_selector(FRAME)
    wait_keys_ready(page)
    assert page.url.split("?")[0].endswith("/judge")
    assert app.judgments(campaign).empty
