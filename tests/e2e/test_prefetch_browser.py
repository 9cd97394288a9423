"""The next pair is there at once: the judging pane puts the forecast next pair on screen the
moment a label key is admitted, before the server has answered, and the run then draws the pair
actually claimed. Real Chromium at 1366x768, keys through CDP as keyboards send them."""

from __future__ import annotations

import time

from pooljudge.annotate import store
from pooljudge.annotate.store import session_scope

from tests.support.browser import shown_pair, wait_idle, wait_keys_ready
from tests.support.keyboard import POLL, Keyboard

# In the page: when the parts first name a pair other than ``before``, what the label buttons
# named at that moment and whether a script run was still going on.
WATCH = """(before) => {
  window.__drawn = null;
  const look = () => {
    const parts = [...document.querySelectorAll('[data-pj-pair]')].map(e => e.dataset.pjPair);
    if (window.__drawn || parts.length < 2 || parts.some(p => p !== parts[0])
        || parts[0] === before) return;
    const button = document.querySelector('[class*="st-key-label_"]');
    const m = button && /st-key-label_(\\d+)_/.exec(button.className);
    window.__drawn = {pair: parts[0], buttons: m ? m[1] : null,
                      running: document.querySelector('[data-testid="stApp"]')
                        .getAttribute('data-test-script-state') !== 'notRunning'};
  };
  new MutationObserver(look).observe(document.body, {childList: true, subtree: true,
                                                     attributes: true});
}"""


def _open(app, laptop, *, people=(("ann", "annotator"),), min_dwell_ms: int = 300):
    name, tokens = app.campaign(people=people, min_dwell_ms=min_dwell_ms)
    app.open_as(laptop, tokens["ann"], "/judge")
    shown_pair(laptop)
    laptop.evaluate(POLL)
    return name, tokens, Keyboard(laptop)


def _drawn(laptop) -> dict:
    laptop.wait_for_function("() => window.__drawn !== null", timeout=20_000)
    return laptop.evaluate("() => window.__drawn")


def test_the_next_pair_is_drawn_before_the_server_answers(app, laptop):
    name, _, keyboard = _open(app, laptop)
    for _ in range(3):
        before = keyboard.on_screen()
        laptop.evaluate(WATCH, str(before["pair"]))
        keyboard.hold("1", 0.05)
        drawn = _drawn(laptop)
        # drawn by the page itself: the buttons still belonged to the pair answered
        assert drawn["buttons"] == str(before["pair"]) and drawn["pair"] != drawn["buttons"]
        wait_idle(laptop)
        wait_keys_ready(laptop)
        after = keyboard.on_screen()
        assert after["pair"] == int(drawn["pair"])  # the forecast was the pair claimed
    stored = app.judgments(name)
    assert list(stored["doc"]) == ["d1", "d2", "d3"]
    assert laptop.evaluate("() => window.__pooljudgeGate.swaps") == 3
    assert laptop.evaluate("() => window.__mixed") == []


def test_a_forecast_someone_else_took_is_replaced_by_the_pair_claimed(app, laptop):
    # a 5 s dwell: the key pressed while the forecast is on screen must be refused even when a
    # loaded machine makes the test's next step late
    name, _, keyboard = _open(app, laptop, people=(("ann", "annotator"), ("bob", "annotator")),
                              min_dwell_ms=5000)
    before = keyboard.on_screen()
    forecast = laptop.evaluate("() => window.__pooljudgeGate.next.pair")
    with session_scope(app.engine) as session:  # bob takes the forecast's only slot
        bob = store.annotator_id(session, campaign=name, name="bob")
        taken = store.next_pair(session, annotator_id=bob)
    assert str(taken.pair_id) == forecast
    laptop.evaluate(WATCH, str(before["pair"]))
    keyboard.hold("1", 0.05)
    assert _drawn(laptop)["pair"] == forecast  # shown at once ...
    keyboard.hold("0", 0.05)  # ... but no key acts on it before the run has answered
    wait_idle(laptop)
    wait_keys_ready(laptop)
    after = keyboard.on_screen()
    assert after["pair"] not in (before["pair"], int(forecast))  # ... replaced by the claim
    time.sleep(0.5)
    stored = app.judgments(name)
    assert list(zip(stored["doc"], stored["label"], strict=True)) == [(before["doc"], 1)]
    assert laptop.evaluate("() => window.__mixed") == []

