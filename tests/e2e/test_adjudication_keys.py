"""The adjudication pane under the judging pane's gate: keys as keyboards send them (CDP holds
and double presses) decide once, for the pair on screen, and the buttons do not move when a
decision's confirmation appears (1366x768)."""

from __future__ import annotations

import time

import pandas as pd
import pytest
from pooljudge.annotate import store
from pooljudge.annotate.store import session_scope

from tests.support.browser import wait_idle, wait_keys_ready
from tests.support.keyboard import Keyboard

PEOPLE = (("a1", "annotator"), ("a2", "annotator"), ("ref", "adjudicator"))


@pytest.fixture
def disputed(app):
    """A campaign whose six pairs the two annotators all labelled differently."""
    name, tokens = app.campaign(people=PEOPLE, overlap=2)
    docs = [f"d{i}" for i in range(1, 7)]
    frame = pd.DataFrame({"annotator": ["a1"] * 6 + ["a2"] * 6, "topic": "101",
                          "doc": docs * 2, "label": [1] * 6 + [0] * 6})
    with session_scope(app.engine) as session:
        store.import_judgments(session, campaign=name, frame=frame)
    return name, tokens


def _decisions(app, name: str) -> list[tuple[str, int]]:
    frame = app.judgments(name)
    decided = frame[frame["kind"] == "adjudication"]
    return list(zip(decided["doc"], decided["label"], strict=True))


def _open(app, laptop, token: str) -> Keyboard:
    app.open_as(laptop, token, "/adjudicate")
    laptop.locator('[class*="st-key-adjudicate_"]').first.wait_for()
    wait_keys_ready(laptop)
    return Keyboard(laptop)


def _settle(laptop, app=None, name: str | None = None) -> None:
    """Wait until the page is idle again; with ``app`` and ``name``, first until a decision is
    stored (at most 20 s: on a loaded machine the key's run may start after a first idle look),
    then a second more for any second one a faulty gate would let through."""
    if app is not None:
        deadline = time.monotonic() + 20
        while not _decisions(app, name) and time.monotonic() < deadline:
            time.sleep(0.2)
    time.sleep(1.0)
    wait_idle(laptop)
    wait_keys_ready(laptop)


def test_a_held_digit_decides_once_for_the_pair_on_screen(app, laptop, disputed):
    name, tokens = disputed
    keyboard = _open(app, laptop, tokens["ref"])
    seen = keyboard.on_screen()
    keyboard.hold("1", 2.0)
    _settle(laptop, app, name)
    assert _decisions(app, name) == [(seen["doc"], 1)]


@pytest.mark.parametrize("gap", [0.03, 0.1, 0.25])
def test_a_double_press_decides_once(app, laptop, disputed, gap):
    name, tokens = disputed
    keyboard = _open(app, laptop, tokens["ref"])
    seen = keyboard.double("0", "1", gap)
    _settle(laptop, app, name)
    assert _decisions(app, name) == [(seen["doc"], 0)]


def test_the_buttons_stay_put_when_a_decision_is_confirmed(app, laptop, disputed):
    name, tokens = disputed
    keyboard = _open(app, laptop, tokens["ref"])
    button = laptop.locator('[class*="st-key-adjudicate_"]').first
    before = button.bounding_box()
    keyboard.hold("1", 0.05)
    _settle(laptop, app, name)
    laptop.get_by_text("Decided 1", exact=False).wait_for(timeout=20_000)
    after = laptop.locator('[class*="st-key-adjudicate_"]').first.bounding_box()
    assert abs(after["y"] - before["y"]) < 1 and after["y"] + after["height"] <= 768
