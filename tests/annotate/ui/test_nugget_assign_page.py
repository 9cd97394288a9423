"""AppTest (no browser): the nugget assignment pane — the queue, labels by button written for
the cell on screen (and a stale press writing nothing), moves, hostile texts shown literally,
the menu offering the page only where there is something to assign."""

from __future__ import annotations

import pytest
from pooljudge.annotate import store
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui.nugget_assign import DONE, NOTHING, cell_mark

from tests.support.nugget_campaign import make_nugget_campaign

PEOPLE = (("ann", "annotator"), ("bob", "annotator"), ("boss", "admin"))


@pytest.fixture
def tokens(app_db) -> dict[str, str]:
    """Campaign ``c``: two topics, three nuggets each, two answers per topic."""
    return make_nugget_campaign(app_db, "c", topics=2, nuggets=3, people=PEOPLE)


def _cells(engine, person: str | None = None):
    with session_scope(engine, readonly=True) as session:
        frame = store.nugget_cells(session, campaign="c")
    return frame if person is None else frame[frame["assessor"] == person]


def _press(at, kind: str, what: str):
    answer, nugget = at.session_state[keys.ASSIGN_SHOWN]
    return at.button(key=keys.cell_key(kind, cell_mark(answer, nugget), what)).click().run()


def test_labels_go_to_the_cell_on_screen_and_the_focus_moves_on(app_db, tokens,
                                                                open_page) -> None:
    at = open_page(tokens["ann"], "assign")
    assert at.session_state[keys.ASSIGN_SHOWN] == ("r1/301", "301-1")
    shown = " ".join(h.proto.body for h in at.get("html"))
    assert "First sentence by r1 on 301. [d301-1]" in shown
    assert "Second sentence. [d301-2] [outside-1]" in shown
    assert "r1" not in shown.replace("First sentence by r1", "")   # no run, no answer id
    for value in "210":
        _press(at, "label", value)
        assert not at.exception, [e.value for e in at.exception]
    cells = _cells(app_db, "ann")
    assert cells[["answer", "nugget", "label"]].to_numpy().tolist() == [
        ["r1/301", "301-1", "support"], ["r1/301", "301-2", "partial_support"],
        ["r1/301", "301-3", "not_support"]]
    assert (cells["assessor"] == "ann").all() and _cells(app_db, "bob").empty
    assert at.session_state[keys.ASSIGN_SHOWN] == ("r1/301", "301-3")  # the last stays
    _press(at, "skip", "answer")                                          # n: the next answer
    assert at.session_state[keys.ASSIGN_SHOWN] == ("r2/301", "301-1")


def test_a_press_for_a_cell_no_longer_on_screen_writes_nothing(app_db, tokens,
                                                               open_page) -> None:
    at = open_page(tokens["ann"], "assign")
    stale = at.button(key=keys.cell_key("label", cell_mark("r1/301", "301-1"), "2"))
    _press(at, "skip", "nugget")                                          # j: focus nugget 2
    assert at.session_state[keys.ASSIGN_SHOWN] == ("r1/301", "301-2")
    stale.click().run()                     # the button drawn for nugget 1, pressed late
    assert _cells(app_db).empty
    _press(at, "label", "1")
    _press(at, "back", "nugget")                                          # k: back to nugget 2
    assert at.session_state[keys.ASSIGN_SHOWN] == ("r1/301", "301-2")
    assert _cells(app_db)[["nugget", "label"]].to_numpy().tolist() == [["301-2",
                                                                        "partial_support"]]


def test_next_answer_skips_done_answers_and_the_end_says_so(app_db, tokens, open_page) -> None:
    with session_scope(app_db) as session:               # r1/302 is done for ann already
        for i in (1, 2, 3):
            store.record_nugget_assignment(session, credential=store.Credential(
                "token", tokens["ann"]), campaign="c", answer="r1/302", nugget=f"302-{i}",
                label="support")
    at = open_page(tokens["ann"], "assign")
    seen = []
    while at.session_state[keys.ASSIGN_SHOWN] is not None:
        seen.append(at.session_state[keys.ASSIGN_SHOWN][0])
        for _ in range(3):
            _press(at, "label", "0")
        _press(at, "skip", "answer")
    assert seen == ["r1/301", "r2/301", "r2/302"]
    assert any(DONE in s.value for s in at.success)
    at.button(key=keys.cell_key("back", 0, "answer")).click().run()       # p: the last answer
    assert at.session_state[keys.ASSIGN_SHOWN] == ("r2/302", "302-1")
    assert len(_cells(app_db, "ann")) == 12


def test_a_checklist_click_focuses_a_nugget(tokens, open_page) -> None:
    at = open_page(tokens["bob"], "assign")
    at.button(key=keys.nugget_focus_key(0, 2)).click().run()
    assert at.session_state[keys.ASSIGN_SHOWN] == ("r1/301", "301-3")
    labels = [b.label for b in at.button if b.key and b.key.startswith("nugget_focus_0_")]
    assert [label.split(" ", 1)[0] for label in labels] == ["·", "·", "·"]


@pytest.mark.parametrize("person", ["ann", "boss"])
def test_every_role_of_a_nugget_campaign_gets_the_page(tokens, open_page, person) -> None:
    at = open_page(tokens[person], "assign")
    assert at.session_state[keys.ASSIGN_SHOWN] == ("r1/301", "301-1")


def test_a_campaign_without_answers_or_nuggets_hides_the_page(app_db, open_page) -> None:
    for name, kind in (("plain", {"answers": False}), ("bare", {"nuggets": 0})):
        tokens = make_nugget_campaign(app_db, name, people=((f"{name}-ann", "annotator"),),
                                      **kind)
        at = open_page(tokens[f"{name}-ann"])
        assert not at.exception
        with pytest.raises(ValueError, match="Could not find a navigation page"):
            at.switch_page("app_pages/assign.py")


def test_the_page_run_on_its_own_in_an_empty_campaign_says_so(app_db, open_page,
                                                             monkeypatch) -> None:
    from pooljudge.annotate.ui import session

    tokens = make_nugget_campaign(app_db, "plain", answers=False, people=(("ann", "annotator"),))
    monkeypatch.setattr(session, "nugget_features", lambda user: frozenset({"answers"}))
    at = open_page(tokens["ann"], "assign")
    assert any(NOTHING.split(".")[0] in i.value.replace("\\", "") for i in at.info)
    assert at.session_state[keys.ASSIGN_SHOWN] is None
