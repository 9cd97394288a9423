"""AppTest (no browser): the judging page's logic beyond a plain label press.

Campaign ``c``: a custom binary scale with descriptions, guidelines, overlap 2, order
``topic`` (so the queue is d1, d2, d3 of topic 7, then d4, d5 of topic 8), annotators ``ann``
and ``other``. Names from uploads that look like Markdown must render literally.
"""

from __future__ import annotations

import functools
import re
import time

import pandas as pd
import pytest
import sqlalchemy as sa
from markdown_it import MarkdownIt
from pooljudge.annotate import store
from pooljudge.annotate.records import Label, LabelScale
from pooljudge.annotate.store import PACE, session_scope
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui.render import JOINER, md_escape
from streamlit.testing.v1 import AppTest

DOCS = {"d1": "7", "d2": "7", "d3": "7", "d4": "8", "d5": "8"}
SCALE = LabelScale((Label(0, "Off topic", "nothing about the topic"),
                    Label(1, "On topic", "answers the narrative")))
GUIDELINES = "Judge the document, not the site.\nWhen unsure: <b>skip</b>."
EVIL = "[x](http://evil) ![i](http://evil/i.png)"


@pytest.fixture
def db(app_db):
    return app_db


@pytest.fixture
def make(app_db, collection):
    """``make(name="c", …)``: :func:`_campaign` on the app's database and this collection."""
    return functools.partial(_campaign, app_db, collection(DOCS, "text of"))


def _campaign(engine, documents: dict, name: str = "c", *, scale: LabelScale = SCALE,
              show_others: bool = False, people: tuple[str, ...] = ("ann", "other"),
              judged: list[tuple] = ()) -> dict[str, str]:
    """Create campaign ``name``; import ``judged`` rows (annotator, doc, label[, seconds]);
    the login token of each person."""
    with session_scope(engine) as session:
        store.create_campaign(session, name=name, scale=scale, overlap=2, order="topic",
                              guidelines=GUIDELINES, show_others_labels=show_others,
                              **documents)
        tokens = {n: store.add_annotator(session, campaign=name, name=n) for n in people}
        if judged:
            frame = pd.DataFrame([row[:3] for row in judged], columns=["annotator", "doc", "label"])
            frame["topic"] = frame["doc"].map(DOCS)
            frame["seconds"] = [str(row[3]) if len(row) > 3 else "" for row in judged]
            store.import_judgments(session, campaign=name, frame=frame, source="human")
    return tokens


def _doc(at: AppTest) -> str:
    return at.session_state[keys.CURRENT].doc_id


def _shown_doc(at: AppTest) -> str:
    """The document id in the document frame's caption (what is on screen, not in state)."""
    captions = [h.value for h in at.get("html") if "pj-doc-id" in h.value]
    assert len(captions) == 1, captions
    return captions[0].split("Document ", 1)[1].split("<", 1)[0]


def _judgments(engine, campaign: str = "c", latest_only: bool = True) -> pd.DataFrame:
    with session_scope(engine, readonly=True) as session:
        return store.judgments_frame(session, campaign=campaign, latest_only=latest_only)


def _pair_id(engine, doc: str) -> int:
    with session_scope(engine, readonly=True) as session:
        return store.pair_by_key(session, campaign="c", topic=DOCS[doc], doc=doc).pair_id


def _press_label(at: AppTest, value: int) -> AppTest:
    pair = at.session_state[keys.CURRENT].pair_id
    return at.button(key=keys.label_key(pair, value)).click().run()


def _literal(markdown: str, text: str) -> None:
    """``markdown`` holds ``text`` escaped, and renders it as plain text: no link, no image."""
    assert md_escape(text) in markdown
    rendered = MarkdownIt("commonmark").render(markdown).replace(JOINER, "")
    assert "<a " not in rendered and "<img" not in rendered
    assert text in rendered


def _html_literal(markup: str, text: str, inert) -> None:
    """``markup`` shows ``text`` and has no tag of its own but ``div``, ``b``, ``mark``."""
    shown = inert.html(markup)
    assert shown.elements == () and text in shown.text


# --- skip, comment, going back ------------------------------------------------------------------

