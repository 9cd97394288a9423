""""I can't judge this" and a label that needs a rationale, in a real browser at 1366x768, with
the keyboard alone: ``i`` opens the reason box with the focus in it, Enter saves (a blank reason
is refused), Esc cancels without storing; a rationale label's key opens the same box. What was
stored is read from the database; the buttons stay in the first screen.
"""

from __future__ import annotations

import pandas as pd
import pytest
from pooljudge.annotate import store
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import session_scope

# The laptop tab (1366x768 unless parametrized), the two laptop sizes and the five grades.
from tests.e2e.test_keyboard_browser import FIVE, LAPTOPS, laptop  # noqa: F401
from tests.support.browser import shown_pair, wait_for_new_pair, wait_idle, wait_keys_ready

BOX = "[class*='st-key-verdict_reason_'] input"
FOCUSED = f"document.activeElement?.matches(\"{BOX}\")"
BUTTONS = '[class*="st-key-label_"] button, [class*="st-key-cannot_judge_"] button'


def _campaign(app, scale: LabelScale | None = None) -> tuple[str, str]:
    """A campaign offering "I can't judge this", label 1 needing a rationale, four documents
    of one topic in order (binary unless ``scale``); its name and ann's token."""
    name = f"v{next(app._names)}"
    ids = [f"d{i}" for i in range(1, 5)]
    documents = pd.DataFrame({"id": ids, "title": [f"Document {d}" for d in ids],
                              "text": "\n".join(f"Line {i} about widgets." for i in range(80))})
    topics = pd.DataFrame({"id": ["101"], "title": "widgets", "description": "About widgets.",
                           "narrative": "Anything about widgets is relevant."})
    pool = pd.DataFrame({"topic": "101", "doc": ids, "order": range(1, 5),
                         "best_rank": range(1, 5), "runs": "runA"})
    with session_scope(app.engine) as session:
        store.create_campaign(session, name=name, scale=scale or LabelScale.binary(),
                              topics=topics,
                              documents=documents, pool=pool, cannot_judge=True,
                              rationale_labels=[1])
        return name, store.add_annotator(session, campaign=name, name="ann")


def _open_box(page, key: str) -> None:
    """Press ``key`` and wait until the reason box has the keyboard."""
    wait_keys_ready(page)
    page.keyboard.press(key)
    page.wait_for_function(FOCUSED)


@pytest.mark.parametrize("laptop", LAPTOPS, indirect=True)
def test_five_grades_and_cannot_judge_fit_the_first_screen_uncut(
        app, laptop) -> None:  # noqa: F811
    page = laptop
    _name, token = _campaign(app, FIVE)
    app.open_as(page, token)
    shown_pair(page)
    page.wait_for_timeout(300)                           # the frame's height is fitted
    page.wait_for_function(f"""() => {{                  // drawn, not being redrawn
        const shown = [...document.querySelectorAll('{BUTTONS}')]
            .filter(b => b.offsetParent !== null);
        return shown.length === 6 && shown.every(b => b.innerText.trim() !== '');
    }}""")
    buttons = page.evaluate(f"""() => [...document.querySelectorAll('{BUTTONS}')]
        .filter(b => b.offsetParent !== null)
        .map(b => ({{bottom: b.getBoundingClientRect().bottom, text: b.innerText,
                     cut: [b, ...b.querySelectorAll('*')].some(e =>
                         e.scrollWidth > e.clientWidth + 1
                         && getComputedStyle(e).overflowX !== 'visible')}}))""")
    frame_top = page.eval_on_selector(".pj-doc-body", "f => f.getBoundingClientRect().top")
    height = page.viewport_size["height"]
    assert len(buttons) == 6 and "I can't judge this" in buttons[-1]["text"]
    assert max(b["bottom"] for b in buttons) <= height and frame_top + 150 <= height
    assert not any(b["cut"] for b in buttons)


def test_keyboard_alone_answers_cannot_judge_and_gives_a_rationale(
        app, laptop) -> None:  # noqa: F811
    page = laptop
    campaign, token = _campaign(app)
    app.open_as(page, token)
    pair = shown_pair(page)

    _open_box(page, "i")                                 # a blank reason is refused
    page.keyboard.press("Enter")
    page.get_by_text("type a reason first").wait_for()
    page.wait_for_function(FOCUSED)                      # and the box has the keyboard again
    page.keyboard.type("written in Latin")
    page.keyboard.press("Enter")
    pair = wait_for_new_pair(page, pair)
    assert page.locator(BOX).count() == 0

    _open_box(page, "1")                                 # label 1 asks for a rationale
    page.keyboard.type("half a")
    page.keyboard.press("Escape")                        # cancels: nothing stored
    page.wait_for_selector(BOX, state="detached")
    wait_idle(page)
    assert shown_pair(page) == pair and len(app.judgments(campaign)) == 1

    _open_box(page, "1")
    page.keyboard.type("defines widgets, 10 times")      # digits typed here are text
    page.keyboard.press("Enter")
    pair = wait_for_new_pair(page, pair)
    wait_keys_ready(page)
    page.keyboard.press("0")                             # 0 needs no rationale
    wait_for_new_pair(page, pair)

    stored = app.judgments(campaign).sort_values("created_at").reset_index(drop=True)
    stored["rationale"] = stored["rationale"].fillna("")
    assert stored[["doc", "status", "rationale", "version"]].to_numpy().tolist() == [
        ["d1", "cannot_judge", "written in Latin", 1],
        ["d2", "label", "defines widgets, 10 times", 1],
        ["d3", "label", "", 1]]
    assert stored["label"].iloc[1:].tolist() == [1, 0] and pd.isna(stored["label"].iat[0])
