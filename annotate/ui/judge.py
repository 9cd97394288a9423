"""The judging page: one pair at a time, a button (and digit key) per label, nothing else to do.

State machine (session state, keys in :mod:`pooljudge.annotate.ui.keys`):

- ``CURRENT`` is the annotator's claimed pair (a PairView), fetched with ``store.next_pair``
  when empty; ``BACK_STEPS = n > 0`` shows their n-th most recent judgment instead, to change it.
  Undo (``u``) withdraws the last answer and makes its pair ``CURRENT`` again; the recent
  judgments' chips set ``BACK_STEPS`` (:mod:`pooljudge.annotate.ui.judge_recent`).
- ``DISPLAYED`` is the pair id on screen. Every write callback first checks that its pair is
  the one displayed and clears ``DISPLAYED`` before writing, so a key held down, or pressed
  again during the rerun, refers to a pair no longer displayed and writes nothing. The store's
  UNIQUE (pair, annotator, kind, version) is the last line of defence.
- Seconds spent = time from the pair appearing to the label, measured on the server.
- Speed: the judging area is a fragment, so a press reruns only it. The press costs one write
  transaction in the callback (the judgment and the next claim together) and one read-only
  transaction in the rerun (login check, progress from counters, the last hour's pace).
- Keys: the campaign's key map (:mod:`pooljudge.annotate.keymap`). The buttons' shortcuts are
  Streamlit's; the page's own keys (comment, legend, scrolling, Esc and Enter in the comment
  box) are :mod:`pooljudge.annotate.ui.keyboard`'s. The legend (``?``) is built from the buttons
  drawn
  (:func:`_nav_buttons` and the label buttons) plus the page keys, so it names exactly the keys
  bound. The comment box never keeps the keyboard: Esc leaves it, Enter keeps the comment and
  leaves it, and the next label key labels the pair with the comment.
- Layout: progress, then the buttons and the comment box, then topic and document side by side,
  the document scrolling in a frame that fills the rest of the screen (a laptop's 1280x720
  shows the buttons and the document's start without scrolling).

The page never receives runs, ranks, or (unless the campaign allows it) other people's labels.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd
import streamlit as st
from pooljudge.annotate import review_worker, store
from pooljudge.annotate.keymap import ACTIONS, KeyMap, label_action
from pooljudge.annotate.records import AnnotatorInfo, CampaignInfo, JudgmentRecord, PairView
from pooljudge.annotate.store import DuplicateWrite, TimeLeft, session_scope, time_left
from pooljudge.annotate.ui import (
    guidelines,
    judge_prefetch,
    judge_recent,
    judge_review,
    judge_stats,
    judge_suggestion,
    judge_terms,
    judge_verdict,
    keys,
)
from pooljudge.annotate.ui import session as login_state
from pooljudge.annotate.ui.faults import storage_faults_shown
from pooljudge.annotate.ui.key_gate import mount_gate
from pooljudge.annotate.ui.keyboard import mount_keyboard
from pooljudge.annotate.ui.passage import show_document
from pooljudge.annotate.ui.render import (
    caption_html,
    keys_html,
    label_line,
    legend_html,
    md_escape,
    text_html,
)
from sqlalchemy import Engine

from pooljudge.errors import InputError, StorageError

__all__ = ["DISPLAYED", "render"]

DISPLAYED = "pj_displayed"
LOG = logging.getLogger("pooljudge.judging")
NOT_STORED = ("Not saved: the database could not store it (a full disk or a lost connection). "
              "The document stays on screen: press the key again once it is back.")
COMMENT_PLACEHOLDER = "Comment (optional)"  # saved with the label; short: never cut


def render(engine: Engine, user: AnnotatorInfo) -> None:
    """Draw the judging page for ``user``: the campaign's guidelines in the sidebar, and the
    judging area as a fragment, so a label press reruns only that area (one write transaction
    in the callback, one read-only transaction in the rerun), not the app around it."""
    with session_scope(engine, readonly=True) as session:
        campaign = store.get_campaign(session, name=user.campaign_name)
        keymap = store.campaign_keymap(session, campaign=campaign.name)
    _sidebar(campaign)
    if not guidelines.gate(engine, user, campaign):  # guidelines first: no pair before
        return
    _judging(engine, user, campaign, keymap)


@st.fragment
def _judging(engine: Engine, user: AnnotatorInfo, campaign: CampaignInfo,
             keymap: KeyMap) -> None:
    """The judging area; a rerun of this fragment alone is outside the router's fault handler,
    so a lost database shows the same "Not saved" notice here (then a fresh run)."""
    with storage_faults_shown():
        _judging_area(engine, user, campaign, keymap)


def _judging_area(engine: Engine, user: AnnotatorInfo, campaign: CampaignInfo,
                  keymap: KeyMap) -> None:
    """The pair, its buttons and the progress (everything a press changes)."""
    state = st.session_state
    if state.get(keys.CURRENT) is None and not state.get(keys.BACK_STEPS):
        try:
            with session_scope(engine) as session:  # a run's only write, when a claim is due
                state[keys.CURRENT] = store.next_pair(session, annotator_id=user.id)
        except InputError:  # removed meanwhile: the full run shows the login message
            st.rerun(scope="app")
    with session_scope(engine, readonly=True) as session:
        still_in = store.login(session, credential=login_state.credential()) is not None
        view, earlier = _displayed_pair(session, user)
        progress = store.progress(session, campaign=campaign.name, annotator_id=user.id,
                                  pairs=_topic_pairs(engine, str(engine.url), campaign.name))
        remaining = int((progress["judgments_needed"] - progress["judgments_done"]).sum())
        left = time_left(session, campaign=campaign.name, remaining=remaining)
        stand = judge_stats.read_standing(session, user, campaign, progress)
        recent = judge_recent.read_recent(session, user, view, earlier is not None)
        suggestion = judge_suggestion.read(session, campaign, view)
        review = judge_review.read(session, view)
        others = (store.others_labels(session, annotator_id=user.id, pair_id=view.pair_id)
                  if campaign.show_others_labels and view is not None else [])
        coming = (None if view is None
                  else judge_prefetch.forecast(session, engine, user, campaign, view, earlier))
    if not still_in:
        st.rerun(scope="app")
    mount_keyboard(keymap)
    mount_gate(keymap, min_dwell_ms=campaign.min_dwell_ms, coming=coming,
               swapping=judge_prefetch.swapping_actions(campaign))
    _progress(progress, left, view)
    judge_stats.render_standing(stand, campaign)
    if view is None:
        _nothing_left(engine, user, campaign, keymap, recent)
        return
    if state.get(DISPLAYED) != view.pair_id:
        state[DISPLAYED] = view.pair_id
        state[keys.SHOWN_AT] = time.monotonic()
    if earlier is not None:
        name = md_escape(_label_name(campaign, earlier.label))
        said = (f"your label: {earlier.label} · {name}" if earlier.label is not None
                else f"your answer: {judge_verdict.CANNOT_JUDGE}")
        st.warning(f"You are changing an earlier judgment ({said}). "
                   "A new label is stored as a new version; the old one is kept.",
                   icon=":material/history:")
    judge_suggestion.show(campaign, view, suggestion)
    judge_review.show(view, review)
    state[keys.REVIEW_PAIR] = view.pair_id if review is not None else None
    _controls(engine, user, campaign, keymap, view, earlier, recent)
    _pair(engine, user, campaign, view)
    if others:
        st.html(caption_html("Other annotators: " + ", ".join(f"{a}: {lab}" for a, lab in others),
                             css_class="pj-others"))
    judge_recent.recent_strip(campaign, recent, int(state.get(keys.BACK_STEPS, 0)))


def _nothing_left(engine: Engine, user: AnnotatorInfo, campaign: CampaignInfo, keymap: KeyMap,
                  recent: judge_recent.Recent) -> None:
    """The end of the queue: a thank-you, the way back to the last judgment, and undo."""
    st.success("Nothing left to judge for you right now. Thank you!", icon=":material/done_all:")
    lines: list[tuple[tuple[str, ...], str]] = []
    if recent.items:
        back = _Nav(keys.back_key(0), "Back to my last judgment", keymap.shortcut("back"),
                    "back to my last judgment", _on_back)
        st.button(back.label, key=back.key, on_click=back.on_click, shortcut=back.shortcut)
        lines = [((back.shortcut,), back.hint)] if back.shortcut else []
        if flash := st.session_state.pop(keys.FLASH, None):
            st.html(caption_html(flash))
        lines += judge_recent.undo_button(engine, user, campaign, keymap, recent, None)
    st.html(legend_html(lines + keymap.page_lines(document=False),
                        idle_keys(lines, keymap, campaign)))
    judge_recent.recent_strip(campaign, recent, 0)


@st.cache_data(ttl=300, show_spinner=False)
def _topic_pairs(_engine: Engine, url: str, campaign: str) -> pd.DataFrame:
    """Pool size per topic of ``campaign`` at ``url`` (fixed once the campaign exists)."""
    with session_scope(_engine, readonly=True) as session:
        return store.topic_pairs(session, campaign=campaign)


def _displayed_pair(session, user: AnnotatorInfo) -> tuple[PairView | None, JudgmentRecord | None]:
    """The pair to show and, when it is an earlier one being changed, its latest judgment.

    The claimed pair was fetched by :func:`_judging` (or by the last write callback)."""
    state = st.session_state
    steps = int(state.get(keys.BACK_STEPS, 0))
    if steps > 0:
        earlier = store.history(session, annotator_id=user.id, limit=steps)
        if len(earlier) >= steps:
            return earlier[steps - 1]
        state[keys.BACK_STEPS] = 0
    return state.get(keys.CURRENT), None


def _pair(engine: Engine, user: AnnotatorInfo, campaign: CampaignInfo, view: PairView) -> None:
    """The topic card (with its highlight terms) and the document in its scrolling frame."""
    terms = judge_terms.terms_in_use(engine, user, campaign, view)
    topic, document = st.columns([1, 2], gap="medium")
    with topic, st.container(border=True):  # few elements: each one costs a browser render
        st.html(judge_prefetch.topic_part_html(view))
        judge_terms.terms_panel(engine, user, view, terms)
    with document:
        show_document(view, terms.all)


@dataclass(frozen=True)
class _Nav:
    """A navigation button: its key, label, shortcut, what the key hint says, its callback."""

    key: str
    label: str
    shortcut: str | None
    hint: str
    on_click: Callable[..., None]
    args: tuple = ()


def _nav_buttons(engine: Engine, user: AnnotatorInfo, keymap: KeyMap, view: PairView,
                 earlier: JudgmentRecord | None) -> tuple[_Nav, _Nav]:
    """Skip (new pair) or back to new pairs (earlier pair), then previous pair."""
    forward = (_Nav(keys.skip_key(view.pair_id), "Skip for now", keymap.shortcut("skip"),
                    "skip for now", _on_skip, (engine, user.id, view.pair_id))
               if earlier is None
               else _Nav(keys.FORWARD, "Back to new pairs", keymap.shortcut("forward"),
                         "back to new pairs", _on_forward))
    return forward, _Nav(keys.back_key(view.pair_id), "Previous pair", keymap.shortcut("back"),
                         "previous pair", _on_back)


def _controls(engine: Engine, user: AnnotatorInfo, campaign: CampaignInfo, keymap: KeyMap,
              view: PairView, earlier: JudgmentRecord | None,
              recent: judge_recent.Recent) -> None:
    """The label buttons, a row of their own (a label wraps, never cut); then skip and back,
    the comment box and the last action's message (or a key hint) with Undo; the legend of
    every key."""
    lines: list[tuple[tuple[str, ...], str]] = []
    version = judge_recent.next_version(earlier, recent)
    labels = campaign.scale.labels
    row = st.columns(len(labels) + campaign.cannot_judge, gap="small")  # + "I can't judge this"
    for column, label in zip(row, labels, strict=False):
        shortcut = keymap.shortcut(label_action(label.value))
        chosen = earlier is not None and earlier.label == label.value
        column.button(f"{label.value} · {md_escape(label.name)}",
                      key=keys.label_key(view.pair_id, label.value),
                      help=md_escape(label.description) or None,
                      type="primary" if chosen else "secondary", wrap=True,
                      shortcut=shortcut, width="stretch",
                      on_click=(judge_verdict.on_rationale_label
                                if label.value in campaign.rationale_labels else _on_label),
                      args=(engine, user.id, view, label.value, version))
        if shortcut is not None:
            lines.append(((shortcut,), label.name))
    if campaign.cannot_judge:
        lines += judge_verdict.cannot_judge_button(row[-1], keymap, view, version)
    *buttons, comment, note = st.columns([1, 1, 3, 2], gap="small", vertical_alignment="center")
    for column, nav in zip(buttons, _nav_buttons(engine, user, keymap, view, earlier),
                           strict=True):
        column.button(nav.label, key=nav.key, on_click=nav.on_click, args=nav.args,
                      shortcut=nav.shortcut, width="stretch")
        if nav.shortcut is not None:
            lines.append(((nav.shortcut,), nav.hint))
    comment.text_input("Comment", key=keys.comment_key(view.pair_id),
                       label_visibility="collapsed", placeholder=_placeholder(keymap))
    lines += judge_recent.note(note, engine, user, campaign, keymap, recent,
                               st.session_state.pop(keys.FLASH, None), keys_html(_hint(keymap)),
                               view.pair_id)
    judge_verdict.reason_box(engine, user.id, campaign, view, _on_label)
    st.html(legend_html(lines + keymap.page_lines(), idle_keys(lines, keymap, campaign)))


def idle_keys(lines: list[tuple[tuple[str, ...], str]], keymap: KeyMap,
              campaign: CampaignInfo) -> list[tuple[tuple[str, ...], str]]:
    """The legend's greyed lines: every button key of the page that does nothing right now
    (undo before any judgment, forward on new pairs, ...), so the list never changes shape."""
    shown = {key for keys, _ in lines for key in keys}
    actions = [*(label_action(lab.value) for lab in campaign.scale.labels),
               "skip", "forward", "back", "undo", *(("cannot_judge",) if campaign.cannot_judge
                                                    else ())]
    return [(keymap.bindings[a], _what(a, campaign)) for a in actions
            if keymap.bindings.get(a) and not shown & set(keymap.bindings[a])]


def _what(action: str, campaign: CampaignInfo) -> str:
    """What a button action does, as the legend says it."""
    for lab in campaign.scale.labels:
        if action == label_action(lab.value):
            return lab.name
    return ACTIONS[action]


def _placeholder(keymap: KeyMap) -> str:
    """The comment box's hint: what it is for, and the keys into and out of it."""
    focus = keymap.bindings["comment"]
    into = f"{focus[0]} to type, " if focus else ""
    return f"{COMMENT_PLACEHOLDER} · {into}Enter to keep"


