"""AppTest (no browser): the automatic judge's label as a suggestion on the judging page.

Campaign ``c``: a two-label scale whose label 1 has a Markdown- and HTML-looking name, the
automatic judge ``<i>llm</i>`` labels d1 (1) and d2 (0), order topic (d1, d2, d3, d4).
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from pooljudge.annotate import store
from pooljudge.annotate.records import Label, LabelScale
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui import judge_suggestion, keys

DOCS = {"d1": "7", "d2": "7", "d3": "7", "d4": "8"}
EVIL = "[x](http://evil) <b>bold</b>"
JUDGE = "<i>llm</i>"


@pytest.fixture
def token(app_db, collection) -> str:
    with session_scope(app_db) as session:
        store.create_campaign(session, name="c", overlap=1, order="topic",
                              scale=LabelScale((Label(0, "Off topic"), Label(1, EVIL))),
                              **collection(DOCS, "text of"))
        judge = store.auto_judge(session, campaign="c", name=JUDGE)
        for doc, label in (("d1", 1), ("d2", 0)):
            pair = store.pair_by_key(session, campaign="c", topic="7", doc=doc).pair_id
            store.record_judgment(session, annotator_id=judge, pair_id=pair, label=label,
                                  source="automatic")
        return store.add_annotator(session, campaign="c", name="ann")


def _captions(at) -> list[str]:
    return [h.value for h in at.get("html") if "pj-suggestion" in h.value]


def _suggested(engine) -> list[tuple[str, int | None]]:
    with engine.connect() as connection:
        return [tuple(r) for r in connection.execute(sa.text(
            "SELECT d.key, j.suggested FROM judgment j JOIN pair p ON p.id = j.pair_id "
            "JOIN document d ON d.id = p.document_id WHERE j.source <> 'automatic' "
            "ORDER BY j.id"))]


def _press(at, label: int):
    pair = at.session_state[keys.CURRENT].pair_id
    return at.button(key=keys.label_key(pair, label)).click().run()


def test_no_suggestion_unless_the_campaign_asks(app_db, token, open_page) -> None:
    at = open_page(token)
    assert _captions(at) == []
    _press(at, 0)
    assert _suggested(app_db) == [("d1", None)]


def test_the_suggestion_is_shown_escaped_and_stored_with_the_judgment(
        app_db, token, open_page) -> None:
    with session_scope(app_db) as session:
        store.set_suggest_from(session, campaign="c", name=JUDGE)
    at = open_page(token)
    text = judge_suggestion.suggestion_text(
        store_campaign(app_db), 1, JUDGE)
    assert text == f"Suggested: 1 · {EVIL} ({JUDGE})"
    (caption,) = _captions(at)
    assert "&lt;i&gt;llm&lt;/i&gt;" in caption and "&lt;b&gt;bold&lt;/b&gt;" in caption
    assert "<b>" not in caption and "<i>" not in caption
    _press(at, 0)   # d1, shown 1
    assert "Suggested: 0 · Off topic" in _captions(at)[0]
    _press(at, 0)   # d2, shown 0
    assert _captions(at) == []
    _press(at, 1)   # d3: the judge has no label for it
    assert _suggested(app_db) == [("d1", 1), ("d2", 0), ("d3", None)]


def store_campaign(engine):
    with session_scope(engine, readonly=True) as session:
        return store.get_campaign(session, name="c")
