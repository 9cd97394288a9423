"""The nugget panes in a real Chromium at 1366x768, by keyboard alone.

- Assignment: 30 cells (6 answers x 5 nuggets), one of them by a held key and one by a double
  press; the store then holds exactly the 30 labels keyed, each written once, for the cells
  that were on screen.
- Creation: 20 nuggets typed from two topics' relevant passages (each with the passage shown as
  its source), marked vital or okay, two merged; the bank and its history hold exactly that.
"""

from __future__ import annotations

import sqlite3

from pooljudge.annotate.ui.nugget_assign import LABEL_KEYS

from tests.support.browser import act_and_wait_run, wait_idle, wait_keys_ready
from tests.support.keyboard import Keyboard
from tests.support.nugget_campaign import make_nugget_campaign, nugget_text

LABELS = {key: label for label, key in LABEL_KEYS.items()}
# the key for each of the 30 cells in the order shown; H: held "1", D: "0" pressed twice
PLAN = "21021" "12H01" "00212" "D1220" "10201" "22110"


def _on_screen(page) -> tuple[str, str, int]:
    """(answer, nugget text, cell mark) the pane shows, once its keys are ready."""
    page.locator('[class*="st-key-label_"] button').first.wait_for(state="visible")
    wait_idle(page)
    wait_keys_ready(page)
    return page.evaluate(r"""() => {
        // the fixture's first sentence names the answer: "First sentence by <run> on <topic>."
        const first = document.querySelector('[data-pj-part="document"] .pj-sentence');
        const named = /First sentence by (\S+) on (\S+?)\./.exec(first.innerText);
        const nugget = document.querySelector('[data-pj-part="topic"] .pj-nugget-focus');
        const marks = new Set([...document.querySelectorAll('[data-pj-pair]')]
            .map(el => el.dataset.pjPair));
        return [`${named[1]}/${named[2]}`, nugget.innerText.trim(),
                marks.size === 1 ? Number([...marks][0]) : null];
    }""")


def _wait_for_cell(page, mark: int) -> None:
    """Wait until the pane shows a cell other than ``mark`` (the focus moved on)."""
    page.wait_for_function("""(mark) => {
        const ids = new Set([...document.querySelectorAll('[data-pj-pair]')]
            .map(el => el.dataset.pjPair));
        return ids.size === 1 && Number([...ids][0]) !== mark;
    }""", arg=mark)


def test_thirty_cells_by_keyboard_each_written_once(app, laptop, tmp_path) -> None:
    name = "assign30"
    tokens = make_nugget_campaign(app.engine, name, topics=3, nuggets=5)
    texts = {nugget_text(t, i): f"{t}-{i}" for t in ("301", "302", "303") for i in range(1, 6)}
    app.open_as(laptop, tokens["ann"], "/assign")
    keyboard = Keyboard(laptop)
    keyed: list[tuple[str, str, str]] = []
    for number, step in enumerate(PLAN):
        answer, text, mark = _on_screen(laptop)
        assert mark is not None, "the parts on screen name two cells"
        key = {"H": "1", "D": "0"}.get(step, step)
        keyed.append((answer, texts[text], LABELS[key]))
        if step == "H":
            act_and_wait_run(laptop, lambda: keyboard.hold("1", 1.2))
        elif step == "D":
            act_and_wait_run(laptop, lambda: keyboard.double("0", "0", 0.03))
        else:
            act_and_wait_run(laptop, lambda key=key: laptop.keyboard.press(key))
        if number % 5 < 4:
            _wait_for_cell(laptop, mark)
        else:                                  # the answer's last nugget: n for the next one
            act_and_wait_run(laptop, lambda: laptop.keyboard.press("n"))
            if number < len(PLAN) - 1:
                _wait_for_cell(laptop, mark)
    laptop.get_by_text("Every answer has a label").wait_for()
    refused = laptop.evaluate("() => window.__pooljudgeGate.refused")
    assert refused.get("repeat", 0) > 0 and refused.get("busy", 0) >= 1, refused
    assert len({(a, n) for a, n, _ in keyed}) == 30
    path = app.engine.url.database
    with sqlite3.connect(path) as db:
        stored = db.execute(
            "SELECT a.key, n.key, x.label, x.version, p.name FROM nugget_assignment x "
            "JOIN rag_answer a ON a.id = x.answer_id JOIN nugget n ON n.id = x.nugget_id "
            "JOIN annotator p ON p.id = x.annotator_id JOIN campaign c ON c.id = a.campaign_id "
            "WHERE c.name = ? ORDER BY x.id", (name,)).fetchall()
    assert [row[:3] for row in stored] == keyed        # in the order keyed, each once
    assert {row[3] for row in stored} == {1} and {row[4] for row in stored} == {"ann"}


