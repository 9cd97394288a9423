"""The assignment pane: one RAG answer beside its topic's nugget checklist; the focused nugget
gets support / partial / none by key or click.

- Which answers: the answers of the person's campaign whose topic has active nuggets and that
  the campaign's overlap leaves to them, in the store's stable order
  (:func:`pooljudge.annotate.store.assignment_queue`: without an overlap everyone assigns every
  answer; with K, an answer K others started is not offered, and a first label on one taken
  meanwhile is refused with a note, the pane moving on); a fresh visit starts at the first
  answer not yet fully labelled by this person, and *next answer* skips the done ones.
- Keys: ``2`` support, ``1`` partial support, ``0`` no support (the focused nugget; the focus
  then moves to the next nugget), ``j`` / ``k`` next / previous nugget, ``n`` next answer not
  yet done, ``p`` previous answer. Each key is a button's shortcut; clicking a row of the
  checklist focuses that nugget.
- Integrity, as on the judging pane (:mod:`pooljudge.annotate.ui.judge`): the cell on screen
  has a mark (:func:`cell_mark`) carried by the topic part, the answer part and every button,
  and the judging pane's gate (:mod:`pooljudge.annotate.ui.key_gate`) lets a key or click act
  only when they all name the same cell, never on an auto-repeat, never while an earlier action
  is being answered, and labels only after the campaign's dwell. A write names the answer and
  the nugget its button was drawn for, and is ignored unless that cell is still the one shown
  (``ASSIGN_SHOWN``, cleared before the write): a stale or doubled press writes nothing. The
  write authorises the login in its own transaction
  (:func:`pooljudge.annotate.store.record_nugget_assignment`).
- Model pre-assignment, only under ``calibrate suggest``'s anchoring control: when the campaign
  names a suggesting judge (``pooljudge calibrate suggest --from NAME``) that labelled the
  focused cell, ``Suggested: 2 · Support (NAME)`` is drawn under the nugget, and the label
  written stores the suggestion drawn with its button (``nugget_assignment.suggested``), so
  agreement with the model can be measured with and without it
  (:func:`pooljudge.annotate.nugget_agreement.anchoring`).
- Untrusted text (topics, nuggets, answers, documents) reaches HTML escaped
  (:mod:`pooljudge.annotate.ui.render`) and Markdown labels through ``md_escape``.
"""

from __future__ import annotations

import html
import logging
import time
import zlib
from dataclasses import dataclass

import pandas as pd
import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.records import NUGGET_LABELS, AnnotatorInfo, CampaignInfo, NuggetRecord
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui import session as login_state
from pooljudge.annotate.ui.faults import storage_faults_shown
from pooljudge.annotate.ui.key_gate import mount_gate
from pooljudge.annotate.ui.render import (
    caption_html,
    document_html,
    keys_html,
    md_escape,
    pair_part_html,
    text_html,
)
from sqlalchemy import Engine

from pooljudge.errors import InputError, StorageError
from pooljudge.formats.rag_answers import AnswerRow

__all__ = ["LABEL_KEYS", "LABEL_NAMES", "cell_mark", "render", "suggestion_text"]

LOG = logging.getLogger("pooljudge.assignment")
# label -> (key, button text, checklist mark); the key is the label's index in NUGGET_LABELS
LABEL_NAMES = {"support": "Support", "partial_support": "Partial support",
               "not_support": "No support"}
LABEL_KEYS = {label: str(i) for i, label in enumerate(NUGGET_LABELS)}
_MARKS = {"support": "✓", "partial_support": "½", "not_support": "✗", None: "·"}
NAV = {"j": ("skip", "nugget", "next nugget"), "k": ("back", "nugget", "previous nugget"),
       "n": ("skip", "answer", "next answer"), "p": ("back", "answer", "previous answer")}
GATE_ACTIONS = {**{key: "label" for key in LABEL_KEYS.values()},
                **{key: kind for key, (kind, _, _) in NAV.items()}}
NOTHING = ("This campaign has no RAG answers with nuggets to assign yet. An organiser imports "
           "them with `pooljudge nuggets import`.")
DONE = "Every answer has a label for each of its nuggets from you. Thank you!"


def cell_mark(answer: str, nugget: str) -> int:
    """The number that names the cell (``answer``, ``nugget``) on screen (CRC-32 of both keys,
    as the adjudication pane names its pair): what the gate compares across the parts."""
    return zlib.crc32(f"{answer}\t{nugget}".encode())


