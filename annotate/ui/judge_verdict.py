"""The judging page's answers that need words: "I can't judge this" and a label with a rationale.

- "I can't judge this" is a button beside the labels (key ``cannot_judge``, default ``i``),
  drawn only when the campaign offers it (``CampaignInfo.cannot_judge``).
- A label of ``CampaignInfo.rationale_labels`` is not stored when its button or key is pressed.
- Either opens the reason box under the buttons (:data:`PENDING` holds what it is for), with the
  focus in its text field. Enter saves: a blank text is refused with a message (the box stays
  open, nothing is stored); otherwise the page's own save (the label callback of
  :mod:`pooljudge.annotate.ui.judge`) stores the label with its rationale, or the answer with status
  ``cannot_judge`` and the text as its reason, then shows the next pair. Esc cancels: nothing
  is stored and the box closes. The comment box stays separate and is saved with the answer.

The box never traps the keyboard: it is a form (Enter submits its first button, Save), and Esc,
which the page's key script (:mod:`pooljudge.annotate.ui.keyboard`) turns into leaving the field,
also
presses Cancel (this module's small script acts on Esc's key release). Every widget key embeds
the pair id, and every callback checks that its pair is still the one displayed, so a press
that arrives after the page moved on does nothing.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable

import streamlit as st
from pooljudge.annotate.keymap import KeyMap
from pooljudge.annotate.records import CampaignInfo, PairView
from pooljudge.annotate.ui.render import caption_html
from sqlalchemy import Engine

__all__ = ["CANNOT_JUDGE", "PENDING", "Pending", "cancel_key", "cannot_judge_button",
           "cannot_judge_key", "on_rationale_label", "reason_box", "reason_key", "save_key"]

CANNOT_JUDGE = "I can't judge this"
PENDING = "pj_verdict"            # session state: the Pending answer whose reason box is open
NOTE = "pj_verdict_note"          # session state: why the last Save stored nothing
FOCUS = "pj_verdict_focus"        # the reason box's focus script (an invisible element)
_DISPLAYED = "pj_displayed"       # pooljudge.annotate.ui.judge.DISPLAYED: the pair id on screen

# (engine, annotator id, view, label, version, *, rationale, status): the page's label callback.
Save = Callable[..., None]


@dataclasses.dataclass(frozen=True)
class Pending:
    """An answer waiting for its words: ``label`` None is "I can't judge this"; ``version``
    is the judgment version it will be stored as; ``opened`` tells one opening of the box from
    another, ``attempt`` counts its refused saves (each one focuses the box again)."""

    pair_id: int
    label: int | None
    version: int
    opened: int = 0
    attempt: int = 0


def cannot_judge_key(pair_id: int) -> str:
    return f"cannot_judge_{pair_id}"


def reason_key(pair_id: int, label: int | None) -> str:
    """The reason box's text field for an answer (``x``: can't judge; ``m``: a negative label)."""
    suffix = "x" if label is None else (str(label) if label >= 0 else f"m{-label}")
    return f"verdict_reason_{pair_id}_{suffix}"


def save_key(pair_id: int) -> str:
    return f"verdict_save_{pair_id}"


def cancel_key(pair_id: int) -> str:
    return f"verdict_cancel_{pair_id}"


def cannot_judge_button(column, keymap: KeyMap, view: PairView,
                        version: int) -> list[tuple[tuple[str, ...], str]]:
    """Draw the "I can't judge this" button in ``column``; its legend line (none unbound)."""
    shortcut = keymap.shortcut("cannot_judge")
    column.button(CANNOT_JUDGE, key=cannot_judge_key(view.pair_id), shortcut=shortcut,
                  on_click=_open, args=(view.pair_id, None, version), wrap=True, width="stretch",
                  help="Asks why; the answer is never a label")
    return [((shortcut,), f"{CANNOT_JUDGE} (say why)")] if shortcut else []


def on_rationale_label(engine: Engine, annotator_id: int, view: PairView, label: int,
                       version: int) -> None:
    """A label button's callback when the label needs a rationale (the label callback's
    arguments): open the reason box; nothing is stored yet."""
    del engine, annotator_id
    _open(view.pair_id, label, version)


def reason_box(engine: Engine, annotator_id: int, campaign: CampaignInfo, view: PairView,
               save: Save) -> None:
    """The open reason box of the pair on screen, if any (a box left open for another pair is
    dropped)."""
    state = st.session_state
    pending: Pending | None = state.get(PENDING)
    if pending is None:
        return
    if pending.pair_id != view.pair_id:
        state.pop(PENDING, None)
        return
    with st.form(f"verdict_form_{view.pair_id}", border=False, enter_to_submit=True):
        st.html(caption_html(_prompt(campaign, pending) + " Enter saves, Esc cancels."
                             + (f" {state.pop(NOTE)}" if state.get(NOTE) else ""),
                             css_class="pj-verdict-prompt"))
        field, save_column, cancel_column = st.columns([6, 1, 1], gap="small",
                                                       vertical_alignment="bottom")
        box = reason_key(view.pair_id, pending.label)
        field.text_input("Reason", key=box, label_visibility="collapsed",
                         placeholder="Why? (required)")
        save_column.form_submit_button(
            "Save", key=save_key(view.pair_id), type="primary", width="stretch",
            on_click=_on_save, args=(engine, annotator_id, view, pending, save))
        cancel_column.form_submit_button("Cancel", key=cancel_key(view.pair_id), width="stretch",
                                         on_click=_on_cancel, args=(pending,))
    _focus_script()(key=FOCUS, data={"box": f".st-key-{box} input",
                                     "nonce": f"{box}:{pending.opened}:{pending.attempt}"},
                    width="stretch", height="content")


def _prompt(campaign: CampaignInfo, pending: Pending) -> str:
    if pending.label is None:
        return "Why can't you judge this pair?"
    name = next((lab.name for lab in campaign.scale.labels if lab.value == pending.label), "")
    return f"Why label {pending.label}{f' · {name}' if name else ''}? This label needs a rationale."


def _open(pair_id: int, label: int | None, version: int) -> None:
    """Open the reason box for an answer to the pair on screen (a stale press: nothing)."""
    state = st.session_state
    if state.get(_DISPLAYED) != pair_id:
        return
    state.pop(NOTE, None)
    state[PENDING] = Pending(pair_id, label, version, opened=time.monotonic_ns())


def _on_save(engine: Engine, annotator_id: int, view: PairView, pending: Pending,
             save: Save) -> None:
    """Store the answer with its words, unless they are blank or the box is stale."""
    state = st.session_state
    if state.get(PENDING) != pending or state.get(_DISPLAYED) != view.pair_id:
        return
    words = (state.get(reason_key(view.pair_id, pending.label)) or "").strip()
    if not words:
        state[NOTE] = "Not saved: type a reason first (or Esc to cancel)."
        state[PENDING] = dataclasses.replace(pending, attempt=pending.attempt + 1)
        return
    status = "label" if pending.label is not None else "cannot_judge"
    save(engine, annotator_id, view, pending.label, pending.version, rationale=words,
         status=status)
    if state.get(_DISPLAYED) != view.pair_id:  # stored, or refused for good: the box closes
        state.pop(PENDING, None)


def _on_cancel(pending: Pending) -> None:
    if st.session_state.get(PENDING) == pending:
        st.session_state.pop(PENDING, None)
        st.session_state.pop(NOTE, None)


_JS = """
function focusBox(selector) {
  const until = performance.now() + 3000;
  const tick = () => {
    const box = document.querySelector(selector);
    if (box) box.focus();
    else if (performance.now() < until) requestAnimationFrame(tick);
  };
  tick();
}

// Esc in the box: the page's key script has made it leave the field; on its release, Cancel.
function onKeyUp(event) {
  if (event.key !== "Escape") return;
  const cancel = document.querySelector('[class*="st-key-verdict_cancel_"] button');
  if (cancel) cancel.click();
}

export default function (component) {
  const state = (window.__pooljudgeVerdict ??= { listening: false, nonce: null });
  if (!state.listening) {
    window.addEventListener("keyup", onKeyUp);
    state.listening = true;
  }
  const data = component.data || {};
  if (data.nonce !== state.nonce) {
    state.nonce = data.nonce;
    focusBox(data.box);
  }
}
"""


@functools.cache
def _focus_script():
    """The reason box's script (registered once per process; trusted code, given selectors)."""
    return st.components.v2.component("pooljudge_verdict", js=_JS)
