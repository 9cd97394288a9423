"""AppTest (no browser): the admins' highlight terms page sets a campaign's terms per topic."""

from __future__ import annotations

import pytest
from pooljudge.annotate import store
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui.terms_admin import TERMS_SAVE, TERMS_TOPIC, parse_lines, terms_text_key

from pooljudge.errors import InputError


@pytest.fixture
def boss(app_db, collection) -> str:
    """Campaign ``c`` (topics 7 and 8, topic 8's term ``kept``); the admin's token."""
    with session_scope(app_db) as session:
        store.create_campaign(session, name="c", scale=LabelScale.binary(),
                              **collection({"d1": "7", "d2": "8"}, "text"))
        store.set_topic_terms(session, campaign="c", terms={"8": ["kept"]})
        return store.add_annotator(session, campaign="c", name="boss", role="admin")


def _terms(engine) -> dict[str, tuple[str, ...]]:
    with session_scope(engine, readonly=True) as session:
        return store.campaign_terms(session, campaign="c")


def _campaign_id(engine) -> int:
    with session_scope(engine, readonly=True) as session:
        return store.get_campaign(session, name="c").id


def test_save_replaces_the_topics_terms(app_db, boss, open_page, inert) -> None:
    at = open_page(boss, "terms")
    assert list(at.dataframe[0].value["Topic"]) == ["7", "8"]
    assert at.selectbox(key=TERMS_TOPIC).value == "7"
    key = terms_text_key(_campaign_id(app_db), "7")
    assert at.text_area(key=key).value == ""
    at.text_area(key=key).input('Format\n\n  "Information   Retrieval"\nformat\n')
    at.button(key=TERMS_SAVE).click().run()
    assert not at.exception
    assert _terms(app_db) == {"7": ("format", "information retrieval"), "8": ("kept",)}
    assert inert.markdown(at.success[0].value).text == "Saved 2 terms for topic 7."
    assert at.text_area(key=key).value == "format\ninformation retrieval"
    at.selectbox(key=TERMS_TOPIC).select("8").run()
    assert at.text_area(key=terms_text_key(_campaign_id(app_db), "8")).value == "kept"


def test_a_bad_line_saves_nothing_and_names_its_line(app_db, boss, open_page, inert) -> None:
    at = open_page(boss, "terms")
    at.selectbox(key=TERMS_TOPIC).select("8").run()
    key = terms_text_key(_campaign_id(app_db), "8")
    at.text_area(key=key).input("fine\n" + "x" * 101)
    at.button(key=TERMS_SAVE).click().run()
    assert _terms(app_db)["8"] == ("kept",)
    assert inert.markdown(at.error[0].value).text == (
        "Nothing was saved: terms:2: a term has at most 100 characters, this one 101")


def test_parse_lines_cleans_and_keeps_each_term_once() -> None:
    assert parse_lines(" A  b \n\n a B\nc") == ["a b", "c"]
    with pytest.raises(InputError, match=r"^terms:3: a term must not contain control"):
        parse_lines("a\n\nb\x00")
