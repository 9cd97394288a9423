"""Keys sent as a physical keyboard sends them, in real Chromium at 1366x768 (CDP's
``Input.dispatchKeyEvent``): a held key is one keydown, a 0.5 s delay, then auto-repeat keydowns
(``autoRepeat``) every 33 ms; a double press is two keydowns 30-300 ms apart. On an idle machine
and with both cores busy. Each test asserts that exactly the intended judgments were stored, each
for the pair whose topic and document were on screen at its keydown, and a 5 ms DOM poll asserts
that no visible frame ever showed parts of two pairs.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Iterator

import pytest

from tests.support.browser import shown_pair, wait_idle, wait_keys_ready
from tests.support.keyboard import POLL, Keyboard


def _burn(stop) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10_000))


@pytest.fixture(params=["idle", "busy"])
def load(request) -> Iterator[str]:
    """``busy``: one CPU burner per core for the test's duration."""
    if request.param == "idle":
        yield "idle"
        return
    stop = multiprocessing.Event()
    burners = [multiprocessing.Process(target=_burn, args=(stop,), daemon=True)
               for _ in range(2)]
    for burner in burners:
        burner.start()
    try:
        yield "busy"
    finally:
        stop.set()
        for burner in burners:
            burner.join(5)


def _settle(page) -> None:
    """Let every run the keys started finish (a refused key starts none)."""
    time.sleep(1.0)
    wait_idle(page)


def _ready(app, laptop, *, people=(("ann", "annotator"),), min_dwell_ms: int = 300
           ) -> tuple[str, Keyboard]:
    name, tokens = app.campaign(people=people, min_dwell_ms=min_dwell_ms)
    app.open_as(laptop, tokens["ann"], "/judge")
    shown_pair(laptop)
    laptop.evaluate(POLL)
    return name, Keyboard(laptop)


def _mixed(page) -> list:
    return page.evaluate("() => window.__mixed")


@pytest.mark.parametrize(("key", "seconds"), [("1", 0.5), ("1", 2.0), ("0", 3.0), ("1", 1.2)])
def test_a_held_label_key_stores_one_judgment_for_the_pair_on_screen(app, laptop, load, key,
                                                                     seconds):
    name, keyboard = _ready(app, laptop)
    seen = keyboard.hold(key, seconds)
    _settle(laptop)
    stored = app.judgments(name)
    assert list(zip(stored["doc"], stored["label"], strict=True)) == [(seen["doc"], int(key))]
    assert _mixed(laptop) == []


@pytest.mark.parametrize("gap", [0.03, 0.1, 0.15, 0.25])
def test_a_double_press_stores_the_first_label_only(app, laptop, load, gap):
    """Sooner than the dwell: the second key finds the next pair (shown at once, at the first
    key) too fresh, or the first key's run not yet answered. The default 300 ms dwell on an
    idle machine; 1 s on a busy one, where the test's own sleep between the keys can overshoot
    by more than the 50 ms margin."""
    name, keyboard = _ready(app, laptop, min_dwell_ms=300 if load == "idle" else 1000)
    seen = keyboard.double("0", "1", gap)
    _settle(laptop)
    stored = app.judgments(name)
    assert list(zip(stored["doc"], stored["label"], strict=True)) == [(seen["doc"], 0)]
    assert _mixed(laptop) == []


@pytest.mark.parametrize("gap", [0.3, 0.5])
def test_a_second_press_after_the_dwell_labels_the_pair_then_on_screen(app, laptop, load, gap):
    """The next pair was on screen from the first key on: a second key after the dwell may
    label it, and only it (refused when the first key's run has not answered yet)."""
    name, keyboard = _ready(app, laptop)
    first = keyboard.on_screen()
    keyboard.double("0", "1", gap)
    _settle(laptop)
    admitted = laptop.evaluate("() => window.__pooljudgeGate.admitted.map(a => a.pair)")
    stored = app.judgments(name)
    expected = [(first["doc"], 0)]
    if len(admitted) == 2:
        assert admitted[1] != admitted[0]
        expected.append((f"d{int(first['doc'].removeprefix('d')) + 1}", 1))
    assert list(zip(stored["doc"], stored["label"], strict=True)) == expected
    assert _mixed(laptop) == []


