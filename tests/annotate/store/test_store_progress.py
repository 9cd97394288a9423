"""Progress counters (revision 0004) always equal a recount of the judgment table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sqlalchemy as sa
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import (
    DuplicateWrite,
    add_annotator,
    annotator_id,
    annotator_progress,
    consistency_problems,
    create_campaign,
    history,
    import_judgments,
    judgments_frame,
    list_annotators,
    migrate,
    next_pair,
    open_engine,
    others_labels,
    progress,
    recent_seconds,
    record_judgment,
    session_scope,
    skip_pair,
    topic_pairs,
    withdraw_last,
    withdrawal,
)

from tests.annotate.conftest import small_collection

PEOPLE = ("ann", "bob", "cy")
_CAMPAIGN = "(SELECT id FROM campaign WHERE name = :name)"
_RECOUNT = sa.text(  # pairs whose latest version (kind judgment) is a label
    "SELECT j.annotator_id, p.topic_id, COUNT(DISTINCT j.pair_id) FROM judgment j "
    f"JOIN pair p ON p.id = j.pair_id WHERE j.kind = 'judgment' AND p.campaign_id = {_CAMPAIGN} "
    "AND j.status = 'label' AND NOT EXISTS (SELECT 1 FROM judgment n WHERE n.pair_id = j.pair_id "
    "AND n.annotator_id = j.annotator_id AND n.kind = j.kind AND n.version > j.version) "
    "GROUP BY j.annotator_id, p.topic_id")
_COUNTERS = sa.text(
    "SELECT c.annotator_id, c.topic_id, c.judged FROM annotator_topic c "
    f"JOIN topic t ON t.id = c.topic_id WHERE c.judged > 0 AND t.campaign_id = {_CAMPAIGN}")


def _campaign(engine, name: str, overlap: int = 2) -> dict[str, int]:
    with session_scope(engine) as session:
        create_campaign(session, name=name, scale=LabelScale.binary(), overlap=overlap,
                        cannot_judge=True, **small_collection(n_topics=3, n_docs=6))
        for person in PEOPLE:
            add_annotator(session, campaign=name, name=person,
                          role="adjudicator" if person == "cy" else "annotator")
    with session_scope(engine) as session:
        return {p: annotator_id(session, campaign=name, name=p) for p in PEOPLE}


def _random_work(engine, name: str, ids: dict[str, int], rng: np.random.Generator) -> None:
    """Claims, labels, can't-judge answers, new versions, double submits, skips, undos (and
    labels of the pair an undo hands back) and adjudications, in random order."""
    for _ in range(60):
        person = str(rng.choice(PEOPLE))
        with session_scope(engine) as session:
            view = next_pair(session, annotator_id=ids[person])
        if view is None:
            continue
        action = rng.random()
        with session_scope(engine) as session:
            if action < 0.15:
                skip_pair(session, annotator_id=ids[person], pair_id=view.pair_id)
                continue
            back = withdrawal(session, annotator_id=ids[person], pair_id=view.pair_id)
            version = 1 if back is None else back.version + 1
            if action < 0.25:
                record_judgment(session, annotator_id=ids[person], pair_id=view.pair_id,
                                label=None, status="cannot_judge", rationale="unsure",
                                expected_version=version)
                continue
            record_judgment(session, annotator_id=ids[person], pair_id=view.pair_id,
                            label=int(rng.integers(0, 2)), expected_version=version)
        if 0.6 < action < 0.7:  # undo, sometimes twice in a row
            for _ in range(1 + int(action > 0.65)):
                with session_scope(engine) as session:
                    withdraw_last(session, annotator_id=ids[person])
            continue
        if action > 0.7:  # change it, then submit the same change twice
            for _ in range(2):
                try:
                    with session_scope(engine) as session:
                        record_judgment(session, annotator_id=ids[person], pair_id=view.pair_id,
                                        label=1, expected_version=version + 1)
                except DuplicateWrite:
                    pass
        if person == "cy" and action > 0.5:
            with session_scope(engine) as session:
                record_judgment(session, annotator_id=ids["cy"], pair_id=view.pair_id,
                                label=0, kind="adjudication")


def _statuses(engine, name: str) -> pd.Series:
    """The status of every judgment row of the campaign."""
    with session_scope(engine, readonly=True) as session:
        return judgments_frame(session, campaign=name, latest_only=False)["status"]


def _recount_progress(engine, name: str, overlap: int) -> pd.DataFrame:
    """Per topic, from the judgment rows alone: Σ over pairs of min(participants, K)."""
    with session_scope(engine, readonly=True) as session:
        frame = judgments_frame(session, campaign=name, latest_only=True, kind="judgment")
    humans = frame[~frame["annotator"].isin(["llm"])]
    per_pair = humans.groupby(["topic", "doc"])["annotator"].nunique().clip(upper=overlap)
    return per_pair.groupby("topic").sum()


@pytest.mark.parametrize("seed", [0, 1])
def test_counters_equal_a_recount_after_random_operations(engine, seed) -> None:
    name = f"prog-{seed}"
    ids = _campaign(engine, name)
    rng = np.random.default_rng(seed)
    _random_work(engine, name, ids, rng)
    with session_scope(engine) as session:  # imports: a label source, and people over K
        pool = small_collection(n_topics=3, n_docs=6)["pool"]
        rows = pool.sample(8, random_state=seed)
        frame = pd.concat([rows.assign(annotator=a) for a in ("llm", "ann", "bob", "cy")])
        frame = frame.assign(label=rng.integers(0, 2, len(frame)).astype(str))
        import_judgments(session, campaign=name, label_sources=["llm"],
                         frame=frame[["annotator", "topic", "doc", "label"]])
    _random_work(engine, name, ids, rng)
    with engine.connect() as connection:
        counters = sorted(map(tuple, connection.execute(_COUNTERS, {"name": name}).all()))
        recount = sorted(map(tuple, connection.execute(_RECOUNT, {"name": name}).all()))
    assert counters == recount and len({row[0] for row in counters}) == 4  # with llm
    with session_scope(engine, readonly=True) as session:
        topics = progress(session, campaign=name, annotator_id=ids["ann"])
        people = annotator_progress(session, campaign=name)
        latest = judgments_frame(session, campaign=name, latest_only=True, kind="judgment")
    expected = _recount_progress(engine, name, overlap=2)
    assert topics.set_index("topic")["judgments_done"].to_dict() == {
        t: int(expected.get(t, 0)) for t in topics["topic"]}
    assert (topics["judgments_needed"] == topics["pairs"] * 2).all()
    with session_scope(engine, readonly=True) as session:
        answered = judgments_frame(session, campaign=name, kind="judgment",
                                   states=("label", "cannot_judge"))
        problems = consistency_problems(session, campaign=name)
    assert problems == []
    assert (answered["status"] == "cannot_judge").any()
    assert (_statuses(engine, name) == "withdrawn").any()
    mine_recount = answered[answered["annotator"] == "ann"].groupby("topic")["doc"].nunique()
    assert topics.set_index("topic")["annotator_done"].to_dict() == {
        t: int(mine_recount.get(t, 0)) for t in topics["topic"]}
    by_person = latest.groupby(["annotator", "topic"])["doc"].nunique().reset_index()
    assert people.values.tolist() == by_person.sort_values(["annotator", "topic"]).values.tolist()
    with session_scope(engine, readonly=True) as session:
        listed = list_annotators(session, campaign=name).set_index("name")
        rows = judgments_frame(session, campaign=name, latest_only=False, kind="judgment")
    assert listed["judgments"].to_dict() == {
        n: int(latest.loc[latest["annotator"] == n, ["topic", "doc"]].drop_duplicates().shape[0])
        for n in listed.index}
    assert listed["last_judgment"].to_dict() == rows.groupby("annotator")["created_at"].max() \
        .reindex(listed.index).to_dict()


def test_topic_pairs_are_the_pool_sizes_in_queue_order(engine) -> None:
    _campaign(engine, "sizes")
    with session_scope(engine, readonly=True) as session:
        sizes = topic_pairs(session, campaign="sizes")
        cached = progress(session, campaign="sizes", pairs=sizes)
        fresh = progress(session, campaign="sizes")
    assert sizes["topic"].tolist() == ["t0", "t1", "t2"] and sizes["pairs"].tolist() == [6] * 3
    pd.testing.assert_frame_equal(cached, fresh)


def test_history_and_progress_of_a_new_version_count_the_pair_once(engine) -> None:
    ids = _campaign(engine, "versions", overlap=1)
    with session_scope(engine) as session:
        view = next_pair(session, annotator_id=ids["ann"])
        record_judgment(session, annotator_id=ids["ann"], pair_id=view.pair_id, label=0,
                        seconds=4.0)
        record_judgment(session, annotator_id=ids["ann"], pair_id=view.pair_id, label=1)
        record_judgment(session, annotator_id=ids["ann"], pair_id=view.pair_id, label=0,
                        kind="judgment", seconds=2.5)
    with session_scope(engine, readonly=True) as session:
        topics = progress(session, campaign="versions", annotator_id=ids["ann"])
        recent = history(session, annotator_id=ids["ann"])
        seconds = recent_seconds(session, annotator_id=ids["ann"], limit=2)
        nobody = recent_seconds(session, annotator_id=ids["bob"])
    assert topics["annotator_done"].sum() == 1 and topics["judgments_done"].sum() == 1
    assert [(r.version, r.label) for _, r in recent] == [(3, 0)]
    assert seconds == [2.5, None] and nobody == []


def test_upgrade_to_0004_counts_existing_judgments(fresh_db_url) -> None:
    engine = open_engine(fresh_db_url)
    ids = _campaign(engine, "old")
    with session_scope(engine) as session:
        for person in ("ann", "bob"):
            view = next_pair(session, annotator_id=ids[person])
            record_judgment(session, annotator_id=ids[person], pair_id=view.pair_id, label=1)
    migrate(engine, "0003", downgrade=True)
    engine.dispose()
    engine = open_engine(fresh_db_url)  # upgrades to head again: the counters are rebuilt
    try:
        with engine.connect() as connection:
            counters = sorted(map(tuple, connection.execute(_COUNTERS, {"name": "old"}).all()))
            recount = sorted(map(tuple, connection.execute(_RECOUNT, {"name": "old"}).all()))
        assert counters == recount and len(counters) == 2
    finally:
        engine.dispose()


def test_others_labels_are_the_latest_of_other_annotators_only(engine) -> None:
    ids = _campaign(engine, "others")
    with session_scope(engine) as session:
        view = next_pair(session, annotator_id=ids["ann"])
        pair = view.pair_id
        record_judgment(session, annotator_id=ids["ann"], pair_id=pair, label=1)
        assert next_pair(session, annotator_id=ids["bob"]).pair_id == pair
        record_judgment(session, annotator_id=ids["bob"], pair_id=pair, label=0)
        record_judgment(session, annotator_id=ids["bob"], pair_id=pair, label=1)
        record_judgment(session, annotator_id=ids["cy"], pair_id=pair, label=0,
                        kind="adjudication")
    with session_scope(engine, readonly=True) as session:
        assert others_labels(session, annotator_id=ids["ann"], pair_id=pair) == [("bob", 1)]
        assert others_labels(session, annotator_id=ids["bob"], pair_id=pair) == [("ann", 1)]