@dataclass(frozen=True)
class Screen:
    """What one run shows: the queue, the answer and its index, the topic's active nuggets,
    this person's labels of them, the focused nugget, the topic card and cited documents."""

    queue: pd.DataFrame
    index: int
    answer: AnswerRow
    nuggets: list[NuggetRecord]
    labels: dict[str, str]
    focus: int
    topic: tuple[str, str, str]
    cited: dict[str, tuple[str, str]]
    suggestions: dict[str, tuple[str, str]]

    @property
    def nugget(self) -> NuggetRecord:
        return self.nuggets[self.focus]

    @property
    def cell(self) -> int:
        return cell_mark(self.answer.key, self.nugget.key)


def render(engine: Engine, user: AnnotatorInfo) -> None:
    """Draw the assignment pane for ``user`` in their own campaign (a fragment: a key press
    reruns only the pane)."""
    with session_scope(engine, readonly=True) as session:
        campaign = store.get_campaign(session, name=user.campaign_name)
    _pane(engine, user, campaign)


@st.fragment
def _pane(engine: Engine, user: AnnotatorInfo, campaign: CampaignInfo) -> None:
    with storage_faults_shown():
        _pane_area(engine, user, campaign)


def _pane_area(engine: Engine, user: AnnotatorInfo, campaign: CampaignInfo) -> None:
    state = st.session_state
    with session_scope(engine, readonly=True) as session:
        if store.login(session, credential=login_state.credential()) is None:
            st.rerun(scope="app")
        queue = store.assignment_queue(session, campaign=campaign.name, annotator_id=user.id)
        screen = _read(session, user, campaign.name, queue)
    mount_gate(None, min_dwell_ms=campaign.min_dwell_ms, actions=GATE_ACTIONS)
    flash = state.pop(keys.FLASH, None)
    if screen is None:
        _empty(queue, flash)
        return
    cell = (screen.answer.key, screen.nugget.key)
    if state.get(keys.ASSIGN_SHOWN) != cell:
        state[keys.ASSIGN_SHOWN] = cell
        state[keys.ASSIGN_SHOWN_AT] = time.monotonic()
    _header(screen, flash)
    _buttons(engine, campaign, screen)
    left, right = st.columns([1, 1.4], gap="medium")
    with left:
        st.html(pair_part_html(screen.cell, "topic", _topic_html(screen)))
        _checklist(screen)
    with right:
        st.html(pair_part_html(screen.cell, "document", _answer_html(screen)))
        _citations(screen)


def _read(session, user: AnnotatorInfo, campaign: str, queue: pd.DataFrame) -> Screen | None:
    """The screen of this run (None: nothing to assign, or this person's queue is done)."""
    state = st.session_state
    answers = queue["answer"].tolist()
    shown = state.get(keys.ASSIGN_ANSWER)
    if shown not in answers:
        undone = queue.index[queue["labelled"] < queue["nuggets"]]
        if undone.empty:
            return None
        shown = answers[int(undone[0])]
        state[keys.ASSIGN_ANSWER], state[keys.ASSIGN_FOCUS] = shown, None
    index = answers.index(shown)
    topic = str(queue["topic"].iat[index])
    answer = next(a for a in store.answer_texts(session, campaign=campaign, topic=topic)
                  if a.key == shown)
    nuggets = store.nugget_bank(session, campaign=campaign, topic=topic)
    labels = store.my_nugget_labels(session, campaign=campaign, annotator_id=user.id,
                                    answer=answer.key)
    order = [n.key for n in nuggets]
    focused = state.get(keys.ASSIGN_FOCUS)
    if focused not in order:
        focused = next((k for k in order if k not in labels), order[0])
        state[keys.ASSIGN_FOCUS] = focused
    return Screen(queue, index, answer, nuggets, labels, order.index(focused),
                  store.topic_card(session, campaign=campaign, topic=topic),
                  store.document_texts(session, campaign=campaign, keys=answer.references),
                  store.nugget_suggestions(session, campaign=campaign, answer=answer.key))


def _empty(queue: pd.DataFrame, flash: str | None) -> None:
    """Nothing to assign in the campaign, or this person's queue is done (the way back)."""
    st.session_state[keys.ASSIGN_SHOWN] = None
    if flash:
        st.html(caption_html(flash))
    if queue.empty:
        st.info(md_escape(NOTHING), icon=":material/info:")
        return
    st.success(DONE, icon=":material/done_all:")
    st.button("Previous answer", key=keys.cell_key("back", 0, "answer"), shortcut="p",
              on_click=_on_answer, args=(None, str(queue["answer"].iat[-1])))
    st.html(keys_html([("p", "back to the last answer")]))


