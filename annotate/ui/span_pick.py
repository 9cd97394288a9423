"""The nugget-creation pane's selection picker: ``s`` puts the text selected in the passage into
the nugget box.

A person selects a span of the passage shown (mouse or keyboard selection) and presses ``s``:
this script (trusted code of ours, mounted with ``st.components.v2``; it receives nothing from
Python and reads only the page) takes the selection, clipped to the passage's text (the
``.pj-doc-body`` of ``data-pj-part="document"``: not its caption or title) — a selection that
does not touch it does nothing —
collapses its white space, puts it into the box (``st-key-comment_bank_…``) as typing would
(the input's own value setter, then an ``input`` event) and focuses the box. The person may
edit it; Enter adds it through the pane's own path (:mod:`pooljudge.annotate.ui.nugget_bank`:
the store checks it, the passage shown is its source), Esc leaves the box. So the text is the
page's own, and nothing is written without the person's Enter.

``window.__pooljudgeSpanPick.picked`` counts the spans taken (the tests read it). Installed once
per browser tab (capture phase on ``window``); later mounts change nothing.
"""

from __future__ import annotations

import functools

import streamlit as st
from pooljudge.annotate.ui.keyboard import TYPING_JS
from pooljudge.annotate.ui.keys import SPAN_PICK

__all__ = ["PICK_KEY", "mount_span_pick"]

PICK_KEY = "s"

_JS = TYPING_JS + """
function selectedInPassage() {
  const selection = window.getSelection();
  const part = document.querySelector('[data-pj-part="document"]');
  const passage = part && (part.querySelector(".pj-doc-body") || part);
  if (!selection || selection.rangeCount === 0 || selection.isCollapsed || !passage) return "";
  const range = selection.getRangeAt(0);
  if (!range.intersectsNode(passage)) return "";
  const clipped = range.cloneRange();
  const whole = document.createRange();
  whole.selectNodeContents(passage);
  if (clipped.compareBoundaryPoints(Range.START_TO_START, whole) < 0) {
    clipped.setStart(whole.startContainer, whole.startOffset);
  }
  if (clipped.compareBoundaryPoints(Range.END_TO_END, whole) > 0) {
    clipped.setEnd(whole.endContainer, whole.endOffset);
  }
  return clipped.toString().replace(/\\s+/g, " ").trim();
}

function onKeyDown(event) {
  if (event.key.toLowerCase() !== "__KEY__" || event.repeat || typing(event.target)) return;
  if (event.isComposing || event.ctrlKey || event.metaKey || event.altKey) return;
  const text = selectedInPassage();
  const box = document.querySelector('[class*="st-key-comment_bank_"] input');
  if (!text || !box) return;
  event.preventDefault();
  event.stopImmediatePropagation();
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set;
  setter.call(box, text);
  box.dispatchEvent(new Event("input", { bubbles: true }));
  box.focus();
  window.getSelection().removeAllRanges();
  window.__pooljudgeSpanPick.picked += 1;
}

export default function () {
  const state = (window.__pooljudgeSpanPick ??= { installed: false, picked: 0 });
  if (!state.installed) {
    window.addEventListener("keydown", onKeyDown, true);
    state.installed = true;
  }
}
""".replace("__KEY__", PICK_KEY)


@functools.cache
def _component():
    """The registered component (once per process)."""
    return st.components.v2.component("pooljudge_span_pick", js=_JS)


def mount_span_pick() -> None:
    """Mount the picker (an invisible element) on the creation pane."""
    _component()(key=SPAN_PICK, data={}, width="stretch", height="content")