def _hint(keymap: KeyMap) -> list[tuple[str, str]]:
    """The short key hint beside the comment box: scrolling, and the legend's key."""
    scroll = [k for a in ("page_down", "line_down", "line_up") for k in keymap.bindings[a][:1]]
    legend = keymap.bindings["legend"]
    return (([(" ".join(scroll), "scroll")] if scroll else [])
            + ([(legend[0], "all keys")] if legend else []))


def _on_label(engine: Engine, annotator_id: int, view: PairView, label: int | None,
              version: int, *, rationale: str | None = None, status: str = "label") -> None:
    """Store ``version`` of this judgment, unless the pair is no longer the one displayed.
    ``rationale`` and ``status`` (label None: "I can't judge this" and its reason) come from
    :mod:`pooljudge.annotate.ui.judge_verdict`'s reason box.

    A stale key press (the pair already left the screen) writes nothing; the store refuses a
    second write of the same version (DuplicateWrite) as a final guard.
    """
    state = st.session_state
    if not _is_displayed(view.pair_id, "label"):
        return
    state[DISPLAYED] = None
    seconds = max(time.monotonic() - float(state.get(keys.SHOWN_AT, time.monotonic())), 0.0)
    comment = (state.get(keys.comment_key(view.pair_id)) or "").strip() or None
    claimed = not state.get(keys.BACK_STEPS)  # the pair on screen is the claimed one
    try:
        with session_scope(engine) as session:  # judgment and next claim: one transaction
            store.record_judgment(session, annotator_id=annotator_id, pair_id=view.pair_id,
                                  label=label, seconds=round(seconds, 3), position=view.position,
                                  comment=comment, expected_version=version,
                                  rationale=rationale, status=status,
                                  suggested=judge_suggestion.shown(view.pair_id),
                                  current=claimed)
            following = (store.next_pair(session, annotator_id=annotator_id) if claimed
                         else state.get(keys.CURRENT))
    except DuplicateWrite as exc:  # e.g. written meanwhile in another tab of this annotator
        if claimed:  # the pair on screen is done: show the annotator's live claim
            state[keys.CURRENT] = None
        state[keys.FLASH] = f"Not saved: {exc}"
        return
    except InputError as exc:  # e.g. the lease ran out and others took the pair meanwhile
        if isinstance(exc, store.NotCurrent):  # counted in the log, never stored elsewhere
            LOG.warning("ignored a label for pair %s: %s", view.pair_id, exc)
        state[keys.CURRENT] = None
        state[keys.FLASH] = f"Not saved: {exc}"
        return
    except StorageError:  # disk full, connection lost: the pair stays, the key can be pressed
        state[DISPLAYED] = view.pair_id  # again (the seconds go on counting from its showing)
        state[keys.FLASH] = not_stored(view)
        return
    if state.get(keys.REVIEW_PAIR) == view.pair_id:  # a review topic moves on, in the
        review_worker.submit(engine, pair_id=view.pair_id)  # background (never delays)
    state[keys.BACK_STEPS] = 0
    state[keys.CURRENT] = following
    state[keys.FLASH] = (f"Saved label {label} for the previous document." if label is not None
                         else "Saved \"I can't judge this\" for the previous document.")