def test_skip_for_now_shows_another_pair_and_brings_the_skipped_one_back_last(
        db, make, open_page) -> None:
    at = open_page(make()["ann"])
    assert _doc(at) == _shown_doc(at) == "d1"
    at.button(key=keys.skip_key(at.session_state[keys.CURRENT].pair_id)).click().run()
    assert _doc(at) == _shown_doc(at) == "d2"
    assert _judgments(db).empty
    with session_scope(db, readonly=True) as session:
        skipped = session.execute(sa.text("SELECT pair_id FROM skip")).scalars().all()
    assert skipped == [_pair_id(db, "d1")]
    shown = []
    for _ in range(4):
        shown.append(_doc(at))
        _press_label(at, 1)
    assert shown == ["d2", "d3", "d4", "d5"]
    assert _doc(at) == "d1" and at.session_state[keys.CURRENT].pair_id == skipped[0]
    assert sorted(_judgments(db)["doc"]) == ["d2", "d3", "d4", "d5"]


def test_a_comment_typed_before_the_label_is_stored_with_the_judgment(db, make, open_page) -> None:
    at = open_page(make()["ann"])
    pair = at.session_state[keys.CURRENT].pair_id
    at.text_input(key=keys.comment_key(pair)).input("  relevant only for paragraph 2 ")
    at.button(key=keys.label_key(pair, 1)).click().run()
    _press_label(at, 0)                                  # d2, without a comment
    rows = _judgments(db)
    assert rows["doc"].tolist() == ["d1", "d2"]
    assert rows["comment"].iat[0] == "relevant only for paragraph 2"
    assert pd.isna(rows["comment"].iat[1])


def test_going_back_then_back_to_new_pairs_returns_to_the_claimed_pair(db, make, open_page) -> None:
    at = open_page(make()["ann"])
    _press_label(at, 1)                                  # d1 -> 1; d2 is claimed now
    claimed = at.session_state[keys.CURRENT]
    at.button(key=keys.back_key(claimed.pair_id)).click().run()
    assert _shown_doc(at) == "d1" and at.session_state[keys.BACK_STEPS] == 1
    assert "changing an earlier judgment (your label: 1 · On topic)" in at.warning[0].value
    before = _judgments(db, latest_only=False)
    d1 = _pair_id(db, "d1")
    assert at.button(key=keys.label_key(d1, 1)).proto.type == "primary"
    assert at.button(key=keys.label_key(d1, 0)).proto.type == "secondary"
    assert not [b for b in at.button if b.key == keys.skip_key(d1)]
    at.button(key=keys.FORWARD).click().run()
    assert at.session_state[keys.BACK_STEPS] == 0 and not at.warning
    assert _shown_doc(at) == "d2" and at.session_state[keys.CURRENT] == claimed
    assert at.button(key=keys.skip_key(claimed.pair_id)).label == "Skip for now"
    assert _judgments(db, latest_only=False).equals(before)    # nothing written meanwhile


def test_a_label_given_to_an_earlier_pair_is_a_new_version(db, make, open_page) -> None:
    at = open_page(make()["ann"])
    _press_label(at, 1)
    claimed = at.session_state[keys.CURRENT]
    at.button(key=keys.back_key(claimed.pair_id)).click().run()
    at.button(key=keys.label_key(_pair_id(db, "d1"), 0)).click().run()
    every = _judgments(db, latest_only=False)
    assert every[["doc", "label", "version"]].to_numpy().tolist() == [["d1", 1, 1],
                                                                      ["d1", 0, 2]]
    assert at.session_state[keys.BACK_STEPS] == 0 and _shown_doc(at) == "d2"
    assert at.session_state[keys.CURRENT] == claimed



# --- what the page shows ------------------------------------------------------------------------

def test_guidelines_and_label_descriptions_are_shown(make, open_page) -> None:
    at = open_page(make()["ann"])
    guidelines, labels = at.sidebar.expander
    assert (guidelines.label, labels.label) == ("Guidelines", "Labels")
    assert [h.value for h in guidelines.get("html")] == [
        '<div class="pj-text">Judge the document, not the site.\n'
        "When unsure: &lt;b&gt;skip&lt;/b&gt;.</div>"]
    assert [h.value for h in labels.get("html")] == [
        '<div class="pj-text">0 · Off topic: nothing about the topic</div>',
        '<div class="pj-text">1 · On topic: answers the narrative</div>']
    pair = at.session_state[keys.CURRENT].pair_id
    off, on = at.button(key=keys.label_key(pair, 0)), at.button(key=keys.label_key(pair, 1))
    assert (off.label, off.help) == ("0 · Off topic", "nothing about the topic")
    assert (on.label, on.help) == ("1 · On topic", "answers the narrative")


