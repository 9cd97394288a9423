"""The calibration store on both backends: samples at the front of the queue, the suggestion
setting and the suggested label stored with a person's judgment."""

from __future__ import annotations

import pandas as pd
import pytest
import sqlalchemy as sa
from pooljudge.annotate import store
from pooljudge.annotate.calibration import stratified_sample
from pooljudge.annotate.store import session_scope

from pooljudge.errors import InputError


def judge_labels(engine, campaign, labels: dict[tuple[str, str], int], name: str = "llm-a"):
    """Store ``labels`` as automatic judge ``name``'s (source automatic)."""
    with session_scope(engine) as session:
        judge = store.auto_judge(session, campaign=campaign.name, name=name)
        for (topic, doc), label in labels.items():
            pair = store.pair_by_key(session, campaign=campaign.name, topic=topic,
                                       doc=doc).pair_id
            store.record_judgment(session, annotator_id=judge, pair_id=pair,
                                  label=label, source="automatic")


def person(engine, campaign, name: str = "ann") -> int:
    with session_scope(engine) as session:
        store.add_annotator(session, campaign=campaign.name, name=name)
        return store.annotator_id(session, campaign=campaign.name, name=name)


def test_sample_goes_to_the_front_and_is_claimed_first(engine, make_campaign):
    campaign = make_campaign(3, 6)
    judge_labels(engine, campaign, campaign.truth)
    ann = person(engine, campaign)
    with session_scope(engine) as session:  # a person judged the queue's first pair already
        first = store.next_pair(session, annotator_id=ann)
        store.record_judgment(session, annotator_id=ann, pair_id=first.pair_id, label=1)
    with session_scope(engine) as session:
        candidates = store.calibration_candidates(session, campaign=campaign.name,
                                                  judge="llm-a")
        assert first.pair_id not in set(candidates["pair_id"])
        assert len(candidates) == len(campaign.truth) - 1
        chosen = stratified_sample(candidates, 6, seed=3)
        assert store.move_to_front(session, campaign=campaign.name,
                                   pair_ids=chosen.tolist()) == 6
    claimed = []
    for _ in range(len(chosen) + 1):
        with session_scope(engine) as session:
            view = store.next_pair(session, annotator_id=ann)
            store.record_judgment(session, annotator_id=ann, pair_id=view.pair_id, label=0)
            claimed.append(view.pair_id)
    assert claimed[:-1] == chosen.tolist()
    assert claimed[-1] not in set(chosen)


def test_sample_is_refused_for_pairs_of_another_campaign_and_repeats(engine, make_campaign):
    one, other = make_campaign(1, 2), make_campaign(1, 2)
    with session_scope(engine) as session:
        theirs = store.pair_by_key(session, campaign=other.name, topic="t0", doc="d0").pair_id
        with pytest.raises(InputError, match="not in campaign"):
            store.move_to_front(session, campaign=one.name, pair_ids=[theirs])
        mine = store.pair_by_key(session, campaign=one.name, topic="t0", doc="d0").pair_id
        with pytest.raises(InputError, match="twice"):
            store.move_to_front(session, campaign=one.name, pair_ids=[mine, mine])
        with pytest.raises(InputError, match="no automatic judge named 'nobody'"):
            store.calibration_candidates(session, campaign=one.name, judge="nobody")


def test_suggestion_setting_and_the_suggested_label_stored(engine, make_campaign):
    campaign = make_campaign(2, 3)
    judge_labels(engine, campaign, {("t0", "d0"): 2})
    ann = person(engine, campaign)
    with session_scope(engine) as session:
        with pytest.raises(InputError, match="is a person"):
            store.set_suggest_from(session, campaign=campaign.name, name="ann")
        view = store.next_pair(session, annotator_id=ann)
        assert (view.topic_id, view.doc_id) == ("t0", "d0")
        cid = store.get_campaign(session, name=campaign.name).id
        assert store.suggestion(session, campaign_id=cid, pair_id=view.pair_id) is None
        store.set_suggest_from(session, campaign=campaign.name, name="llm-a")
    with session_scope(engine) as session:
        assert store.suggest_from(session, campaign=campaign.name) == "llm-a"
        shown = store.suggestion(session, campaign_id=cid, pair_id=view.pair_id)
        assert shown == (2, "llm-a")
        # a claimed pair's first judgment: on PostgreSQL the one-statement (CTE) path
        store.record_judgment(session, annotator_id=ann, pair_id=view.pair_id, label=1,
                              suggested=shown[0])
        later = store.next_pair(session, annotator_id=ann)
        store.record_judgment(session, annotator_id=ann, pair_id=later.pair_id, label=0)
    with session_scope(engine, readonly=True) as session:
        frame = store.suggestions_shown(session, campaign=campaign.name)
        rows = session.execute(sa.text(
            "SELECT suggested FROM judgment WHERE annotator_id = :a ORDER BY id"), {"a": ann})
        assert [r[0] for r in rows] == [2, None]
    shown_labels = [None if pd.isna(v) else int(v) for v in frame["suggested"]]
    keys = zip(frame["topic"], frame["doc"], strict=True)
    assert dict(zip(keys, shown_labels, strict=True)) == {
        ("t0", "d0"): 2, (later.topic_id, later.doc_id): None}
    with session_scope(engine) as session:
        store.set_suggest_from(session, campaign=campaign.name, name=None)
        assert store.suggestion(session, campaign_id=cid, pair_id=view.pair_id) is None
