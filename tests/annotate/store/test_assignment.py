"""Assignment: overlap, no repeats, leases, skips, topic mode, queue orders."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sqlalchemy as sa
from pooljudge.annotate.store import (
    add_annotator,
    authenticate,
    judgments_frame,
    next_pair,
    record_judgment,
    remove_annotator,
    session_scope,
    skip_pair,
)
from pooljudge.annotate.store.assignment import queue_positions
from pooljudge.annotate.store.common import utcnow
from pooljudge.annotate.store.models import Claim

from pooljudge.errors import InputError


def _annotators(engine, campaign: str, names):
    ids = []
    for name in names:
        with session_scope(engine) as s:
            token = add_annotator(s, campaign=campaign, name=name)
            ids.append(authenticate(s, token=token).id)
    return ids


def _judge_all(engine, annotator_id: int) -> list[tuple[str, str]]:
    pairs = []
    while True:
        with session_scope(engine) as s:
            view = next_pair(s, annotator_id=annotator_id)
            if view is None:
                return pairs
            record_judgment(s, annotator_id=annotator_id, pair_id=view.pair_id, label=0)
            pairs.append((view.topic_id, view.doc_id))


def test_each_pair_gets_exactly_k_distinct_annotators(engine, make_campaign):
    name = make_campaign(overlap=2, n_topics=3, n_docs=4)
    ids = _annotators(engine, name, ["a", "b", "c"])
    judged = {i: _judge_all(engine, i) for i in ids}
    for pairs in judged.values():
        assert len(pairs) == len(set(pairs))  # never the same pair twice
    with session_scope(engine) as s:
        frame = judgments_frame(s, campaign=name)
    per_pair = frame.groupby(["topic", "doc"])["annotator"].nunique()
    assert len(per_pair) == 12 and (per_pair == 2).all()
    assert len(frame) == 24


def test_static_pool_order_interleaves_topics(engine, make_campaign):
    name = make_campaign(overlap=1, n_topics=2, n_docs=3)
    (a,) = _annotators(engine, name, ["a"])
    assert _judge_all(engine, a) == [("t0", "d0"), ("t1", "d0"), ("t0", "d1"), ("t1", "d1"),
                                     ("t0", "d2"), ("t1", "d2")]


def test_own_claim_comes_back_until_judged(engine, make_campaign):
    name = make_campaign(overlap=1)
    a, b = _annotators(engine, name, ["a", "b"])
    with session_scope(engine) as s:
        first = next_pair(s, annotator_id=a)
    with session_scope(engine) as s:
        again = next_pair(s, annotator_id=a)
        other = next_pair(s, annotator_id=b)
    assert again == first and other.pair_id != first.pair_id


def test_expired_lease_returns_the_pair_to_the_queue(engine, make_campaign):
    name = make_campaign(overlap=1, n_topics=1, n_docs=1)
    a, b = _annotators(engine, name, ["a", "b"])
    with session_scope(engine) as s:
        view = next_pair(s, annotator_id=a, lease_seconds=-1)  # already expired
    with session_scope(engine) as s:
        taken = next_pair(s, annotator_id=b)
        assert taken.pair_id == view.pair_id
        assert s.execute(sa.select(sa.func.count()).select_from(Claim)
                         .where(Claim.annotator_id == a)).scalar_one() == 0
    with session_scope(engine) as s:
        record_judgment(s, annotator_id=b, pair_id=taken.pair_id, label=1)
    with pytest.raises(InputError, match="judged by enough"), session_scope(engine) as s:
        record_judgment(s, annotator_id=a, pair_id=view.pair_id, label=0)


def test_own_expired_claim_is_taken_anew_not_renewed(engine, make_campaign):
    """A claim whose lease ended is deleted before the annotator's own claim is looked up, so
    the pair is claimed again (a new claim row with a live lease), not a dead row renewed."""
    name = make_campaign(overlap=1, n_topics=1, n_docs=1)
    (a,) = _annotators(engine, name, ["a"])
    with session_scope(engine) as s:
        view = next_pair(s, annotator_id=a, lease_seconds=-1)
    with session_scope(engine) as s:
        again = next_pair(s, annotator_id=a)
        claims = s.execute(sa.select(Claim.pair_id, Claim.expires_at, Claim.position)
                           .where(Claim.annotator_id == a)).all()
    assert again.pair_id == view.pair_id
    assert [(c.pair_id, c.position) for c in claims] == [(view.pair_id, view.position + 1)]
    assert claims[0].expires_at > utcnow()
    with session_scope(engine) as s:
        assert record_judgment(s, annotator_id=a, pair_id=again.pair_id, label=1).version == 1


def test_late_judgment_is_kept_while_the_slot_is_free(engine, make_campaign):
    name = make_campaign(overlap=1, n_topics=1, n_docs=2)
    (a,) = _annotators(engine, name, ["a"])
    with session_scope(engine) as s:
        view = next_pair(s, annotator_id=a, lease_seconds=-1)
    with session_scope(engine) as s:
        record = record_judgment(s, annotator_id=a, pair_id=view.pair_id, label=1)
    assert record.version == 1
    assert _judge_all(engine, a) == [("t0", "d1")]


def test_skipped_pair_comes_after_the_others(engine, make_campaign):
    name = make_campaign(overlap=1, n_topics=1, n_docs=3)
    (a,) = _annotators(engine, name, ["a"])
    with session_scope(engine) as s:
        first = next_pair(s, annotator_id=a)
        skip_pair(s, annotator_id=a, pair_id=first.pair_id)
    assert _judge_all(engine, a) == [("t0", "d1"), ("t0", "d2"), ("t0", "d0")]
    with pytest.raises(InputError, match="not claimed"), session_scope(engine) as s:
        skip_pair(s, annotator_id=a, pair_id=first.pair_id)


def test_skipped_pair_is_free_for_others(engine, make_campaign):
    name = make_campaign(overlap=1, n_topics=1, n_docs=2)
    a, b = _annotators(engine, name, ["a", "b"])
    with session_scope(engine) as s:
        first = next_pair(s, annotator_id=a)
        skip_pair(s, annotator_id=a, pair_id=first.pair_id)
    with session_scope(engine) as s:
        assert next_pair(s, annotator_id=b).pair_id == first.pair_id


def test_topic_mode_keeps_topics_with_their_annotators(engine, make_campaign):
    name = make_campaign(overlap=1, n_topics=2, n_docs=3, assign_mode="topic")
    a, b = _annotators(engine, name, ["a", "b"])
    with session_scope(engine) as s:
        first_a = next_pair(s, annotator_id=a)
        first_b = next_pair(s, annotator_id=b)
    assert first_a.topic_id != first_b.topic_id
    for annotator, view in ((a, first_a), (b, first_b)):
        with session_scope(engine) as s:
            record_judgment(s, annotator_id=annotator, pair_id=view.pair_id, label=1)
    topics_a = {t for t, _ in _judge_all(engine, a)} | {first_a.topic_id}
    topics_b = {t for t, _ in _judge_all(engine, b)} | {first_b.topic_id}
    assert topics_a == {first_a.topic_id} and topics_b == {first_b.topic_id}


def test_topic_mode_with_overlap_two_shares_topics(engine, make_campaign):
    name = make_campaign(overlap=2, n_topics=2, n_docs=2, assign_mode="topic")
    a, b, c = _annotators(engine, name, ["a", "b", "c"])
    judged = {x: _judge_all(engine, x) for x in (a, b, c)}
    assert len(judged[a]) == 4  # a takes both topics in turn
    with session_scope(engine) as s:
        frame = judgments_frame(s, campaign=name)
    holders = frame.groupby("topic")["annotator"].unique().map(len)
    assert (holders == 2).all()
    assert (frame.groupby(["topic", "doc"]).size() == 2).all()


def test_removed_annotator_releases_claim_and_cannot_claim(engine, make_campaign):
    name = make_campaign(overlap=1, n_topics=1, n_docs=1)
    a, b = _annotators(engine, name, ["a", "b"])
    with session_scope(engine) as s:
        view = next_pair(s, annotator_id=a)
    with session_scope(engine) as s:
        assert next_pair(s, annotator_id=b) is None
        remove_annotator(s, campaign=name, name="a")
    with session_scope(engine) as s:
        assert next_pair(s, annotator_id=b).pair_id == view.pair_id
    with pytest.raises(InputError, match="no active annotator"), session_scope(engine) as s:
        next_pair(s, annotator_id=a)


@pytest.mark.parametrize(("order", "expected"), [
    ("pool", [0, 2, 4, 1, 3]),
    ("topic", [0, 1, 2, 3, 4]),
], ids=["pool", "topic"])
def test_queue_positions(order, expected):
    pool = pd.DataFrame({"topic": ["A", "A", "A", "B", "B"], "order": [1, 2, 3, 1, 2]})
    # pool: A's pairs at shares 0, 1/3, 2/3; B's at 0, 1/2 -> A0 B0 A1 B1 A2
    assert queue_positions(pool, order).tolist() == expected


def test_queue_positions_follow_order_column_not_rows():
    pool = pd.DataFrame({"topic": ["A", "A", "A"], "order": [3, 1, 2]})
    assert queue_positions(pool, "pool").tolist() == [2, 0, 1]


def test_random_order_is_a_seeded_permutation():
    pool = pd.DataFrame({"topic": ["A"] * 50, "order": np.arange(1, 51)})
    first = queue_positions(pool, "random")
    assert sorted(first.tolist()) == list(range(50))
    assert first.tolist() == queue_positions(pool, "random").tolist()
    with pytest.raises(InputError, match="unknown judging order"):
        queue_positions(pool, "alphabetical")
