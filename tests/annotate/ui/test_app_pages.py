"""AppTest (no browser, no JavaScript): login by token, the judging page's logic, roles."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import sqlalchemy as sa
from pooljudge.annotate import store
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import open_engine, session_scope
from pooljudge.annotate.ui import keys
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[3] / "annotate" / "app.py")


@pytest.fixture
def campaign(tmp_path, monkeypatch) -> dict[str, str]:
    url = f"sqlite:///{tmp_path / 'app.db'}"
    monkeypatch.setenv("POOLJUDGE_DB", url)
    engine = open_engine(url)
    docs = pd.DataFrame({"id": ["d1", "d2"], "title": ["One", "Two"],
                         "text": ["<b>first</b> widgets", "second"]})
    topics = pd.DataFrame({"id": ["7"], "title": ["widgets"], "description": "d",
                           "narrative": "n"})
    pool = pd.DataFrame({"topic": "7", "doc": ["d1", "d2"], "order": [1, 2],
                         "best_rank": [1, 2], "runs": "secret-run"})
    with session_scope(engine) as session:
        store.create_campaign(session, name="c", scale=LabelScale.binary(), topics=topics,
                              documents=docs, pool=pool)
        tokens = {n: store.add_annotator(session, campaign="c", name=n, role=r)
                  for n, r in (("ann", "annotator"), ("boss", "admin"))}
    tokens["engine"] = engine
    return tokens


def _run(token: str | None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    if token is not None:
        at.query_params["token"] = token
    return at.run()


def test_wrong_token_shows_only_the_message(campaign) -> None:
    at = _run("nope")
    assert [e.value for e in at.error] and "not valid" in at.error[0].value
    assert not at.button


def test_no_token_asks_for_the_link(campaign) -> None:
    at = _run(None)
    assert "login link" in at.info[0].value and not at.button


def test_label_button_records_one_judgment_and_moves_on(campaign) -> None:
    at = _run(campaign["ann"])
    pair = at.session_state[keys.CURRENT].pair_id
    html = " ".join(str(h.proto.body) for h in at.get("html"))
    assert "&lt;b&gt;first&lt;/b&gt;" in html and "secret-run" not in html
    at.button(key=keys.label_key(pair, 1)).click().run()
    assert at.session_state[keys.CURRENT].pair_id != pair
    with session_scope(campaign["engine"]) as session:
        frame = store.judgments_frame(session, campaign="c")
    assert frame[["doc", "label", "version"]].to_numpy().tolist() == [["d1", 1, 1]]


def test_label_press_claims_the_next_pair_in_the_same_transaction(campaign) -> None:
    at = _run(campaign["ann"])
    first = at.session_state[keys.CURRENT].pair_id
    at.button(key=keys.label_key(first, 0)).click().run()
    second = at.session_state[keys.CURRENT].pair_id
    with session_scope(campaign["engine"], readonly=True) as session:
        me = store.annotator_id(session, campaign="c", name="ann")
        topics = store.progress(session, campaign="c", annotator_id=me)
        claimed = session.execute(sa.text("SELECT pair_id FROM claim")).scalars().all()
    assert second != first and claimed == [second]
    assert topics["annotator_done"].tolist() == [1] and topics["judgments_done"].tolist() == [1]
    assert "You judged 1 pair." in " ".join(c.value for c in at.caption)


def test_a_removed_annotator_is_logged_out_at_the_next_press(campaign) -> None:
    at = _run(campaign["ann"])
    pair = at.session_state[keys.CURRENT].pair_id
    with session_scope(campaign["engine"]) as session:
        store.remove_annotator(session, campaign="c", name="ann")
    at.button(key=keys.label_key(pair, 1)).click().run()
    assert [e.value for e in at.error] and "not valid" in at.error[0].value
    with session_scope(campaign["engine"], readonly=True) as session:
        assert store.judgments_frame(session, campaign="c").empty