def _bank_ready(page) -> int:
    """The mark of what the creation pane shows, once its keys are ready."""
    page.locator('[class*="st-key-label_"] button').first.wait_for(state="visible")
    wait_idle(page)
    wait_keys_ready(page)
    return page.evaluate("""() => {
        const ids = new Set([...document.querySelectorAll('[data-pj-pair]')]
            .map(el => el.dataset.pjPair));
        return ids.size === 1 ? Number([...ids][0]) : null;
    }""")


def _type_nugget(page, text: str) -> None:
    """a (the box takes the keyboard), ``text``, Enter (added; the box gives the keyboard
    back)."""
    _bank_ready(page)
    page.keyboard.press("a")
    page.wait_for_function("() => document.activeElement && document.activeElement.closest("
                           "'[class*=\"st-key-comment_bank_\"]')")
    page.keyboard.type(text)
    act_and_wait_run(page, lambda: page.keyboard.press("Enter"))


def _key(page, key: str, *, moves: bool = True) -> None:
    """Press ``key`` once the pane is ready; wait for its run (and, for a key that changes
    what is on screen, for the new screen)."""
    mark = _bank_ready(page)
    act_and_wait_run(page, lambda: page.keyboard.press(key))
    if moves:
        _wait_for_cell(page, mark)


def test_twenty_nuggets_from_passages_by_keyboard(app, laptop) -> None:
    from pooljudge.annotate import store
    from pooljudge.annotate.store import session_scope

    name = "bank20"
    tokens = make_nugget_campaign(app.engine, name, topics=2, nuggets=0, answers=True,
                                  people=(("chief", "admin"),))
    app.open_as(laptop, tokens["chief"], "/nuggets")    # their own campaign is the one offered
    typed: list[tuple[str, str, str, str]] = []        # topic, text, importance, source
    for topic in ("301", "302"):
        for i in range(10):
            if i == 5:
                _key(laptop, "l")                     # the topic's second relevant passage
            source = f"d{topic}-{1 if i < 5 else 2}"
            text = f"typed fact {i} about {topic}"
            _type_nugget(laptop, text)
            laptop.get_by_text(f"{i + 1} nuggets").first.wait_for()
            importance = "vital" if i % 3 == 0 else "okay"
            if importance == "vital":                 # new nuggets start okay
                _key(laptop, "v", moves=False)
                laptop.get_by_text(f"is {importance}").first.wait_for()
            typed.append((topic, text, importance, source))
        if topic == "301":
            _key(laptop, "n")
    # merge the last two of topic 302: m on the 9th, j, m
    _key(laptop, "k")
    _key(laptop, "m", moves=False)
    _key(laptop, "j")
    _key(laptop, "m", moves=False)
    laptop.get_by_text("Merged nugget").first.wait_for()
    _type_nugget(laptop, "a duplicate to delete")    # then x held down: one deletion
    laptop.get_by_text("Added nugget 302-11").first.wait_for()
    _bank_ready(laptop)
    act_and_wait_run(laptop, lambda: Keyboard(laptop).hold("x", 1.2))
    laptop.get_by_text("Deleted nugget 302-11").first.wait_for()
    wait_idle(laptop)
    assert laptop.evaluate("() => window.__pooljudgeGate.refused.repeat") > 0
    with session_scope(app.engine, readonly=True) as session:
        bank = store.nugget_bank(session, campaign=name, states=("active", "merged"))
        history = store.nugget_history(session, campaign=name)
    assert [(n.topic, n.text, n.importance, n.sources) for n in bank] == [
        (t, x, i, (s,)) for t, x, i, s in typed]      # the merged pair shares its source
    merged = [n for n in bank if n.state == "merged"]
    assert [(n.text, n.merged_into) for n in merged] == [("typed fact 8 about 302", "302-10")]
    assert history["actor"].eq("chief").all()
    assert history["action"].value_counts().to_dict() == {"created": 21, "edited": 8,
                                                          "merged": 1, "deleted": 1}