def not_stored(view: PairView) -> str:
    """The message of a write that failed, naming the pair put back on screen (the pane may
    already have shown the next one: it shows this pair again)."""
    return NOT_STORED.replace("Not saved:", f"Not saved (topic {view.topic_id}, document "
                              f"{view.doc_id}):", 1)


def _on_skip(engine: Engine, annotator_id: int, pair_id: int) -> None:
    state = st.session_state
    if not _is_displayed(pair_id, "skip"):
        return
    state[DISPLAYED] = None
    try:
        with session_scope(engine) as session:
            store.skip_pair(session, annotator_id=annotator_id, pair_id=pair_id)
            state[keys.CURRENT] = store.next_pair(session, annotator_id=annotator_id)
    except InputError:  # the claim had already lapsed: the next run fetches a fresh pair
        state[keys.CURRENT] = None
    except StorageError:
        state[DISPLAYED] = pair_id
        state[keys.FLASH] = NOT_STORED.replace("Not saved:", "Not skipped:", 1)


def _is_displayed(pair_id: int, action: str) -> bool:
    """Whether ``pair_id`` is the pair on screen; otherwise the action is ignored (nothing is
    written) and logged, so a press that reached the server for a pair no longer shown is
    counted, never stored for another pair."""
    if st.session_state.get(DISPLAYED) == pair_id:
        return True
    LOG.warning("ignored a %s for pair %s: not the pair on screen (shown: %s)", action, pair_id,
                st.session_state.get(DISPLAYED))
    return False


