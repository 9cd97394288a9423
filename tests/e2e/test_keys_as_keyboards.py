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

KEYS = {"0": ("Digit0", 48), "1": ("Digit1", 49), "s": ("KeyS", 83), "u": ("KeyU", 85),
        "b": ("KeyB", 66)}
REPEAT_DELAY, REPEAT_EVERY = 0.5, 0.033

# In the page: every 5 ms, the pair ids of the visible parts (topic, document, label buttons);
# a frame naming two pairs at once is recorded.
POLL = """() => {
  window.__mixed = [];
  const pairs = () => {
    const ids = new Set();
    for (const el of document.querySelectorAll('[data-pj-pair]')) {
      if (getComputedStyle(el).visibility !== 'hidden') ids.add(el.dataset.pjPair);
    }
    for (const el of document.querySelectorAll('[class*="st-key-label_"]')) {
      const m = /st-key-label_(\\d+)_/.exec(el.className);
      if (m && getComputedStyle(el).visibility !== 'hidden') ids.add(m[1]);
    }
    return ids;
  };
  clearInterval(window.__poll);
  window.__poll = setInterval(() => {
    const ids = pairs();
    if (ids.size > 1) window.__mixed.push([...ids]);
  }, 5);
}"""


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


class Keyboard:
    """A physical keyboard over CDP on one tab."""

    def __init__(self, page) -> None:
        self.page = page
        self.cdp = page.context.new_cdp_session(page)

    def _send(self, kind: str, key: str, *, repeat: bool = False) -> None:
        code, vk = KEYS[key]
        event = {"type": kind, "key": key, "code": code, "windowsVirtualKeyCode": vk,
                 "nativeVirtualKeyCode": vk, "autoRepeat": repeat}
        if kind == "keyDown":
            event["text"] = key
        self.cdp.send("Input.dispatchKeyEvent", event)

    def on_screen(self) -> dict:
        """The pair and document every part shows now (None when they disagree)."""
        return self.page.evaluate("""() => {
            const ids = new Set([...document.querySelectorAll('[data-pj-pair]')]
                .map(el => el.dataset.pjPair));
            const doc = document.querySelector('.pj-doc-id');
            return {pair: ids.size === 1 ? Number([...ids][0]) : null,
                    doc: doc ? doc.innerText.replace('Document ', '').trim() : null};
        }""")

    def hold(self, key: str, seconds: float) -> dict:
        """Hold ``key`` for ``seconds``; what was on screen at the first keydown."""
        seen = self.on_screen()
        self._send("keyDown", key)
        end = time.monotonic() + seconds
        time.sleep(min(REPEAT_DELAY, seconds))
        while time.monotonic() < end:
            self._send("keyDown", key, repeat=True)
            time.sleep(REPEAT_EVERY)
        self._send("keyUp", key)
        return seen

    def double(self, first: str, second: str, gap: float) -> dict:
        """``first`` then ``second``, ``gap`` seconds apart; what was on screen at the first."""
        seen = self.on_screen()
        self._send("keyDown", first)
        self._send("keyUp", first)
        time.sleep(gap)
        self._send("keyDown", second)
        self._send("keyUp", second)
        return seen


def _settle(page) -> None:
    """Let every run the keys started finish (a refused key starts none)."""
    time.sleep(1.0)
    wait_idle(page)


def _ready(app, laptop, *, people=(("ann", "annotator"),)) -> tuple[str, Keyboard]:
    name, tokens = app.campaign(people=people)
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


@pytest.mark.parametrize("gap", [0.03, 0.1, 0.15, 0.25, 0.3])
def test_a_double_press_stores_the_first_label_only(app, laptop, load, gap):
    name, keyboard = _ready(app, laptop)
    seen = keyboard.double("0", "1", gap)
    _settle(laptop)
    stored = app.judgments(name)
    assert list(zip(stored["doc"], stored["label"], strict=True)) == [(seen["doc"], 0)]
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


def test_a_label_key_right_after_a_pair_appears_does_nothing_with_a_hint(app, laptop):
    name, keyboard = _ready(app, laptop)
    keyboard.hold("1", 0.1)
    # press again as soon as the next pair is drawn: within the 300 ms dwell
    laptop.wait_for_function("(before) => { const g = window.__pooljudgeGate;"
                             " return g && g.shown !== null && g.shown !== before; }",
                             arg=str(keyboard.on_screen()["pair"]), timeout=20_000)
    keyboard.hold("0", 0.05)
    assert laptop.evaluate("() => window.__pooljudgeGate.refused.dwell || 0") >= 1
    assert "Take a look first" in laptop.locator("#pj-gate-hint").inner_text()
    _settle(laptop)
    assert list(app.judgments(name)["label"]) == [1]
