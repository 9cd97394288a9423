"""The nugget-creation pane: a topic and one relevant passage of its judged pool beside the
topic's nugget bank; type a nugget, mark it vital or okay, edit, merge duplicates, delete — by
key or click, every change through :mod:`pooljudge.annotate.store` (``add_nugget``,
``edit_nugget``, ``merge_nuggets``, ``delete_nugget``: authorised in their own transaction and
recorded in the bank's history).

- Passages: the topic's pooled documents people judged relevant
  (:func:`pooljudge.annotate.store.relevant_passages`), one at a time; a nugget typed while a
  passage is shown takes it as its source.
- Keys: ``a`` types in the box (Enter adds the nugget, or saves the edit; Esc leaves the box),
  ``s`` puts the text selected in the passage into the box (Enter then adds it:
  :mod:`pooljudge.annotate.ui.span_pick`), ``v`` / ``o`` vital / okay, ``e`` edit the focused
  nugget in the box (``e`` again: stop editing), ``m`` marks the focused nugget for merging
  and, on another nugget, merges the marked one into it (``m`` on the marked one unmarks it),
  ``x`` deletes, ``j`` / ``k`` next / previous nugget, ``l`` / ``h`` next / previous passage,
  ``n`` / ``p`` next / previous topic.
- Model drafts (imported nuggets a model wrote) are shown as such: left alone they count as
  kept, and editing, merging or deleting them is what
  :func:`pooljudge.annotate.post_editing.post_editing` measures (its figures for the topic are
  shown above the bank).
- Integrity, as on the assignment pane: the topic card and the passage carry a mark of (topic,
  focused nugget, passage), as does every writing button, and the judging pane's gate admits a
  key only when they all agree, once per press, never on auto-repeat; a callback acts only on
  the nugget and topic it was drawn for, while that is still the screen.
"""

from __future__ import annotations

import logging
import zlib
from dataclasses import dataclass

import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.keymap import PAGE_ACTIONS, KeyMap
from pooljudge.annotate.post_editing import post_editing
from pooljudge.annotate.records import CampaignInfo, NuggetRecord
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui import session as login_state
from pooljudge.annotate.ui.faults import storage_faults_shown
from pooljudge.annotate.ui.key_gate import mount_gate
from pooljudge.annotate.ui.keyboard import mount_keyboard
from pooljudge.annotate.ui.render import (
    caption_html,
    document_html,
    keys_html,
    md_escape,
    pair_part_html,
    text_html,
)
from pooljudge.annotate.ui.span_pick import mount_span_pick
from sqlalchemy import Engine

from pooljudge.errors import InputError, StorageError

__all__ = ["ACTIONS", "BOX_KEYS", "EDITORS", "bank_mark", "box_key", "render"]

LOG = logging.getLogger("pooljudge.nuggets")
# key -> (button kind, what, button text); kinds are names the judging pane's gate knows
ACTIONS = {"v": ("label", "vital", "Vital"), "o": ("label", "okay", "Okay"),
           "e": ("act", "edit", "Edit"), "m": ("act", "merge", "Merge"),
           "x": ("act", "delete", "Delete")}
MOVES = {"j": ("skip", "nugget", "Next nugget"), "k": ("back", "nugget", "Previous nugget"),
         "l": ("skip", "passage", "Next passage"), "h": ("back", "passage", "Previous passage"),
         "n": ("skip", "topic", "Next topic"), "p": ("back", "topic", "Previous topic")}
GATE_ACTIONS = {key: kind for key, (kind, _, _) in {**ACTIONS, **MOVES}.items()}
# The page's own key (focus the box; pooljudge.annotate.ui.keyboard): "comment" is its name.
BOX_KEYS = KeyMap((), {**{action: () for action in PAGE_ACTIONS}, "comment": ("a",)})
HINT_WORDS = (1, 12)
EDITORS = ("adjudicator", "admin")  # who builds banks here (the store lets every role)


def bank_mark(topic: str, nugget: str | None, passage: int) -> int:
    """The number naming what is on screen (topic, focused nugget, passage) for the gate."""
    return zlib.crc32(f"{topic}\t{nugget or ''}\t{passage}".encode())