def test_progress_and_time_left_follow_the_store(db, make, open_page) -> None:
    # ann judged topic 7 (600, 900 and 1200 s: median 900 s); other judged d1 and d4.
    tokens = make(judged=[("ann", "d1", 1, 600), ("ann", "d2", 0, 900),
                                   ("ann", "d3", 1, 1200), ("other", "d1", 1),
                                   ("other", "d4", 0)])
    at = open_page(tokens["ann"])
    assert _doc(at) == "d4"                              # topic 8 is what is left for ann
    with session_scope(db, readonly=True) as session:
        me = store.annotator_id(session, campaign="c", name="ann")
        progress = store.progress(session, campaign="c", annotator_id=me)
    by_topic = progress.set_index("topic")
    assert by_topic.loc["8", ["judgments_done", "judgments_needed"]].tolist() == [1, 4]
    assert by_topic.loc["7", ["judgments_done", "judgments_needed"]].tolist() == [4, 6]
    assert int(progress["annotator_done"].sum()) == 3
    topic, overall = at.get("progress")
    assert (topic.value, topic.proto.text) == (25, "This topic: 1 of 4 judgments")
    assert (overall.value, overall.proto.text) == (50, "Campaign: 5 of 10 judgments")
    # 10 needed - 5 done = 5 judgments, at 5 first judgments (all imported now) in the last hour
    assert (f"You judged 3 pairs. Time left for the campaign {PACE}: 1 h 00 min."
            in [c.value for c in at.caption])


def test_before_any_judgment_the_time_left_is_unknown(make, open_page) -> None:
    at = open_page(make()["ann"])
    assert (f"You judged 0 pairs. Time left for the campaign {PACE}: unknown yet."
            in [c.value for c in at.caption])


@pytest.mark.parametrize("show_others", [False, True])
def test_others_labels_only_when_the_campaign_allows_it(show_others, make, open_page) -> None:
    tokens = make(show_others=show_others, judged=[("other", "d1", 0)])
    at = open_page(tokens["ann"])
    assert _doc(at) == "d1"
    others = [h.value for h in at.get("html") if "Other annotators" in h.value]
    assert others == (['<div class="pj-caption pj-others">Other annotators: other: 0</div>']
                      if show_others else [])
    page = " ".join([*(h.value for h in at.get("html")), *(c.value for c in at.caption)])
    assert ("other: 0" in page) == show_others


def test_the_seconds_spent_are_measured_from_the_pair_appearing(db, make, open_page) -> None:
    at = open_page(make()["ann"])
    time.sleep(0.3)
    started = time.monotonic()
    _press_label(at, 1)
    elapsed = time.monotonic() - started
    rows = _judgments(db)
    assert rows["doc"].tolist() == ["d1"] and rows["position"].tolist() == [1]
    assert 0.3 <= rows["seconds"].iat[0] <= 0.3 + elapsed + 5


# --- names from uploads are never Markdown ------------------------------------------------------

def test_label_and_annotator_names_render_literally(make, open_page, inert) -> None:
    scale = LabelScale((Label(0, f"no {EVIL}", f"see {EVIL}"), Label(1, "yes")))
    name = f"c {EVIL}"
    tokens = make(name, scale=scale, show_others=True, people=(f"me {EVIL}", EVIL),
                       judged=[(EVIL, "d1", 0)])
    at = open_page(tokens[f"me {EVIL}"])
    (sidebar,) = [h.value for h in at.sidebar.get("html") if "pj-identity" in h.value]
    _html_literal(sidebar, f"me {EVIL}", inert)
    _html_literal(sidebar, name, inert)
    pair = at.session_state[keys.CURRENT].pair_id
    button = at.button(key=keys.label_key(pair, 0))
    _literal(button.label, f"no {EVIL}")
    _literal(button.help, f"see {EVIL}")
    (legend,) = [h.value for h in at.get("html") if 'class="pj-legend"' in h.value]
    _html_literal(legend, f"no {EVIL}", inert)
    (others,) = [h.value for h in at.get("html") if "pj-others" in h.value]
    _html_literal(others, EVIL, inert)
    assert others.endswith(": 0</div>")
    button.click().run()                                 # d1 -> 0, then back to it
    at.button(key=keys.back_key(at.session_state[keys.CURRENT].pair_id)).click().run()
    _literal(at.warning[0].value, f"no {EVIL}")


# --- the legend names exactly the keys bound ----------------------------------------------------

# The page's own keys at the defaults, as the judging page's specification lists them.
PAGE_KEYS = {"/", "Space", "PageDown", "PageUp", "j", "k", "Down", "Up", "Home", "End", "?",
             "Esc", "Enter"}


