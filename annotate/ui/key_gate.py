"""The judging pane's gate: an action acts only on the pair whose parts are all on screen.

Streamlit reruns the script per key press and draws elements as they arrive, so during a
transition the label buttons can already belong to the next pair while the previous document
is still shown, and a keyboard's auto-repeat sends a keydown every ~33 ms while a key is held.
This script (trusted code of ours, mounted with ``st.components.v2``; it receives only key
names and the dwell setting, never page text) sits in front of Streamlit's shortcuts and the
buttons, in the capture phase on ``window``, and lets an action key or a click on an action
button through only when:

- the key is not an auto-repeat (``event.repeat``): a held key acts once;
- the app is idle (``data-test-script-state="notRunning"``) and no earlier action is still
  being answered (one action, then nothing until the page has rerun): a double press acts once;
- the pair is *settled*: every element that names a pair (``data-pj-pair`` on the topic card
  and the document, the pair id inside the buttons' keys) names the same one, and the topic,
  the document and the label buttons are all drawn (the nugget panes name a cell or a bank
  item the same way, :mod:`pooljudge.annotate.ui.nugget_assign`; their other writing buttons
  are ``act_<id>_…``);
- for a label, the pair has been settled for at least ``min_dwell_ms`` (the campaign's
  setting); a press sooner shows a quiet hint and does nothing.

An admitted label or skip puts the forecast next pair (``next``, from
:mod:`pooljudge.annotate.ui.judge_prefetch`) on screen at once: its topic card and document
replace the answered pair's, the buttons are dimmed (body class ``pj-swapped``) until the run
draws the pair actually claimed, and the dwell counts from the swap.

While the parts name different pairs the body carries the class ``pj-settling`` (set in the
mutation observer's callback, before the browser can paint the change), which hides them (CSS
in :mod:`pooljudge.annotate.ui.render`): a screen never mixes two pairs. Every refusal is
counted in ``window.__pooljudgeGate.refused`` by reason (the tests read it). The server
checks again: the callbacks write only for the pair displayed and claimed
(:mod:`pooljudge.annotate.ui.judge`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import streamlit as st
from pooljudge.annotate.keymap import KeyMap
from pooljudge.annotate.ui.keys import GATE_KEY, SETTLING

__all__ = ["mount_gate"]

_JS = r"""
const TEXT_INPUTS = new Set(["text", "search", "email", "url", "tel", "password", "number", ""]);
const BUTTON = /(?:^|\s)st-key-(label|skip|back|cannot_judge|adjudicate|act)_(\d+)(?:_|\s|$)/;
const PAIRLESS = new Set(["undo", "forward", "back"]);  // also act with no pair on screen

function typing(el) {
  if (!el || el === document.body) return false;
  if (el.isContentEditable || el.tagName === "TEXTAREA") return true;
  return el.tagName === "INPUT" && TEXT_INPUTS.has((el.getAttribute("type") || "").toLowerCase());
}

function idle() {
  const app = document.querySelector('[data-testid="stApp"]');
  return !!app && app.getAttribute("data-test-script-state") === "notRunning";
}

// The pair every part on screen names, or null when they disagree or a part is missing.
function settledPair() {
  const ids = new Set();
  const parts = document.querySelectorAll("[data-pj-pair]");
  parts.forEach((el) => ids.add(el.getAttribute("data-pj-pair")));
  let labels = 0;
  document.querySelectorAll('[class*="st-key-"]').forEach((el) => {
    const m = BUTTON.exec(el.className);
    if (m) { ids.add(m[2]); if (m[1] === "label" || m[1] === "adjudicate") labels += 1; }
  });
  const kinds = new Set(Array.from(parts, (el) => el.getAttribute("data-pj-part")));
  const whole = kinds.has("topic") && kinds.has("document") && labels > 0;
  return ids.size === 1 && whole ? ids.values().next().value : null;
}

// Pair ids named by the parts (topic, document) and by the action buttons.
function named() {
  const parts = new Set(Array.from(document.querySelectorAll("[data-pj-pair]"),
                                   (el) => el.getAttribute("data-pj-pair")));
  const buttons = new Set();
  document.querySelectorAll('[class*="st-key-"]').forEach((el) => {
    const m = BUTTON.exec(el.className);
    if (m) buttons.add(m[2]);
  });
  return { parts, buttons };
}

// After a swap the parts show the forecast while the buttons still belong to the pair answered
// (dimmed, and no key acts until the run is over): that is the one expected disagreement.
function stillSwapped(gate) {
  if (!gate.swapped) return false;
  const { parts, buttons } = named();
  const same = (set, id) => set.size === 1 && set.has(id);
  if (same(parts, gate.swapped.to) && (buttons.size === 0 || same(buttons, gate.swapped.from))) {
    return true;
  }
  gate.swapped = null;
  document.body.classList.remove("pj-swapped");
  return false;
}

// Put the forecast next pair on screen in place of the pair just answered.
function swap(gate, action) {
  const next = gate.next;
  if (!next || !gate.swapping.includes(action) || next.pair === gate.shown) return;
  const topic = document.querySelector('[data-pj-part="topic"]');
  const doc = document.querySelector('[data-pj-part="document"]');
  if (!topic || !doc) return;
  gate.swapped = { from: gate.shown, to: next.pair, at: performance.now() };
  document.body.classList.add("pj-swapped");
  topic.outerHTML = next.topic;
  doc.outerHTML = next.document;
  gate.shown = next.pair;
  gate.shownAt = performance.now();
  gate.swaps += 1;
}

