"""The background thread: a label's topic is moved on after submit, off the caller's thread."""

from __future__ import annotations

import threading

from pooljudge.annotate import review_worker, store
from pooljudge.annotate.store import session_scope

from tests.annotate.store.test_review_store import make_review


def test_submit_returns_at_once_and_the_thread_retrains(engine, make_campaign, monkeypatch):
    _, cid, ann = make_review(engine, "knee")
    with session_scope(engine) as session:
        view = store.next_pair(session, annotator_id=ann)
        store.record_judgment(session, annotator_id=ann, pair_id=view.pair_id, label=1,
                              current=True)
    threads = []
    real = review_worker.update_topic

    def spy(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(review_worker, "update_topic", spy)
    review_worker.submit(engine, pair_id=view.pair_id)
    pooled = make_campaign()  # a pair of a pooled campaign: nothing to do, no error
    with session_scope(engine, readonly=True) as session:
        other = store.pair_by_key(session, campaign=pooled, topic="t0", doc="d0").pair_id
    review_worker.submit(engine, pair_id=other)
    assert review_worker.drain(60)
    assert threads == ["pooljudge-review"]
    with session_scope(engine, readonly=True) as session:
        state = next(t for t in store.review_topics(session, campaign_id=cid)
                     if t.topic == view.topic_id)
    assert (state.ranked_count, state.due_count, state.batch) == (1, 3, 2)