def box_key(topic: str, editing: str | None) -> str:
    """The text box: a new nugget of ``topic``, or the edit of nugget ``editing`` (a name the
    page's key script focuses and leaves on Enter: ``comment_…``)."""
    tag = f"edit_{zlib.crc32(editing.encode())}" if editing else "new"
    return f"comment_bank_{zlib.crc32(topic.encode())}_{tag}"


@dataclass(frozen=True)
class Bank:
    """One run's screen: the topics, the topic shown, its card, passages, bank and focus."""

    topics: list[str]
    topic: str
    card: tuple[str, str, str]
    passages: list[tuple[str, str, str]]
    passage: int
    nuggets: list[NuggetRecord]
    focus: int | None
    figures: dict[str, int]

    @property
    def nugget(self) -> NuggetRecord | None:
        return None if self.focus is None else self.nuggets[self.focus]

    @property
    def shown(self) -> tuple[str, str | None, int]:
        return (self.topic, None if self.nugget is None else self.nugget.key, self.passage)

    @property
    def mark(self) -> int:
        return bank_mark(*self.shown)


def render(engine: Engine, campaign: CampaignInfo) -> None:
    """Draw the pane for ``campaign`` (a fragment: a key press reruns only the pane)."""
    _pane(engine, campaign)


@st.fragment
def _pane(engine: Engine, campaign: CampaignInfo) -> None:
    with storage_faults_shown():
        _pane_area(engine, campaign)


def _pane_area(engine: Engine, campaign: CampaignInfo) -> None:
    state = st.session_state
    with session_scope(engine, readonly=True) as session:
        if store.login(session, credential=login_state.credential()) is None:
            st.rerun(scope="app")
        bank = _read(session, campaign.name)
    if bank is None:
        st.info("This campaign has no topics.", icon=":material/info:")
        return
    if state.get(keys.BANK_SHOWN) != bank.shown:
        state[keys.BANK_SHOWN] = bank.shown
    mount_keyboard(BOX_KEYS)
    mount_gate(None, min_dwell_ms=campaign.min_dwell_ms, actions=GATE_ACTIONS)
    mount_span_pick()
    _header(bank, state.pop(keys.FLASH, None))
    _buttons(engine, campaign.name, bank)
    left, right = st.columns([1.2, 1], gap="medium")
    with left:
        st.html(pair_part_html(bank.mark, "topic", _topic_html(bank)))
        st.html(pair_part_html(bank.mark, "document", _passage_html(bank)))
    with right:
        _box(engine, campaign.name, bank)
        _rows(bank)


def _read(session, campaign: str) -> Bank | None:
    """The screen of this run (None: a campaign without topics)."""
    state = st.session_state
    topics = list(store.topic_titles(session, campaign=campaign))
    if not topics:
        return None
    topic = state.get(keys.BANK_TOPIC)
    if topic not in topics:
        topic = state[keys.BANK_TOPIC] = topics[0]
    passages = store.relevant_passages(session, campaign=campaign, topic=topic)
    passage = min(int(state.get(keys.BANK_PASSAGE, 0)), max(len(passages) - 1, 0))
    nuggets = store.nugget_bank(session, campaign=campaign, topic=topic)
    order = [n.key for n in nuggets]
    focused = state.get(keys.BANK_FOCUS)
    if focused not in order:
        focused = state[keys.BANK_FOCUS] = order[0] if order else None
    history = store.nugget_history(session, campaign=campaign)
    table = post_editing(history[history["topic"] == topic]) if len(history) else None
    figures = ({} if table is None or table.empty
               else {c: int(table.iloc[-1][c]) for c in ("model_nuggets", "kept", "edited",
                                                         "merged", "deleted", "added")})
    return Bank(topics, topic, store.topic_card(session, campaign=campaign, topic=topic),
                passages, passage, nuggets, None if focused is None else order.index(focused),
                figures)


def _header(bank: Bank, flash: str | None) -> None:
    vital = sum(n.importance == "vital" for n in bank.nuggets)
    line = (f"Topic {bank.topic} ({bank.topics.index(bank.topic) + 1} of {len(bank.topics)}) · "
            f"{len(bank.nuggets)} nuggets, {vital} vital")
    if bank.figures.get("model_nuggets"):
        f = bank.figures
        line += (f" · model drafts: {f['model_nuggets']} (kept {f['kept']}, edited "
                 f"{f['edited']}, merged {f['merged']}, deleted {f['deleted']}), added "
                 f"{f['added']}")
    st.html(caption_html(line + (f" · {flash}" if flash else "")))