def _header(screen: Screen, flash: str | None) -> None:
    """One line: where in the queue, this answer's progress, the last action's message."""
    done = int((screen.queue["labelled"] >= screen.queue["nuggets"]).sum())
    mine = sum(n.key in screen.labels for n in screen.nuggets)
    line = (f"Answer {screen.index + 1} of {len(screen.queue)} · topic {screen.answer.topic} · "
            f"you labelled {mine} of {len(screen.nuggets)} nuggets here · "
            f"{done} answers done")
    st.html(caption_html(line + (f" · {flash}" if flash else "")))


def _buttons(engine: Engine, campaign: CampaignInfo, screen: Screen) -> None:
    """The three label buttons of the focused cell, then the four moves, and the key line."""
    cell = (screen.answer.key, screen.nugget.key)
    targets = _targets(screen)
    suggested = screen.suggestions.get(cell[1], (None, None))[0]  # the one drawn with them
    row = st.columns([1.2, 1.2, 1.2, 1, 1, 1, 1], gap="small")
    for column, label in zip(row, reversed(NUGGET_LABELS), strict=False):
        value = LABEL_KEYS[label]
        column.button(f"{value} · {LABEL_NAMES[label]}", width="stretch",
                      key=keys.cell_key("label", screen.cell, value), shortcut=value,
                      type="primary" if screen.labels.get(cell[1]) == label else "secondary",
                      on_click=_on_label, args=(engine, campaign.name, cell, label,
                                                targets["j"], suggested))
    for column, (key, (kind, what, name)) in zip(row[3:], NAV.items(), strict=True):
        target = targets[key]
        column.button(name.capitalize(), key=keys.cell_key(kind, screen.cell, what),
                      shortcut=key, width="stretch",
                      on_click=_on_focus if what == "nugget" else _on_answer,
                      args=(cell, target))
    st.html(keys_html([("2 1 0", "support, partial, none"), ("j k", "next, previous nugget"),
                       ("n p", "next, previous answer")]))


def _topic_html(screen: Screen) -> str:
    """The topic card and the focused nugget (escaped): the pane's "topic" part."""
    title, description, _narrative = screen.topic
    nugget = screen.nugget
    suggestion = screen.suggestions.get(nugget.key)
    return (caption_html(f"Topic {screen.answer.topic}")
            + f'<div class="pj-doc-title">{text_html(title)}</div>' + text_html(description)
            + caption_html(f"Nugget {screen.focus + 1} of {len(screen.nuggets)} · "
                           f"{nugget.importance}", css_class="pj-nugget-head")
            + f'<div class="pj-doc-title pj-nugget-focus">{text_html(nugget.text)}</div>'
            + ("" if suggestion is None else caption_html(suggestion_text(*suggestion),
                                                          css_class="pj-suggestion")))


def suggestion_text(label: str, judge: str) -> str:
    """``Suggested: 2 · Support (gpt-4o)`` (plain text, escaped when drawn)."""
    return f"Suggested: {LABEL_KEYS[label]} · {LABEL_NAMES[label]} ({judge})"


def _checklist(screen: Screen) -> None:
    """Every nugget of the topic as a row (its label from this person, its importance and
    text); the focused one is primary, a click focuses another."""
    for position, nugget in enumerate(screen.nuggets):
        mark = _MARKS[screen.labels.get(nugget.key)]
        st.button(md_escape(f"{mark} {nugget.text} ({nugget.importance})"), width="stretch",
                  key=keys.nugget_focus_key(screen.index, position),
                  type="primary" if position == screen.focus else "tertiary",
                  on_click=_on_focus, args=((screen.answer.key, screen.nugget.key),
                                            nugget.key))


def _answer_html(screen: Screen) -> str:
    """The answer's sentences, numbered, each with its citations as literal document ids in
    brackets (escaped): the pane's "document" part. Neither the run nor the answer's id (which
    often names the run) is shown."""
    refs = screen.answer.references
    lines = []
    for number, sentence in enumerate(screen.answer.sentences, start=1):
        cited = " ".join(f"[{refs[i]}]" if 0 <= i < len(refs) else f"[{i}?]"
                         for i in sentence.citations)
        lines.append(f'<div class="pj-text pj-sentence"><b>{number}.</b> '
                     f"{html.escape(f'{sentence.text} {cited}'.rstrip(), quote=True)}</div>")
    body = "".join(lines) or caption_html("This answer has no sentences.")
    return caption_html("Answer") + f'<div class="pj-answer">{body}</div>'


