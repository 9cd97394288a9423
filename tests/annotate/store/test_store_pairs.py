"""pair_by_key: the adjudicator's look-up of a pooled pair by (topic, document)."""

from __future__ import annotations

import pytest
from pooljudge.annotate import store
from pooljudge.annotate.store import session_scope

from pooljudge.errors import InputError


def test_pair_by_key_returns_text_without_runs_or_rank(engine, make_campaign) -> None:
    name = make_campaign(n_topics=2, n_docs=3)
    with session_scope(engine, readonly=True) as session:
        view = store.pair_by_key(session, campaign=name, topic="t1", doc="d2")
    assert (view.topic_id, view.doc_id, view.doc_text) == ("t1", "d2", "text <b>2</b>")
    assert view.position is None
    assert not hasattr(view, "runs") and not hasattr(view, "best_rank")


@pytest.mark.parametrize(("campaign", "topic", "doc"), [
    (None, "t1", "d9"), (None, "t9", "d1"), ("no-such-campaign", "t0", "d0"),
], ids=["unknown-doc", "unknown-topic", "unknown-campaign"])
def test_pair_by_key_refuses_unknown_pairs(engine, make_campaign, campaign, topic, doc) -> None:
    name = make_campaign()
    with session_scope(engine, readonly=True) as session, pytest.raises(InputError):
        store.pair_by_key(session, campaign=campaign or name, topic=topic, doc=doc)
