"""Hostile names in a real browser: on the judging page, its sidebar and the admin pages, no
name from an upload becomes a link, an image, a script or any other element, and every name
still reads as written.

The campaign, its people, labels, topic, documents, guidelines and comments all carry
Markdown links and images, bare URLs, ``www.`` and e-mail addresses, HTML tags and Streamlit
directives, icons, emoji and math. What is checked is the DOM Chromium built, so it covers
Streamlit's own Markdown pipeline (remark-gfm autolinks included), not a model of it.
"""

from __future__ import annotations

import pandas as pd
import pytest
from pooljudge.annotate import store
from pooljudge.annotate.records import Label, LabelScale
from pooljudge.annotate.store import session_scope

from tests.support.browser import shown_pair, wait_idle

EVIL = ('[x](http://evil.example/a) ![i](https://evil.example/i.png) www.evil.example '
        'someone@evil.example mailto:me@evil.example <a href="http://evil.example/h">h</a> '
        '<img src=x onerror=alert(1)> <script>alert(1)</script> :red[x] :material/home: '
        ':streamlit: :smile: $x$')
CAMPAIGN = f"camp {EVIL}"
ANN, OTHER, BOSS = f"ann {EVIL}", f"other {EVIL}", f"boss {EVIL}"
TOPIC = "t7<b>[x](http://evil.example/t)</b>"
DOCS = [f"d{i}<i>[x](http://evil.example/d{i})</i>" for i in (1, 2, 3)]
SCALE = LabelScale((Label(0, f"no {EVIL}", f"not it {EVIL}"), Label(1, f"yes {EVIL}", EVIL)))
# Anything in the DOM a name could have turned into.
NOT_FROM_NAMES = {
    "link to evil.example": 'a[href*="evil.example"]',
    "mail link": 'a[href^="mailto:"]',
    "image from a name": 'img[src="x"], img[src*="evil.example"], [onerror]',
    "Streamlit logo": 'img[alt="Streamlit logo"]',
    "colored text": ".stMarkdownColoredText",
    "math": ".katex",
}


@pytest.fixture(scope="module")
def tokens(app) -> dict[str, str]:
    """``other`` judged d1..d3 (with comments), ``ann`` judged d1 the other way: ann's next
    pair is d2, with other's label shown; d1 waits for adjudication."""
    topics = pd.DataFrame({"id": [TOPIC], "title": f"widgets {EVIL}",
                           "description": f"desc {EVIL}", "narrative": f"# n\n{EVIL}"})
    documents = pd.DataFrame({"id": DOCS, "title": f"title {EVIL}", "text": f"text {EVIL}"})
    pool = pd.DataFrame({"topic": TOPIC, "doc": DOCS, "order": [1, 2, 3],
                         "best_rank": [1, 2, 3], "runs": "r"})
    judged = pd.DataFrame({"annotator": [OTHER] * 3 + [ANN], "topic": TOPIC,
                           "doc": [*DOCS, DOCS[0]], "label": ["1", "0", "1", "0"],
                           "comment": f"comment {EVIL}"})
    with session_scope(app.engine) as session:
        store.create_campaign(session, name=CAMPAIGN, scale=SCALE, overlap=2, order="topic",
                              guidelines=f"# rules\n{EVIL}", show_others_labels=True,
                              topics=topics, documents=documents, pool=pool)
        found = {name: store.add_annotator(session, campaign=CAMPAIGN, name=name, role=role)
                 for name, role in ((ANN, "annotator"), (OTHER, "annotator"), (BOSS, "admin"))}
        store.import_judgments(session, campaign=CAMPAIGN, frame=judged, source="human")
    return found


def _check(page, *names: str) -> None:
    """Nothing in the DOM came from a name, no script of theirs exists, and each name reads
    as written (U+2060 word joiners, invisible, removed)."""
    wait_idle(page)
    found = {what: page.locator(selector).count() for what, selector in NOT_FROM_NAMES.items()}
    assert found == dict.fromkeys(NOT_FROM_NAMES, 0)
    assert not page.evaluate(
        "() => [...document.scripts].some(s => s.textContent.includes('alert(1)'))")
    shown = " ".join(page.inner_text("body").replace("\u2060", "").split())
    assert "😄" not in shown                               # :smile: stayed a shortcode
    for name in names:
        assert " ".join(name.split()) in shown, name


def test_the_judging_page_and_its_sidebar_show_names_literally(app, page, tokens) -> None:
    app.open_as(page, tokens[ANN])
    shown_pair(page)
    page.get_by_text("Other annotators").first.wait_for()
    _check(page, ANN, CAMPAIGN, SCALE.labels[0].name, SCALE.labels[1].name, OTHER, DOCS[1],
           f"widgets {EVIL}", f"text {EVIL}")
    for expander in ("Guidelines", "Labels"):
        page.locator('[data-testid="stSidebar"] summary').filter(has_text=expander).click()
    _check(page, f"# rules\n{EVIL}", f"1 · yes {EVIL}: {EVIL}")


@pytest.mark.parametrize(("path", "ready", "names"), [
    ("overview", "By annotator", ()),
    ("agreement", "Confusion matrix", (f"Confusion matrix: {ANN} × {OTHER}",)),
    ("adjudicate", "disagreements wait", (f"{OTHER}: comment {EVIL}", SCALE.labels[1].name)),
    ("people", "People ·", (f"People · {CAMPAIGN}",)),
])
def test_admin_pages_show_names_literally(app, page, tokens, path, ready, names) -> None:
    app.open_as(page, tokens[BOSS], f"/{path}")
    page.get_by_text(ready).first.wait_for()
    _check(page, BOSS, CAMPAIGN, *names)