def _buttons(engine: Engine, campaign: str, bank: Bank) -> None:
    """The actions on the focused nugget, then the moves, then the keys' line."""
    targets = _targets(bank)
    row = st.columns(len(ACTIONS) + len(MOVES), gap="small")
    for column, (key, (kind, what, text)) in zip(row, ACTIONS.items(), strict=False):
        column.button(f"{key} · {text}", key=f"{kind}_{bank.mark}_{what}", shortcut=key,
                      width="stretch", on_click=_on_action,
                      args=(engine, campaign, bank.shown, what, targets["j"] or targets["k"]))
    for column, (key, (kind, what, text)) in zip(row[len(ACTIONS):], MOVES.items(),
                                                 strict=True):
        column.button(text, key=f"{kind}_{bank.mark}_{what}", shortcut=key, width="stretch",
                      on_click=_on_move, args=(bank.shown, what, targets[key]))
    st.html(keys_html([("a", "type a nugget"), ("s", "selected passage text to the box"),
                       ("v o", "vital, okay"), ("e", "edit"),
                       ("m", "merge"), ("x", "delete"), ("j k", "nuggets"),
                       ("h l", "passages"), ("n p", "topics")]))


def _targets(bank: Bank) -> dict[str, object]:
    """Where each move goes from this screen (None: nowhere that way)."""
    order = [n.key for n in bank.nuggets]
    at = bank.topics.index(bank.topic)
    focus = -1 if bank.focus is None else bank.focus
    return {"j": order[focus + 1] if 0 <= focus < len(order) - 1 else None,
            "k": order[focus - 1] if focus > 0 else None,
            "l": bank.passage + 1 if bank.passage + 1 < len(bank.passages) else None,
            "h": bank.passage - 1 if bank.passage > 0 else None,
            "n": bank.topics[at + 1] if at + 1 < len(bank.topics) else None,
            "p": bank.topics[at - 1] if at > 0 else None}


def _topic_html(bank: Bank) -> str:
    title, description, narrative = bank.card
    nugget = bank.nugget
    focused = ("No nugget yet: press a and type one." if nugget is None else
               f"Nugget {bank.focus + 1} · {nugget.importance}: {nugget.text}")
    return (caption_html(f"Topic {bank.topic}")
            + f'<div class="pj-doc-title">{text_html(title)}</div>' + text_html(description)
            + (caption_html("Narrative") + text_html(narrative) if narrative.strip() else "")
            + f'<div class="pj-nugget-focus">{text_html(focused)}</div>')


def _passage_html(bank: Bank) -> str:
    if not bank.passages:
        return caption_html("No passage of this topic has been judged relevant yet.")
    key, title, text = bank.passages[bank.passage]
    return (caption_html(f"Relevant passage {bank.passage + 1} of {len(bank.passages)} · "
                         f"document {key}", css_class="pj-passage-id")
            + document_html(title, text, ()))


def _box(engine: Engine, campaign: str, bank: Bank) -> None:
    """The text box: a new nugget, or the edit of the nugget being edited."""
    editing = st.session_state.get(keys.BANK_EDIT)
    editing = editing if editing in {n.key for n in bank.nuggets} else None
    box = box_key(bank.topic, editing)
    if editing is not None and box not in st.session_state:
        st.session_state[box] = next(n.text for n in bank.nuggets if n.key == editing)
    source = bank.passages[bank.passage][0] if bank.passages else None
    st.text_input(md_escape(f"Edit nugget {editing}") if editing else "New nugget", key=box,
                  placeholder="1–12 words · a to type, Enter to add, Esc to leave",
                  on_change=_on_text, args=(engine, campaign, bank.topic, box, editing, source))


def _rows(bank: Bank) -> None:
    """The bank, one row per active nugget: importance, author, text; a click focuses it."""
    merging = st.session_state.get(keys.BANK_MERGE)
    for position, nugget in enumerate(bank.nuggets):
        who = (f"draft by {nugget.author}" if nugget.author_kind == "model"
               else f"by {nugget.author}")
        tag = " · marked to merge" if nugget.key == merging else ""
        st.button(md_escape(f"{position + 1}. [{nugget.importance}] {nugget.text} ({who}{tag})"),
                  key=f"bank_focus_{zlib.crc32(nugget.key.encode())}", width="stretch",
                  type="primary" if position == bank.focus else "tertiary",
                  on_click=_on_move, args=(bank.shown, "nugget", nugget.key))