function check() {
  const gate = window.__pooljudgeGate;
  gate.checking = false;
  const swapped = stillSwapped(gate);
  const pair = swapped ? null : settledPair();
  const mixed = !swapped && pair === null
    && document.querySelectorAll("[data-pj-pair]").length > 0;
  if (document.body.classList.contains("__SETTLING__") !== mixed) {
    document.body.classList.toggle("__SETTLING__", mixed);
  }
  const running = !idle();
  if (running) gate.sawRunning = true;
  if (gate.pending && gate.sawRunning && !running) gate.pending = false;
  if (gate.pending && !gate.sawRunning && performance.now() - gate.pendingAt > 4000) {
    gate.pending = false;  // the action never started a run: let the next one through
  }
  if (pair !== null && !running && pair !== gate.shown) {
    gate.shown = pair;
    gate.shownAt = performance.now();
  }
}

function schedule() {
  const gate = window.__pooljudgeGate;
  if (gate.checking) return;
  gate.checking = true;
  requestAnimationFrame(check);
}

function refuse(event, reason) {
  const gate = window.__pooljudgeGate;
  event.preventDefault();
  event.stopImmediatePropagation();
  gate.refused[reason] = (gate.refused[reason] || 0) + 1;
  if (reason === "dwell") {
    hint(`Take a look first: label keys act ${gate.minDwell} ms after a pair appears.`);
  }
}

function hint(text) {
  let el = document.getElementById("pj-gate-hint");
  if (!el) {
    el = document.createElement("div");
    el.id = "pj-gate-hint";
    el.setAttribute("role", "status");
    document.body.appendChild(el);
  }
  el.textContent = text;
  el.classList.add("pj-gate-hint-on");
  clearTimeout(window.__pooljudgeGate.hintTimer);
  window.__pooljudgeGate.hintTimer = setTimeout(() => el.classList.remove("pj-gate-hint-on"), 1500);
}

// Decide for an action: true lets it through (and marks it pending), false refused it. A key
// waits for the dwell before a label; a click (the pointer took its own time) does not.
function admit(event, action, { repeat, key }) {
  const gate = window.__pooljudgeGate;
  check();
  if (repeat) return refuse(event, "repeat"), false;
  if (gate.pending || !idle()) return refuse(event, "busy"), false;
  const pair = settledPair();
  const pairless = PAIRLESS.has(action) && document.querySelectorAll("[data-pj-pair]").length === 0;
  if (!pairless && (pair === null || pair !== gate.shown)) return refuse(event, "unsettled"), false;
  const label = action.startsWith("label") || action === "adjudicate";
  const early = performance.now() - gate.shownAt < gate.minDwell;
  if (key && label && early) return refuse(event, "dwell"), false;
  gate.pending = true;
  gate.sawRunning = false;
  gate.pendingAt = performance.now();
  gate.admitted.push({ action, pair, at: performance.now() });
  swap(gate, action);
  return true;
}

function onKeyDown(event) {
  const gate = window.__pooljudgeGate;
  if (event.isComposing || event.ctrlKey || event.metaKey || event.altKey) return;
  if (typing(event.target)) return;
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  const action = gate.keys[key];
  if (action) admit(event, action, { repeat: event.repeat, key: true });
}

function onClick(event) {
  const button = event.target.closest && event.target.closest('[class*="st-key-"]');
  if (!button) return;
  const m = BUTTON.exec(button.className);
  if (m && event.isTrusted) admit(event, m[1], { repeat: false, key: false });
}

export default function (component) {
  const gate = (window.__pooljudgeGate ??= {
    keys: {}, minDwell: 0, shown: null, shownAt: 0, pending: false, sawRunning: false,
    pendingAt: 0, refused: {}, admitted: [], handlers: null, mounts: 0, checking: false,
    next: null, swapping: [], swapped: null, swaps: 0,
  });
  const data = component.data || {};
  gate.keys = data.keys || {};
  gate.minDwell = Number(data.min_dwell_ms) || 0;
  gate.next = data.next || null;
  gate.swapping = data.swapping || [];
  const mount = ++gate.mounts;
  if (!gate.handlers) {
    gate.handlers = { down: onKeyDown, click: onClick, observer: new MutationObserver(check) };
    window.addEventListener("keydown", gate.handlers.down, true);
    window.addEventListener("click", gate.handlers.click, true);
    gate.handlers.observer.observe(document.body, {
      childList: true, subtree: true, attributes: true,
      attributeFilter: ["data-test-script-state", "class", "data-pj-pair"],
    });
  }
  schedule();
  return () => {
    if (mount !== gate.mounts || !gate.handlers) return;
    window.removeEventListener("keydown", gate.handlers.down, true);
    window.removeEventListener("click", gate.handlers.click, true);
    gate.handlers.observer.disconnect();
    gate.handlers = null;
    document.body.classList.remove("__SETTLING__", "pj-swapped");
  };
}
""".replace("__SETTLING__", SETTLING)


@functools.cache
def _component():
    """The registered component (once per process: registering again only logs a warning)."""
    return st.components.v2.component("pooljudge_key_gate", js=_JS)


def mount_gate(keymap: KeyMap | None, *, min_dwell_ms: int, actions: dict[str, str] | None = None,
               coming: dict | None = None, swapping: Sequence[str] = ()) -> None:
    """Mount the gate (an invisible element) over ``keymap``'s action keys (or ``actions``:
    the browser's key name -> action, for a pane with keys of its own), with the dwell;
    ``coming`` is the forecast next pair that an admitted action of ``swapping`` puts on screen
    at once (:mod:`pooljudge.annotate.ui.judge_prefetch`)."""
    keys = actions if actions is not None else keymap.action_keys() if keymap else {}
    data = {"keys": keys, "min_dwell_ms": int(min_dwell_ms), "next": coming,
            "swapping": list(swapping)}
    _component()(key=GATE_KEY, data=data, width="stretch", height="content")