def _legend(at: AppTest) -> list[tuple[tuple[str, ...], str]]:
    """(keys, what) lines of the key legend."""
    (legend,) = [h.value for h in at.get("html") if 'class="pj-legend"' in h.value]
    rows = re.findall(r'<div class="pj-legend-row">(.*?)</div>', legend)
    return [(tuple(re.findall(r"<b>(.*?)</b>", row)), row.rsplit("</b> ", 1)[1]) for row in rows]


def _idle(at: AppTest) -> list[str]:
    """Keys of the legend's greyed lines (they do nothing in this state)."""
    (legend,) = [h.value for h in at.get("html") if 'class="pj-legend"' in h.value]
    rows = re.findall(r'<div class="pj-legend-row pj-legend-idle">(.*?)</div>', legend)
    return [key for row in rows for key in re.findall(r"<b>(.*?)</b>", row)]


def _bound(at: AppTest) -> list[str]:
    return [b.proto.shortcut for b in at.button if b.proto.shortcut]


def test_the_legend_lists_exactly_the_keys_bound_in_each_state(make, open_page) -> None:
    at = open_page(make()["ann"])
    legends = {"new pair": _legend(at)}
    buttons = legends["new pair"][:4]
    assert [k for (k,), _ in buttons] == _bound(at) == ["0", "1", "s", "b"]
    assert {k for keys_, _ in legends["new pair"][4:] for k in keys_} == PAGE_KEYS
    _press_label(at, 1)
    at.button(key=keys.back_key(at.session_state[keys.CURRENT].pair_id)).click().run()
    legends["earlier pair"] = _legend(at)                # after b: n replaces s; u to undo
    assert [k for (k,), _ in legends["earlier pair"][:5]] == _bound(at) == [
        "0", "1", "n", "b", "u"]
    at.button(key=keys.FORWARD).click().run()
    for _ in range(4):
        _press_label(at, 0)
    assert at.session_state[keys.CURRENT] is None        # nothing left: b and the legend's ?
    legends["done"] = _legend(at)
    assert _bound(at) == ["b", "u"]
    assert buttons == [(("0",), "Off topic"), (("1",), "On topic"), (("s",), "skip for now"),
                       (("b",), "previous pair")]
    assert legends["earlier pair"][2] == (("n",), "back to new pairs")
    assert legends["earlier pair"][4] == (("u",), "undo my last judgment")
    assert legends["done"] == [(("b",), "back to my last judgment"),
                               (("u",), "undo my last judgment"),
                               (("?",), "show or hide this list of keys")]


def test_the_legend_shows_every_button_key_in_every_state_greyed_where_idle(make,
                                                                           open_page) -> None:
    """The list never changes shape: a key that does nothing now is listed, greyed."""
    every = {"0", "1", "s", "n", "b", "u"}
    at = open_page(make()["ann"])
    assert set(_idle(at)) == {"n", "u"} and set(_bound(at)) | set(_idle(at)) == every
    _press_label(at, 1)
    at.button(key=keys.back_key(at.session_state[keys.CURRENT].pair_id)).click().run()
    assert set(_idle(at)) == {"s"} and set(_bound(at)) | set(_idle(at)) == every
    at.button(key=keys.FORWARD).click().run()
    for _ in range(4):
        _press_label(at, 0)
    assert set(_idle(at)) == {"0", "1", "s", "n"} and set(_bound(at)) | set(_idle(at)) == every


@pytest.mark.parametrize("action", ["label", "skip"])
def test_a_database_fault_keeps_the_pair_and_says_nothing_was_stored(db, make, open_page,
                                                                      monkeypatch, action):
    from pooljudge.annotate.ui.judge import NOT_STORED

    from pooljudge.errors import StorageError

    at = open_page(make()["ann"])
    pair = at.session_state[keys.CURRENT].pair_id
    name = "record_judgment" if action == "label" else "skip_pair"
    real = getattr(store, name)

    def full_disk(*args, **kwargs):
        raise StorageError("sqlite:///x.db: database or disk is full")

    monkeypatch.setattr(store, name, full_disk)
    button = keys.label_key(pair, 1) if action == "label" else keys.skip_key(pair)
    at.button(key=button).click().run()
    assert not at.exception
    assert _doc(at) == _shown_doc(at) == "d1"
    said = (f"Not saved (topic {at.session_state[keys.CURRENT].topic_id}, document d1):"
            if action == "label" else "Not skipped:")
    assert any(NOT_STORED.replace("Not saved:", said, 1) in h.value for h in at.get("html"))
    assert _judgments(db).empty
    monkeypatch.setattr(store, name, real)  # the disk has room again: the same key works
    at.button(key=button).click().run()
    assert _doc(at) == "d2"
    assert _judgments(db)["doc"].tolist() == (["d1"] if action == "label" else [])