def _citations(screen: Screen) -> None:
    """Each cited document, closed; opened, its text (or a note that the campaign lacks it)."""
    refs = screen.answer.references
    cited = list(dict.fromkeys(refs[i] for s in screen.answer.sentences for i in s.citations
                               if 0 <= i < len(refs)))
    for doc in cited:
        with st.expander(md_escape(f"Cited document {doc}"), expanded=False):
            if doc in screen.cited:
                title, text = screen.cited[doc]
                st.html(document_html(title, text, ()))
            else:
                st.html(caption_html("This document is not in the campaign's collection."))


def _on_label(engine: Engine, campaign: str, cell: tuple[str, str], label: str,
              following: str | None, suggested: str | None = None) -> None:
    """Store ``label`` for ``cell`` (answer, nugget), the cell its button was drawn for, with
    ``suggested``, the pre-assignment drawn with it, unless the cell is no longer the one on
    screen; then focus ``following`` (the next nugget, if any)."""
    state = st.session_state
    if not _is_shown(cell, "label"):
        return
    state[keys.ASSIGN_SHOWN] = None
    seconds = max(time.monotonic() - float(state.get(keys.ASSIGN_SHOWN_AT, time.monotonic())),
                  0.0)
    answer, nugget = cell
    try:
        with session_scope(engine) as session:  # authorised inside this transaction
            store.record_nugget_assignment(session, credential=login_state.credential(),
                                           campaign=campaign, answer=answer, nugget=nugget,
                                           label=label, seconds=round(seconds, 3),
                                           suggested=suggested)
    except (InputError, StorageError) as exc:  # the cell stays on screen: press again
        state[keys.ASSIGN_SHOWN] = cell
        state[keys.FLASH] = f"Not saved: {exc}"
        return
    if following is not None:
        state[keys.ASSIGN_FOCUS] = following
    state[keys.FLASH] = f"Saved {LABEL_NAMES[label].lower()} for the previous nugget."


def _on_focus(cell: tuple[str, str], nugget: str | None) -> None:
    """Focus ``nugget`` (a checklist click or j/k), from the cell on screen only; None: there
    is no nugget that way (a note says so; the press still reruns, which the gate awaits)."""
    if not _is_shown(cell, "move"):
        return
    if nugget is None:
        st.session_state[keys.FLASH] = "No more nuggets that way."
    else:
        st.session_state[keys.ASSIGN_FOCUS] = nugget


def _on_answer(cell: tuple[str, str] | None, target: str | None) -> None:
    """Show answer ``target`` (n/p), from the cell on screen only (``cell`` None: from the
    "all done" screen); ``target`` None: this person's queue is done."""
    state = st.session_state
    if cell is not None and not _is_shown(cell, "move"):
        return
    state[keys.ASSIGN_ANSWER], state[keys.ASSIGN_FOCUS] = target, None


def _is_shown(cell: tuple[str, str] | None, action: str) -> bool:
    """Whether ``cell`` is the cell on screen; otherwise the action is ignored and logged."""
    shown = st.session_state.get(keys.ASSIGN_SHOWN)
    if cell is not None and shown == cell:
        return True
    LOG.warning("ignored a %s for cell %s: not the cell on screen (shown: %s)", action, cell,
                shown)
    return False


def _targets(screen: Screen) -> dict[str, str | None]:
    """Where each move goes from this screen: next/previous nugget (None at either end), the
    next answer not yet done (after this one, wrapping; this one again when it is the only
    one left; None when all are done) and the previous answer (the first stays)."""
    order = [n.key for n in screen.nuggets]
    answers = screen.queue["answer"].tolist()
    undone = (screen.queue["labelled"] < screen.queue["nuggets"]).tolist()
    later = [*range(screen.index + 1, len(answers)), *range(screen.index)]
    following = next((answers[i] for i in later if undone[i]),
                     screen.answer.key if undone[screen.index] else None)
    return {"j": order[screen.focus + 1] if screen.focus + 1 < len(order) else None,
            "k": order[screen.focus - 1] if screen.focus > 0 else None,
            "n": following, "p": answers[max(screen.index - 1, 0)]}
