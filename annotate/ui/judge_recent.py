"""The judging page's undo and its strip of recent judgments.

- Undo (key ``undo``, default ``u``, and the Undo button beside the last action's message):
  :func:`pooljudge.annotate.store.withdraw_last` appends a withdrawal to the annotator's last
  standing
  answer and claims its pair for them; the page shows that pair again, says it was withdrawn,
  and its next label is stored as the next version. The button is drawn whenever there is an
  answer to undo, so the key always has a button to press (also on the "nothing left" screen).
- Recent judgments: the last :data:`RECENT` answers, newest first, as one row of small chips
  ("T1 · d7 · 2 · Highly relevant") in a section below the document, out of the first screen.
  Choosing one shows it as an earlier judgment to change (``BACK_STEPS`` = its place, the
  order of :func:`pooljudge.annotate.store.history`); the back key walks the same list one by one.

Guards as in :mod:`pooljudge.annotate.ui.judge`: the undo callback runs only while its pair
(``None``
on the "nothing left" screen) is the one displayed, and marks the display stale at once, so a
held ``u`` withdraws one answer per press that the page has shown the result of.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.keymap import KeyMap
from pooljudge.annotate.records import AnnotatorInfo, CampaignInfo, JudgmentRecord, PairView
from pooljudge.annotate.store import RecentJudgment, session_scope
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui.render import caption_html, md_escape
from sqlalchemy import Engine

from pooljudge.errors import InputError, StorageError

__all__ = ["RECENT", "RECENT_STRIP", "Recent", "next_version", "note", "read_recent",
           "recent_strip", "undo_button", "undo_key"]

RECENT = 10
RECENT_STRIP = "recent_strip"     # the recent judgments' chips (a pills widget)
_DISPLAYED = "pj_displayed"       # pooljudge.annotate.ui.judge.DISPLAYED: the pair id on screen
_UNDOING = -1                     # DISPLAYED while an undo's result is not yet on screen
NOT_UNDONE = ("Not undone: the database could not store it (a full disk or a lost "
              "connection). Press the key again once it is back.")


@dataclass(frozen=True)
class Recent:
    """What the page needs for undo: the recent answers (newest first) and, when the pair on
    screen is the claimed one and was withdrawn, that withdrawal (its next label is
    ``undone.version + 1``)."""

    items: list[RecentJudgment]
    undone: JudgmentRecord | None


def undo_key(pair_id: int | None) -> str:
    return f"undo_{pair_id or 0}"


def read_recent(session, user: AnnotatorInfo, view: PairView | None, earlier: bool) -> Recent:
    """Two indexed reads in the page's read-only transaction: the last :data:`RECENT` answers
    and, for a claimed pair on screen (not an ``earlier`` one), whether it was withdrawn."""
    items = store.recent_judgments(session, annotator_id=user.id, limit=RECENT)
    undone = (store.withdrawal(session, annotator_id=user.id, pair_id=view.pair_id)
              if view is not None and not earlier else None)
    return Recent(items, undone)


def next_version(earlier: JudgmentRecord | None, recent: Recent) -> int:
    """The version the next answer on screen is stored as."""
    if earlier is not None:
        return earlier.version + 1
    return 1 if recent.undone is None else recent.undone.version + 1


def note(column, engine: Engine, user: AnnotatorInfo, campaign: CampaignInfo, keymap: KeyMap,
         recent: Recent, flash: str | None, hint_html: str, pair_id: int | None
         ) -> list[tuple[tuple[str, ...], str]]:
    """The last action's message (``flash``, escaped here) with the Undo button beside it in
    ``column``; without one, a withdrawn pair on screen says so, else the key hint (HTML).
    Returns the Undo key's legend line (none when there is nothing to undo or no key)."""
    text, button = column.columns([3, 1], gap="small", vertical_alignment="center")
    if flash is None and recent.undone is not None:
        flash = "You withdrew your answer for this pair: it is shown again, label it anew."
    text.html(caption_html(flash) if flash else hint_html)
    with button:
        return undo_button(engine, user, campaign, keymap, recent, pair_id)


def undo_button(engine: Engine, user: AnnotatorInfo, campaign: CampaignInfo, keymap: KeyMap,
                recent: Recent, pair_id: int | None) -> list[tuple[tuple[str, ...], str]]:
    """The Undo button (when there is an answer to undo); its legend line."""
    if not recent.items:
        return []
    shortcut = keymap.shortcut("undo")
    last = recent.items[0]
    st.button("Undo", key=undo_key(pair_id), shortcut=shortcut, on_click=_on_undo,
              args=(engine, user.id, pair_id, last.pair_id, _describe(last, campaign)),
              help="Withdraw your last judgment and show its pair again", width="stretch")
    return [((shortcut,), "undo my last judgment")] if shortcut else []


def recent_strip(campaign: CampaignInfo, recent: Recent, steps: int) -> None:
    """The recent answers as one row of chips below the document; choosing one shows it as
    an earlier judgment to change. Nothing when there are none."""
    if not recent.items:
        return
    chosen = steps - 1 if 0 < steps <= len(recent.items) else None
    st.pills("Recent judgments (newest first)", options=list(range(len(recent.items))),
             format_func=lambda i: md_escape(_describe(recent.items[i], campaign)),
             key=RECENT_STRIP, default=None, on_change=_on_jump, selection_mode="single",
             help="Choose one to change it; the back key walks this list one by one")
    if chosen is not None:
        st.html(caption_html(f"On screen: number {chosen + 1} of this list."))


def _describe(item: RecentJudgment, campaign: CampaignInfo) -> str:
    """``T1 · d7 · 2 · Highly relevant`` (a can't-judge answer: ``… · can't judge``)."""
    if item.label is None:
        answer = "can't judge"
    else:
        name = next((lab.name for lab in campaign.scale.labels if lab.value == item.label), "")
        answer = f"{item.label} · {name}" if name else str(item.label)
    return f"{item.topic_id} · {item.doc_id} · {answer}"


def _on_jump() -> None:
    """Show the chosen recent answer as an earlier judgment (its place = back steps)."""
    state = st.session_state
    chosen = state.get(RECENT_STRIP)
    state[RECENT_STRIP] = None  # a chip is an action, not a setting
    if chosen is not None:
        state[keys.BACK_STEPS] = int(chosen) + 1


def _on_undo(engine: Engine, annotator_id: int, pair_id: int | None, last_pair: int,
             what: str) -> None:
    """Withdraw the last answer and put its pair on screen, unless the display moved on.
    ``what`` describes the answer that was the last one (``last_pair``) when the page drew."""
    state = st.session_state
    if state.get(_DISPLAYED) != pair_id:
        return
    state[_DISPLAYED] = _UNDOING
    try:
        with session_scope(engine) as session:
            view = store.withdraw_last(session, annotator_id=annotator_id)
    except InputError as exc:  # removed meanwhile: the next run shows the login message
        state[keys.CURRENT] = None
        state[keys.FLASH] = f"Not undone: {exc}"
        return
    except StorageError:
        state[_DISPLAYED] = pair_id
        state[keys.FLASH] = NOT_UNDONE
        return
    if view is None:
        state[_DISPLAYED] = pair_id
        state[keys.FLASH] = "Nothing to undo."
        return
    state[keys.BACK_STEPS] = 0
    state[keys.CURRENT] = view
    shown = what if view.pair_id == last_pair else f"document {view.doc_id}"
    state[keys.FLASH] = f"Withdrawn: {shown}. It is shown again: label it anew."
