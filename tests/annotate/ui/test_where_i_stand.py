"""AppTest (no browser): "Where I stand" on the judging page, the annotators' statistics on the
Overview, and one time-left sentence on both pages.

Campaign ``c``: overlap 2, topic 7 (d1, d2, d3) and topic 8 (d4); ``ann`` and ``bob`` judge,
``boss`` is the admin. Label names carry HTML and Markdown, which must stay literal text.
"""

from __future__ import annotations

import pandas as pd
import pytest
from pooljudge.annotate import store
from pooljudge.annotate.records import Label, LabelScale
from pooljudge.annotate.store import PACE, TimeLeft, session_scope, time_left
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui.judge_stats import STANDING_CLASS, time_left_text
from streamlit.testing.v1 import AppTest

DOCS = {"d1": "7", "d2": "7", "d3": "7", "d4": "8"}
SCALE = LabelScale((Label(0, "<b>No</b>"), Label(1, "[Yes](http://evil.example)")))


@pytest.fixture
def tokens(app_db, collection) -> dict[str, str]:
    with session_scope(app_db) as session:
        store.create_campaign(session, name="c", scale=SCALE, overlap=2,
                              **collection(DOCS, "text of"))
        return {n: store.add_annotator(session, campaign="c", name=n, role=r)
                for n, r in (("ann", "annotator"), ("bob", "annotator"), ("boss", "admin"))}


def _import(engine, rows: list[tuple]) -> None:
    """(annotator, doc, label, ISO time, seconds) rows, as judged in the page."""
    frame = pd.DataFrame(rows, columns=["annotator", "doc", "label", "time", "seconds"])
    frame = frame.astype(str).assign(topic=frame["doc"].map(DOCS))
    with session_scope(engine) as session:
        store.import_judgments(session, campaign="c", frame=frame, source="human")


def _panel(at: AppTest) -> str:
    (found,) = [h.value for h in at.main.get("html") if STANDING_CLASS in h.value]
    return found


def _press(at: AppTest, value: int) -> AppTest:
    pair = at.session_state[keys.CURRENT].pair_id
    return at.button(key=keys.label_key(pair, value)).click().run()


def test_the_panel_follows_each_judgment(app_db, tokens, open_page, inert) -> None:
    at = open_page(tokens["ann"])
    shown = inert.html(_panel(at))
    assert shown.text == "Where I stand: 0 judged today · 4 pairs left for you"
    _press(at, 1)
    _press(at, 0)
    shown = inert.html(_panel(at))
    assert shown.elements == ()                          # label names stay text
    head, *pieces = shown.text.split(" · ")
    assert head == "Where I stand: 2 judged today"
    assert pieces[0].startswith("median ") and pieces[0].endswith(" s per pair")
    assert pieces[1:] == ["your last 2 pairs: <b>No</b> 50%, [Yes](http://evil.example) 50%",
                          "2 pairs left for you"]


def test_the_panel_counts_only_todays_latest_labels(app_db, tokens, open_page, inert) -> None:
    _import(app_db, [("ann", "d1", 1, "2020-01-01T10:00:00Z", 4),    # another day
                     ("ann", "d2", 1, pd.Timestamp.now("UTC").isoformat(), 8)])
    at = open_page(tokens["ann"])
    assert inert.html(_panel(at)).text == (
        "Where I stand: 1 judged today · median 6.0 s per pair · "
        "your last 2 pairs: <b>No</b> 0%, [Yes](http://evil.example) 100% · 2 pairs left for you")


def test_the_judge_page_and_the_overview_show_the_same_time_left(app_db, tokens,
                                                                 open_page) -> None:
    _import(app_db, [("bob", "d1", 1, "2026-01-01T10:00:00Z", 5),
                     ("bob", "d2", 0, "2026-01-01T10:30:00Z", 5),
                     ("ann", "d1", 1, "2026-01-01T10:50:00Z", 5)])
    with session_scope(app_db, readonly=True) as session:
        left = time_left(session, campaign="c", remaining=8 - 3)
    assert (left.last_hour, left.hours) == (3, 5 / 3)    # 5 left at 3 per hour
    sentence = f"Time left for the campaign {PACE}: 1 h 40 min."
    judge = open_page(tokens["ann"])
    (mine,) = [c.value for c in judge.caption if PACE in c.value]
    overview = open_page(tokens["boss"], "overview")
    (theirs,) = [c.value for c in overview.caption if PACE in c.value]
    assert mine == f"You judged 1 pair. {sentence}"
    assert theirs == sentence


def test_the_overview_shows_each_annotators_statistics(app_db, tokens, open_page) -> None:
    _import(app_db, [("ann", d, lab, f"2026-01-01T10:0{i}:00Z", 2 * i + 2)
                     for i, (d, lab) in enumerate([("d1", 1), ("d2", 0), ("d3", 1)])]
            + [("bob", d, lab, "2026-01-01T11:00:00Z", 9) for d, lab in [("d1", 1), ("d2", 1)]])
    at = open_page(tokens["boss"], "overview")
    assert "Annotators" in [s.value for s in at.subheader]
    summary = next(d.value for d in at.dataframe if "Median seconds" in d.value.columns)
    rows = summary.set_index("Annotator")
    assert rows["Judgments"].to_dict() == {"ann": 3, "bob": 2, "boss": 0}
    assert rows["Median seconds"].astype(float).to_dict() == pytest.approx(
        {"ann": 4.0, "bob": 9.0, "boss": float("nan")}, nan_ok=True)   # shown as a dash
    assert rows["Pairs co-judged"].to_dict() == {"ann": 2, "bob": 2, "boss": 0}
    assert rows["Pairs left"].to_dict() == {"ann": 1, "bob": 2, "boss": 2}
    shares = next(d.value for d in at.dataframe if "0 · <b>No</b>" in d.value.columns)
    assert shares.set_index("Annotator")["1 · [Yes](http://evil.example)"].to_dict() == \
        pytest.approx({"ann": 2 / 3, "bob": 1.0, "boss": 0.0})


@pytest.mark.parametrize(("left", "text"), [
    (TimeLeft(remaining=0, last_hour=0), "The campaign is complete"),
    (TimeLeft(remaining=0, last_hour=7), "The campaign is complete"),
    (TimeLeft(remaining=5, last_hour=0), f"Time left for the campaign {PACE}: unknown yet"),
    (TimeLeft(remaining=3, last_hour=6), f"Time left for the campaign {PACE}: 30 min"),
])
def test_the_time_left_says_when_the_campaign_is_complete(left, text) -> None:
    assert time_left_text(left) == text