def _on_back() -> None:
    state = st.session_state
    state[keys.BACK_STEPS] = int(state.get(keys.BACK_STEPS, 0)) + 1


def _on_forward() -> None:
    st.session_state[keys.BACK_STEPS] = 0


def _label_name(campaign: CampaignInfo, value: int) -> str:
    return next((lab.name for lab in campaign.scale.labels if lab.value == value), str(value))


def _progress(progress: pd.DataFrame, left: TimeLeft, view: PairView | None) -> None:
    """Topic and campaign progress bars, the person's count and the campaign's time left."""
    done = int(progress["judgments_done"].sum()) if len(progress) else 0
    needed = int(progress["judgments_needed"].sum()) if len(progress) else 0
    topic, overall, mine_column = st.columns([1, 1, 1.5], gap="medium",
                                             vertical_alignment="bottom")
    if view is not None:
        row = progress.loc[progress["topic"] == view.topic_id]
        t_done = int(row["judgments_done"].sum())
        t_needed = int(row["judgments_needed"].sum())
        topic.progress(t_done / t_needed if t_needed else 1.0,
                       text=f"This topic: {t_done} of {t_needed} judgments")
    overall.progress(done / needed if needed else 1.0,
                     text=f"Campaign: {done} of {needed} judgments")
    mine = int(progress["annotator_done"].sum()) if "annotator_done" in progress else 0
    pairs = "pair" if mine == 1 else "pairs"
    mine_column.caption(f"You judged {mine} {pairs}. {judge_stats.time_left_text(left)}.")


def _sidebar(campaign: CampaignInfo) -> None:
    with st.sidebar:
        with st.expander("Guidelines", expanded=False):
            st.html(text_html(campaign.guidelines or "No guidelines were given."))
        with st.expander("Labels", expanded=False):
            for lab in campaign.scale.labels:
                st.html(text_html(label_line(lab.value, lab.name, lab.description)))
