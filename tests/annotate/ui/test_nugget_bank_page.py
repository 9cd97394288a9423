"""AppTest (no browser): the nugget-creation pane — relevant passages only, a typed nugget
stored with its passage as source, vital/okay, edit, merge and delete through the store (the
history records each), a stale press acting on nothing, and who gets the page."""

from __future__ import annotations

import pytest
from pooljudge.annotate import store
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui.nugget_bank import bank_mark, box_key

from tests.support.nugget_campaign import make_nugget_campaign, nugget_text

PEOPLE = (("ann", "annotator"), ("judge", "adjudicator"), ("boss", "admin"))


@pytest.fixture
def tokens(app_db) -> dict[str, str]:
    """Campaign ``c``: two topics with a model's bank of three nuggets each."""
    return make_nugget_campaign(app_db, "c", topics=2, nuggets=3, people=PEOPLE)


def _bank(engine, states=("active",)):
    with session_scope(engine, readonly=True) as session:
        return store.nugget_bank(session, campaign="c", states=states)


def _history(engine):
    with session_scope(engine, readonly=True) as session:
        return store.nugget_history(session, campaign="c")


def _press(at, kind: str, what: str):
    mark = bank_mark(*at.session_state[keys.BANK_SHOWN])
    at.button(key=f"{kind}_{mark}_{what}").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _shown(at) -> str:
    return " ".join(h.proto.body for h in at.get("html"))


def test_the_pane_shows_the_topic_its_relevant_passages_and_the_drafts(tokens,
                                                                       open_page) -> None:
    at = open_page(tokens["boss"], "nuggets")
    shown = _shown(at)
    assert "question 301" in shown and "Relevant passage 1 of 2 · document d301-1" in shown
    assert "Passage text of d301-1." in shown
    rows = [b.label for b in at.button if (b.key or "").startswith("bank_focus_")]
    assert len(rows) == 3 and all("draft by gpt" in r.replace("\\", "") for r in rows)
    _press(at, "skip", "passage")
    assert "document d301-2" in _shown(at)
    _press(at, "skip", "passage")                    # d301-3 was judged not relevant
    assert "document d301-2" in _shown(at) and "d301-3" not in _shown(at)


def test_typed_marked_edited_merged_and_deleted_through_the_store(app_db, tokens,
                                                                  open_page) -> None:
    at = open_page(tokens["judge"], "nuggets")
    _press(at, "skip", "passage")                    # the new nugget's source: d301-2
    at.text_input(key=box_key("301", None)).input("Polio vaccine came in 1955").run()
    made = [n for n in _bank(app_db) if n.author == "judge"]
    assert [(n.key, n.text, n.importance, n.sources) for n in made] == [
        ("301-4", "Polio vaccine came in 1955", "okay", ("d301-2",))]
    assert at.session_state[keys.BANK_SHOWN][1] == "301-4"
    assert at.text_input(key=box_key("301", None)).value == ""
    _press(at, "label", "vital")
    _press(at, "act", "edit")
    box = at.text_input(key=box_key("301", "301-4"))
    assert box.value == "Polio vaccine came in 1955"
    box.input("The polio vaccine came in 1955").run()
    _press(at, "back", "nugget")                     # 301-3, a model draft
    _press(at, "act", "merge")
    _press(at, "skip", "nugget")
    _press(at, "act", "merge")                       # 301-3 merged into 301-4
    at.button(key=next(b.key for b in at.button if (b.key or "").startswith("bank_focus_")
                        and nugget_text("301", 1) in b.label.replace("\\", ""))).click().run()
    _press(at, "act", "delete")
    bank = {n.key: n for n in _bank(app_db, ("active", "merged", "deleted"))}
    assert (bank["301-4"].text, bank["301-4"].importance) == ("The polio vaccine came in 1955",
                                                              "vital")
    assert (bank["301-3"].state, bank["301-3"].merged_into) == ("merged", "301-4")
    assert bank["301-1"].state == "deleted" and bank["301-2"].state == "active"
    mine = _history(app_db).query("actor == 'judge'")
    assert mine[["key", "action"]].to_numpy().tolist() == [
        ["301-4", "created"], ["301-4", "edited"], ["301-4", "edited"], ["301-3", "merged"],
        ["301-4", "edited"], ["301-1", "deleted"]]
    assert "model drafts: 3 (kept 1, edited 0, merged 1, deleted 1), added 1" in _shown(at)


def test_a_press_drawn_for_another_focus_acts_on_nothing(app_db, tokens, open_page) -> None:
    at = open_page(tokens["boss"], "nuggets")
    stale = at.button(key=f"act_{bank_mark(*at.session_state[keys.BANK_SHOWN])}_delete")
    _press(at, "skip", "nugget")
    stale.click().run()
    assert len(_bank(app_db)) == 6 and len(_history(app_db)) == 6   # the imports' only
    _press(at, "skip", "topic")
    assert at.session_state[keys.BANK_SHOWN] == ("302", "302-1", 0)


def test_a_nugget_outside_the_hint_is_kept_with_a_note(app_db, tokens, open_page) -> None:
    at = open_page(tokens["boss"], "nuggets")
    words = " ".join(f"w{i}" for i in range(14))
    at.text_input(key=box_key("301", None)).input(words).run()
    assert "14 words: a nugget is best 1–12" in _shown(at)
    at.text_input(key=box_key("301", None)).input(nugget_text("301", 2)).run()
    assert "Not saved" in _shown(at) and "already has a nugget" in _shown(at)
    assert [n.text for n in _bank(app_db)].count(nugget_text("301", 2)) == 1


def test_annotators_do_not_get_the_page(tokens, open_page) -> None:
    at = open_page(tokens["ann"])
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("app_pages/nuggets.py")


def test_a_campaign_without_answers_or_nuggets_hides_the_page(app_db, open_page) -> None:
    tokens = make_nugget_campaign(app_db, "plain", answers=False, nuggets=0,
                                  people=(("boss", "admin"),))
    at = open_page(tokens["boss"])
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("app_pages/nuggets.py")
    tokens = make_nugget_campaign(app_db, "drafts", answers=False,
                                  people=(("chief", "admin"),))
    at = open_page(tokens["chief"], "nuggets")
    assert "question 301" in _shown(at)


def test_a_second_edit_starts_from_the_text_as_stored(app_db, tokens, open_page) -> None:
    at = open_page(tokens["boss"], "nuggets")
    for text in ("first rewording", "second rewording"):
        _press(at, "act", "edit")
        box = at.text_input(key=box_key("301", "301-1"))
        assert box.value == (nugget_text("301", 1) if text.startswith("first")
                             else "first rewording")
        box.input(text).run()
    assert [n.text for n in _bank(app_db) if n.key == "301-1"] == ["second rewording"]