# --- undo and the recent judgments --------------------------------------------------------------

def _press_undo(at: AppTest) -> AppTest:
    from pooljudge.annotate.ui.judge_recent import undo_key

    current = at.session_state[keys.CURRENT]
    return at.button(key=undo_key(current.pair_id if current else None)).click().run()


def test_undo_withdraws_the_last_label_and_shows_its_pair_again(db, make, open_page) -> None:
    at = open_page(make()["ann"])
    assert not [b for b in at.button if b.key.startswith("undo_")]  # nothing to undo yet
    _press_label(at, 1)                                  # d1 -> 1; d2 is claimed now
    _press_undo(at)
    assert _doc(at) == _shown_doc(at) == "d1" and at.session_state[keys.BACK_STEPS] == 0
    notes = " ".join(h.value for h in at.get("html"))
    assert "Withdrawn: 7 · d1 · 1 · On topic. It is shown again: label it anew." in notes
    every = _judgments(db, latest_only=False)
    assert every[["doc", "version", "status"]].values.tolist() == [
        ["d1", 1, "label"], ["d1", 2, "withdrawn"]]
    assert _judgments(db).empty                          # as if never judged
    _press_label(at, 0)                                  # labelled again: version 3
    assert _judgments(db)[["doc", "label", "version"]].values.tolist() == [["d1", 0, 3]]
    assert _doc(at) == "d2"                              # the next pair, claimed again


def test_undo_walks_back_and_works_after_the_last_pair(db, make, open_page) -> None:
    at = open_page(make()["ann"])
    for _ in range(5):
        _press_label(at, 1)
    assert at.session_state[keys.CURRENT] is None        # nothing left
    _press_undo(at)
    assert _doc(at) == "d5"
    _press_undo(at)
    assert _doc(at) == "d4"                              # one further back; d5 waits again
    withdrawn = _judgments(db, latest_only=False).query("status == 'withdrawn'")
    assert withdrawn["doc"].tolist() == ["d5", "d4"]
    for _ in range(2):
        _press_label(at, 0)
    assert at.session_state[keys.CURRENT] is None
    assert sorted(_judgments(db)["doc"]) == ["d1", "d2", "d3", "d4", "d5"]


def test_the_recent_strip_lists_the_last_labels_and_jumps_to_one(db, make, open_page) -> None:
    from pooljudge.annotate.ui.judge_recent import RECENT_STRIP

    at = open_page(make()["ann"])
    for label in (1, 0, 1):
        _press_label(at, label)
    strip = at.button_group(key=RECENT_STRIP)
    assert [o.replace(JOINER, "") for o in strip.options] == [
        "7 · d3 · 1 · On topic", "7 · d2 · 0 · Off topic", "7 · d1 · 1 · On topic"]
    strip.set_value(2).run()                             # the oldest: d1
    assert at.session_state[keys.BACK_STEPS] == 3 and _shown_doc(at) == "d1"
    assert "changing an earlier judgment (your label: 1 · On topic)" in at.warning[0].value
    assert at.button_group(key=RECENT_STRIP).value is None  # a chip is an action
    at.button(key=keys.label_key(_pair_id(db, "d1"), 0)).click().run()
    assert _judgments(db).set_index("doc").loc["d1", ["label", "version"]].tolist() == [0, 2]


def test_only_a_review_pairs_label_wakes_the_review_thread(open_page, make, app_db,
                                                            monkeypatch):
    """A label of a pooled campaign submits nothing to the background thread (no read per
    label); a label of a review topic submits its pair."""
    from pooljudge.annotate import review_worker
    from pooljudge.annotate.campaigns import CampaignSettings
    from pooljudge.annotate.review import create_review

    from tests.annotate.store.test_review_store import collection as review_collection

    submitted: list[int] = []
    monkeypatch.setattr(review_worker, "submit", lambda engine, *, pair_id: submitted.append(
        pair_id))
    at = open_page(make()["ann"])
    _press_label(at, 1)
    assert submitted == []
    topics, documents = review_collection()
    create_review(app_db, CampaignSettings(name="rev", scale=SCALE), topics=topics,
                  documents=documents, rule="knee", recall=0.9, alpha=0.1)
    with session_scope(app_db) as session:
        token = store.add_annotator(session, campaign="rev", name="rev-ann")
    at = open_page(token)
    pair = at.session_state[keys.CURRENT].pair_id
    _press_label(at, 1)
    assert submitted == [pair]