def _words_note(text: str) -> str:
    count = len(text.split())
    low, high = HINT_WORDS
    return "" if low <= count <= high else f" ({count} words: a nugget is best {low}–{high})"


def _on_text(engine: Engine, campaign: str, topic: str, box: str, editing: str | None,
             source: str | None) -> None:
    """Enter in the box: add the typed nugget (its source: the passage shown), or save the
    edit; the box empties and the new or edited nugget gets the focus."""
    state = st.session_state
    text = (state.get(box) or "").strip()
    if not text:
        return
    try:
        with session_scope(engine) as session:
            if editing is None:
                made = store.add_nugget(session, credential=login_state.credential(),
                                        campaign=campaign, topic=topic, text=text,
                                        importance="okay", sources=[source] if source else [])
            else:
                made = store.edit_nugget(session, credential=login_state.credential(),
                                         campaign=campaign, key=editing, text=text)
    except (InputError, StorageError) as exc:
        state[keys.FLASH] = f"Not saved: {exc}"
        return
    state[box] = ""
    state[keys.BANK_FOCUS], state[keys.BANK_EDIT] = made.key, None
    state[keys.FLASH] = ("Added" if editing is None else "Saved") + f" nugget {made.key}" + \
        _words_note(text) + "."


def _on_action(engine: Engine, campaign: str, shown: tuple, what: str,
               neighbour: str | None) -> None:
    """v, o, e, m, x on the nugget focused when the button was drawn, if it still is."""
    state = st.session_state
    if state.get(keys.BANK_SHOWN) != shown:
        LOG.warning("ignored %s for %s: not what is on screen (%s)", what, shown,
                    state.get(keys.BANK_SHOWN))
        return
    key = shown[1]
    if key is None:
        state[keys.FLASH] = "No nugget yet: press a and type one."
        return
    if what == "edit":  # the box starts from the nugget's text as stored now
        state.pop(box_key(shown[0], key), None)
        state[keys.BANK_EDIT] = None if state.get(keys.BANK_EDIT) == key else key
        return
    state[keys.BANK_SHOWN] = None  # until the next run: a second press acts on nothing
    try:
        with session_scope(engine) as session:
            message = _change(session, campaign, key, what, neighbour)
    except (InputError, StorageError) as exc:
        state[keys.BANK_SHOWN] = shown
        message = f"Not saved: {exc}"
    state[keys.FLASH] = message


def _change(session, campaign: str, key: str, what: str, neighbour: str | None) -> str:
    """One change to the bank, authorised in this transaction; the pane's message."""
    state, who = st.session_state, login_state.credential()
    if what in ("vital", "okay"):
        store.edit_nugget(session, credential=who, campaign=campaign, key=key, importance=what)
        return f"Nugget {key} is {what}."
    if what == "delete":
        store.delete_nugget(session, credential=who, campaign=campaign, key=key)
        state[keys.BANK_FOCUS] = neighbour
        return f"Deleted nugget {key}."
    marked = state.get(keys.BANK_MERGE)
    if marked is None or marked == key:
        state[keys.BANK_MERGE] = None if marked == key else key
        return ("Unmarked." if marked == key
                else f"Nugget {key} marked: focus its duplicate and press m to merge.")
    store.merge_nuggets(session, credential=who, campaign=campaign, keys=[marked], into=key)
    state[keys.BANK_MERGE] = None
    return f"Merged nugget {marked} into {key}."


def _on_move(shown: tuple, what: str, target: object) -> None:
    """j/k (or a row's click), h/l, n/p from the screen the button was drawn on."""
    state = st.session_state
    if state.get(keys.BANK_SHOWN) != shown:
        return
    if target is None:
        state[keys.FLASH] = f"No more {what}s that way."
    elif what == "nugget":
        state[keys.BANK_FOCUS] = target
    elif what == "passage":
        state[keys.BANK_PASSAGE] = target
    else:
        state[keys.BANK_TOPIC], state[keys.BANK_FOCUS] = target, None
        state[keys.BANK_PASSAGE], state[keys.BANK_EDIT] = 0, None