def test_a_held_skip_key_skips_one_pair(app, laptop, load):
    name, keyboard = _ready(app, laptop)
    seen = keyboard.hold("s", 1.5)
    _settle(laptop)
    wait_keys_ready(laptop)
    after = keyboard.on_screen()
    assert app.judgments(name).empty
    assert after["pair"] is not None and after["pair"] != seen["pair"]
    # one skip: the pair shown is the next in the pool's order, not two or more further on
    assert int(after["doc"].removeprefix("d")) == int(seen["doc"].removeprefix("d")) + 1
    assert _mixed(laptop) == []


def test_held_undo_and_back_keys_act_once(app, laptop, load):
    name, keyboard = _ready(app, laptop)
    first = keyboard.on_screen()
    keyboard.hold("1", 0.2)
    _settle(laptop)
    wait_keys_ready(laptop)
    second = keyboard.on_screen()
    keyboard.hold("1", 0.2)
    _settle(laptop)
    wait_keys_ready(laptop)
    assert list(app.judgments(name, latest_only=True)["doc"]) == [first["doc"], second["doc"]]
    keyboard.hold("u", 1.5)  # one undo: the second judgment withdrawn, the first kept
    _settle(laptop)
    wait_keys_ready(laptop)
    latest = app.judgments(name, latest_only=True)
    kept = latest.loc[latest["label"].notna(), "doc"].tolist()
    assert kept == [first["doc"]]
    assert keyboard.on_screen()["doc"] == second["doc"]
    keyboard.hold("b", 1.5)  # one step back: the first judgment, not further (there is none)
    _settle(laptop)
    wait_keys_ready(laptop)
    assert keyboard.on_screen()["doc"] == first["doc"]
    assert _mixed(laptop) == []


def test_a_held_cannot_judge_key_opens_one_reason_box_and_writes_nothing(app, laptop, load):
    name, tokens = app.campaign(cannot_judge=True)
    app.open_as(laptop, tokens["ann"], "/judge")
    shown_pair(laptop)
    laptop.evaluate(POLL)
    keyboard = Keyboard(laptop)
    seen = keyboard.hold("i", 1.5)
    _settle(laptop)
    boxes = laptop.locator('[class*="st-key-verdict_reason_"]')
    assert boxes.count() == 1 and f"verdict_reason_{seen['pair']}_" in boxes.get_attribute(
        "class")
    assert app.judgments(name).empty and keyboard.on_screen()["pair"] == seen["pair"]
    assert _mixed(laptop) == []


def test_a_label_key_right_after_a_pair_appears_does_nothing_with_a_hint(app, laptop):
    """A campaign whose dwell is 5 s (so a loaded machine cannot make the second key late)."""
    name, tokens = app.campaign(min_dwell_ms=5000)
    app.open_as(laptop, tokens["ann"], "/judge")
    shown_pair(laptop)
    keyboard = Keyboard(laptop)
    keyboard.hold("1", 0.05)  # the next pair is drawn at once; its dwell starts now
    laptop.wait_for_function("() => { const g = window.__pooljudgeGate;"
                             " return g.admitted.length === 1 && !g.pending; }", timeout=20_000)
    keyboard.hold("0", 0.05)  # the run has answered, but the pair has been seen < 5 s
    assert laptop.evaluate("() => window.__pooljudgeGate.refused.dwell || 0") >= 1
    assert "Take a look first" in laptop.locator("#pj-gate-hint").inner_text()
    _settle(laptop)
    assert list(app.judgments(name)["label"]) == [1]
