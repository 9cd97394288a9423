"""The judging page's script in the browser: its own keys (leave the comment box, scroll the
document, focus the comment, toggle the legend) and the document frame's height.

Streamlit binds the buttons' shortcuts itself (labels, skip, back, forward) and ignores keys
typed in a text field. What it cannot do is done by one small script, mounted with
``st.components.v2`` (trusted code of ours; it receives only the key map, never page text):

- in any text field, Esc leaves the field (Streamlit then keeps its value, as on any blur), so
  the next key is a shortcut again; Enter in the comment box keeps the comment (Streamlit's
  own Enter) and then leaves the box;
- elsewhere, a key of :meth:`pooljudge.annotate.keymap.KeyMap.page_keys` runs its action, and is
kept
  from Streamlit and from the browser (Space would otherwise press a focused button or scroll
  the page): ``comment`` focuses the comment box, ``legend`` toggles the legend (the class
  ``pj-legend-open`` on ``<body>``, so it survives reruns; Esc closes it too), the scrolling
  actions move the document frame ``.pj-doc-body`` (a screen is 90 % of its height, a line
  three text lines).

The frame's height: CSS makes it fill the screen below ``--pj-frame-top``, which the script
sets to the frame's top whenever the page changes (a wrapped label, a warning), so the whole
document can be read, to its end, without scrolling the page.

The listeners are installed once per browser tab (capture phase on ``window``); later mounts only
swap the key map, so a rerun never stacks handlers.
"""

from __future__ import annotations

import functools

import streamlit as st
from pooljudge.annotate.keymap import KeyMap
from pooljudge.annotate.ui.keys import KEYBOARD

__all__ = ["LEGEND_OPEN", "TYPING_JS", "mount_keyboard"]

LEGEND_OPEN = "pj-legend-open"    # class on <body> while the legend is shown

TYPING_JS = """
const TEXT_INPUTS = new Set(["text", "search", "email", "url", "tel", "password", "number", ""]);

function typing(el) {
  if (!el || el === document.body) return false;
  if (el.isContentEditable || el.tagName === "TEXTAREA") return true;
  return el.tagName === "INPUT" && TEXT_INPUTS.has((el.getAttribute("type") || "").toLowerCase());
}
"""  # is an element a text field? (the key scripts' shared test)

_JS = TYPING_JS + """
function frame() {
  return document.querySelector(".pj-doc-body");
}

function lineStep(doc) {
  const line = parseFloat(getComputedStyle(doc).lineHeight);
  return 3 * (Number.isFinite(line) ? line : 20);
}

const ACTIONS = {
  comment: () => {
    const box = document.querySelector('[class*="st-key-comment_"] input');
    if (!box) return false;
    box.focus();
    return true;
  },
  legend: () => { document.body.classList.toggle("__LEGEND__"); return true; },
  page_down: (doc) => doc && (doc.scrollBy(0, 0.9 * doc.clientHeight), true),
  page_up: (doc) => doc && (doc.scrollBy(0, -0.9 * doc.clientHeight), true),
  line_down: (doc) => doc && (doc.scrollBy(0, lineStep(doc)), true),
  line_up: (doc) => doc && (doc.scrollBy(0, -lineStep(doc)), true),
  top: (doc) => doc && ((doc.scrollTop = 0), true),
  bottom: (doc) => doc && ((doc.scrollTop = doc.scrollHeight), true),
};

// The frame fills the screen below its top: --pj-frame-top (CSS, see annotate.ui.render) is
// the frame's top with every scroll undone, measured again whenever the page changes.
function fit() {
  const doc = frame();
  if (!doc) return;
  let top = doc.getBoundingClientRect().top;
  for (let el = doc.parentElement; el; el = el.parentElement) top += el.scrollTop;
  const value = `${Math.round(top)}px`;
  const root = document.documentElement.style;
  if (root.getPropertyValue("--pj-frame-top") !== value) root.setProperty("--pj-frame-top", value);
}

function scheduleFit() {
  const state = window.__pooljudgeKeyboard;
  if (state.fitting) return;
  state.fitting = true;
  requestAnimationFrame(() => { state.fitting = false; fit(); });
}

function swallow(event) {
  event.preventDefault();
  event.stopImmediatePropagation();
}

function onKeyDown(event) {
  const state = window.__pooljudgeKeyboard;
  if (event.isComposing || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (typing(target)) {
    if (event.key === "Escape") {
      swallow(event);
      target.blur();
    } else if (event.key === "Enter" && target.closest('[class*="st-key-comment_"]')) {
      setTimeout(() => target.blur(), 0);  // after Streamlit's own Enter has kept the value
    }
    return;
  }
  if (event.key === "Escape" && document.body.classList.contains("__LEGEND__")) {
    document.body.classList.remove("__LEGEND__");
    swallow(event);
    return;
  }
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  const action = Object.hasOwn(state.keys, key) ? state.keys[key] : null;
  if (action && Object.hasOwn(ACTIONS, action) && ACTIONS[action](frame())) {
    swallow(event);
    state.swallowed = event.key;
  }
}

function onKeyUp(event) {
  const state = window.__pooljudgeKeyboard;
  if (state.swallowed === event.key) {  // a focused button acts on Space's keyup
    state.swallowed = null;
    swallow(event);
  }
}

export default function (component) {
  const state = (window.__pooljudgeKeyboard ??= { keys: {}, mounts: 0, handlers: null });
  state.keys = (component.data && component.data.keys) || {};
  const mount = ++state.mounts;
  if (!state.handlers) {
    state.handlers = { down: onKeyDown, up: onKeyUp, fit: scheduleFit,
                       observer: new MutationObserver(scheduleFit) };
    window.addEventListener("keydown", state.handlers.down, true);
    window.addEventListener("keyup", state.handlers.up, true);
    window.addEventListener("resize", state.handlers.fit);
    state.handlers.observer.observe(document.body, { childList: true, subtree: true });
  }
  scheduleFit();
  return () => {  // only the latest mount's clean-up removes the listeners
    if (mount !== state.mounts || !state.handlers) return;
    window.removeEventListener("keydown", state.handlers.down, true);
    window.removeEventListener("keyup", state.handlers.up, true);
    window.removeEventListener("resize", state.handlers.fit);
    state.handlers.observer.disconnect();
    state.handlers = null;
    document.documentElement.style.removeProperty("--pj-frame-top");  // other pages: CSS's own
  };
}
""".replace("__LEGEND__", LEGEND_OPEN)


@functools.cache
def _component():
    """The registered component (once per process: registering again only logs a warning)."""
    return st.components.v2.component("pooljudge_keyboard", js=_JS)


def mount_keyboard(keymap: KeyMap) -> None:
    """Mount the page's key handler with ``keymap``'s page keys (an invisible element)."""
    _component()(key=KEYBOARD, data={"keys": keymap.page_keys()}, width="stretch",
                 height="content")
