"""Review campaigns in the store, on SQLite and PostgreSQL: the seed ranking queued, rankings
rewritten among a topic's own positions, outdated results discarded, samples, certificates
whose counts equal the stored judgments, closed queues and stale certificates."""

from __future__ import annotations

import dataclasses
import uuid

import numpy as np
import pandas as pd
import pytest
from pooljudge.annotate import store
from pooljudge.annotate.campaigns import CampaignSettings
from pooljudge.annotate.records import GUARANTEE_RULES, QUANT_RULES, STOP_RULES, LabelScale
from pooljudge.annotate.review import create_review, update_topic
from pooljudge.annotate.store import session_scope

N_DOCS = 120
RELEVANT = {"t0": set(range(0, N_DOCS, 10)), "t1": set(range(5, N_DOCS, 30))}


def collection() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Random-word documents; t0's relevant ones say apple banana, t1's zebra yak."""
    rng = np.random.default_rng(7)
    words = np.array([f"w{i}" for i in range(200)])
    texts = [" ".join(rng.choice(words, 25)) for _ in range(N_DOCS)]
    for j in range(N_DOCS):
        texts[j] += " apple banana" * (j in RELEVANT["t0"]) + " zebra yak" * (j in RELEVANT["t1"])
    documents = pd.DataFrame({"id": [f"d{j:03d}" for j in range(N_DOCS)], "title": "",
                              "text": texts})
    topics = pd.DataFrame({"id": ["t0", "t1"], "title": ["apple", "zebra"],
                           "description": ["banana", "yak"], "narrative": ""})
    return topics, documents


def make_review(engine, rule: str, recall: float = 0.8, alpha: float = 0.1, **kw) -> tuple:
    name = f"rev-{uuid.uuid4().hex[:8]}"
    topics, documents = collection()
    created = create_review(engine, CampaignSettings(name=name, scale=LabelScale.binary(), **kw),
                            topics=topics, documents=documents, rule=rule, recall=recall,
                            alpha=alpha)
    with session_scope(engine) as session:
        store.add_annotator(session, campaign=name, name="ann")
        ann = store.annotator_id(session, campaign=name, name="ann")
    return name, created.info.id, ann


def topic_ids(engine, campaign_id: int) -> dict[str, int]:
    with session_scope(engine, readonly=True) as session:
        return {t.topic: t.topic_id for t in store.review_topics(session,
                                                                  campaign_id=campaign_id)}


def judge(engine, ann: int, campaign_id: int, *, limit: int = 10_000, update: bool = True
          ) -> list[tuple[str, str]]:
    """Label claimed pairs by the truth, moving the topic on after each label."""
    ids, seen = topic_ids(engine, campaign_id), []
    for _ in range(limit):
        with session_scope(engine) as session:
            view = store.next_pair(session, annotator_id=ann)
            if view is None:
                break
            label = int(int(view.doc_id[1:]) in RELEVANT[view.topic_id])
            store.record_judgment(session, annotator_id=ann, pair_id=view.pair_id, label=label,
                                  current=True)
        seen.append((view.topic_id, view.doc_id))
        if update:
            update_topic(engine, campaign_id=campaign_id, topic_id=ids[view.topic_id])
    return seen


def test_the_first_documents_claimed_are_each_topics_most_similar(engine):
    _, _, ann = make_review(engine, "knee")
    seen = judge(engine, ann, 0, limit=4, update=False)
    assert {doc for _, doc in seen} <= {f"d{j:03d}" for s in RELEVANT.values() for j in s}
    assert {topic for topic, _ in seen} == {"t0", "t1"}  # topics interleaved


def test_a_ranking_is_placed_among_the_topics_own_positions_and_an_older_one_discarded(engine):
    _name, cid, _ = make_review(engine, "knee")
    ids = topic_ids(engine, cid)
    with session_scope(engine, readonly=True) as session:
        before = {t: store.review_pairs(session, topic_id=i) for t, i in ids.items()}
    wanted = before["t0"]["pair_id"].to_numpy()[::-1]
    with session_scope(engine) as session:
        assert store.write_ranking(session, topic_id=ids["t0"], pair_ids=wanted, trained=3,
                                   due=5, batch=2)
    with session_scope(engine) as session:  # another server's result for fewer labels
        assert not store.write_ranking(session, topic_id=ids["t0"], pair_ids=wanted[::-1],
                                       trained=3, due=5, batch=2)
    with session_scope(engine, readonly=True) as session:
        after = {t: store.review_pairs(session, topic_id=i) for t, i in ids.items()}
        state = next(t for t in store.review_topics(session, campaign_id=cid) if t.topic == "t0")
    t0 = after["t0"].set_index("pair_id").loc[wanted, "queue_pos"].to_numpy()
    assert (np.diff(t0) > 0).all()
    assert sorted(t0) == sorted(before["t0"]["queue_pos"])
    pd.testing.assert_frame_equal(after["t1"], before["t1"])
    assert (state.ranked_count, state.due_count, state.batch) == (3, 5, 2)


@pytest.mark.parametrize("rule", STOP_RULES)
def test_a_review_is_judged_until_every_topic_is_certified(engine, rule):
    recall, alpha = (0.5, 0.5) if rule in ("target", "qbcb") else (0.8, 0.1)
    guarantee = rule in GUARANTEE_RULES
    name, cid, ann = make_review(engine, rule, recall, alpha)
    seen = judge(engine, ann, cid)
    with session_scope(engine, readonly=True) as session:
        found = {c.topic: c for c in store.certificates(session, campaign_id=cid)}
        frame = store.judgments_frame(session, campaign=name)
        assert store.consistency_problems(session, campaign=name) == []
        assert {t.phase for t in store.review_topics(session, campaign_id=cid)} == {"certified"}
    assert set(found) == {"t0", "t1"}
    for topic, cert in found.items():
        rows = frame[frame["topic"] == topic]
        assert cert.reviewed == len(rows) == sum(t == topic for t, _ in seen)
        assert len(set(cert.judgments)) == len(cert.judgments) == cert.reviewed
        assert cert.relevant_found == int(rows["label"].sum())
        assert cert.guarantee == guarantee and not cert.stale
        if rule in QUANT_RULES and not cert.exhausted:
            assert cert.recall_estimate >= recall and cert.remaining is None
        else:
            assert cert.recall_estimate is None
        if rule in ("target", "qbcb"):
            assert cert.sample_size is not None and cert.sample_relevant is not None
    assert len(seen) < 2 * N_DOCS or not guarantee  # the guarantees stopped before the end
    if rule == "quant":  # its estimate reached the target before the end on both topics
        assert not any(cert.exhausted for cert in found.values())


def test_hypergeometric_certificate_rests_on_its_sample(engine):
    from pooljudge.pooling.stopping import hypergeometric_p, relevant_interval

    _name, cid, ann = make_review(engine, "hypergeometric")
    judge(engine, ann, cid)
    with session_scope(engine, readonly=True) as session:
        cert = {c.topic: c for c in store.certificates(session, campaign_id=cid)}["t0"]
        pairs = store.review_pairs(session, topic_id=topic_ids(engine, cid)["t0"])
        labels, _ = store.review_labels(session, topic_id=topic_ids(engine, cid)["t0"])
    laid = labels.merge(pairs, on="pair_id")
    sample = laid["draw"].to_numpy() >= 0
    rel = laid["label"].to_numpy()
    assert cert.sample_size == sample.sum() > 0 and cert.sample_relevant == rel[sample].sum()
    sequence = np.concatenate([rel[~sample], rel[sample]])
    p = hypergeometric_p(sequence, N_DOCS, 0.8, window=int(sample.sum()))
    assert cert.p_value == pytest.approx(p, abs=1e-12) and p < 0.1
    est, low, high = relevant_interval(cert.sample_relevant, cert.sample_size,
                                       N_DOCS - (cert.reviewed - cert.sample_size), 0.1)
    k = cert.sample_relevant
    assert (cert.remaining, cert.remaining_low, cert.remaining_high) == (est - k, low - k,
                                                                         high - k)


def test_a_certified_topic_hands_out_nothing_and_its_certificate_goes_stale(engine):
    name, cid, ann = make_review(engine, "hypergeometric")
    judge(engine, ann, cid)
    with session_scope(engine) as session:  # undo the last label: its topic's certificate
        withdrawn = store.withdraw_last(session, annotator_id=ann)
    with session_scope(engine) as session:  # the withdrawn pair comes back, nothing else
        assert store.next_pair(session, annotator_id=ann).pair_id == withdrawn.pair_id
    with session_scope(engine, readonly=True) as session:
        stale = {c.topic: c.stale for c in store.certificates(session, campaign_id=cid)}
        assert store.consistency_problems(session, campaign=name) == []
    assert sorted(stale.values()) == [False, True]
    assert stale[withdrawn.topic_id]


def test_a_certificate_computed_before_a_newer_judgment_is_discarded(engine):
    from pooljudge.annotate.review_rules import Topic, decide

    _name, cid, ann = make_review(engine, "knee")
    ids = topic_ids(engine, cid)
    judge(engine, ann, cid, limit=6)
    with session_scope(engine, readonly=True) as session:
        settings = store.review_settings(session, campaign_id=cid)
        state = next(t for t in store.review_topics(session, campaign_id=cid) if t.topic == "t0")
        pairs = store.review_pairs(session, topic_id=ids["t0"])
        labels, newest = store.review_labels(session, topic_id=ids["t0"])
    forced = dataclasses.replace(state, n_docs=len(labels))  # as if every document was judged
    decision = decide(Topic(settings, forced, pairs, labels, newest))
    assert decision.action == "certify"
    other = next(i for i in pairs["pair_id"] if i not in set(labels["pair_id"]))
    with session_scope(engine) as session:
        store.record_judgment(session, annotator_id=ann, pair_id=int(other), label=0)
    with session_scope(engine) as session:
        assert not store.certify(session, topic_id=ids["t0"], newest=newest,
                                 certificate=decision.certificate, labels=decision.labels)
        assert store.certificates(session, campaign_id=cid) == []


@pytest.mark.parametrize("rule", ["target", "qbcb"])
def test_the_sample_first_rules_start_on_a_random_sample_of_every_document(engine, rule):
    _, cid, _ = make_review(engine, rule, 0.5, 0.5)
    ids = topic_ids(engine, cid)
    with session_scope(engine, readonly=True) as session:
        phases = {t.topic: t.phase for t in store.review_topics(session, campaign_id=cid)}
        pairs = store.review_pairs(session, topic_id=ids["t0"])
    assert phases == {"t0": "sample", "t1": "sample"}
    order = pairs.sort_values("queue_pos")["draw"].to_numpy()
    assert sorted(order) == list(range(N_DOCS)) and (np.diff(order) > 0).all()


def test_start_review_refuses_bad_settings(engine, make_campaign):
    from pooljudge.errors import InputError

    name = make_campaign()
    with session_scope(engine) as session, pytest.raises(InputError, match="stopping rule"):
        store.start_review(session, campaign=name, rule="guess", target=0.9, alpha=0.1, seed=0)
    with session_scope(engine) as session, pytest.raises(InputError, match="in \\(0, 1\\)"):
        store.start_review(session, campaign=name, rule="knee", target=1.0, alpha=0.1, seed=0)
    with session_scope(engine) as session:
        store.start_review(session, campaign=name, rule="knee", target=0.9, alpha=0.1, seed=0)
    with session_scope(engine) as session, pytest.raises(InputError, match="already a review"):
        store.start_review(session, campaign=name, rule="knee", target=0.9, alpha=0.1, seed=0)


def test_a_ranking_front_moves_only_its_pairs_and_those_they_displace(engine):
    _, cid, _ = make_review(engine, "knee")
    tid = topic_ids(engine, cid)["t1"]
    with session_scope(engine, readonly=True) as session:
        before = store.review_pairs(session, topic_id=tid).set_index("pair_id")["queue_pos"]
    queue = before.sort_values().index.to_numpy()
    wanted = np.r_[queue[-1], queue[5], queue[0], queue[1:5]]  # two new leaders, then others
    with session_scope(engine) as session:
        assert store.write_ranking(session, topic_id=tid, pair_ids=wanted, trained=1, due=3,
                                   batch=2, front=2)
    with session_scope(engine, readonly=True) as session:
        after = store.review_pairs(session, topic_id=tid).set_index("pair_id")["queue_pos"]
    moved = after[after != before]
    slots = before.sort_values().to_numpy()
    assert after.sort_values().index[:2].tolist() == [queue[-1], queue[5]]
    # the displaced first two take the places the leaders left, in queue order
    assert (after[queue[0]], after[queue[1]]) == (slots[5], slots[-1])
    assert sorted(moved.index) == sorted([queue[-1], queue[5], queue[0], queue[1]])


def test_two_servers_retraining_at_once_store_one_ranking(engine):
    """As two server processes' threads would: both read the same labels and train; the
    second write finds the ranking already trained on as many labels and is discarded."""
    import threading

    _, cid, ann = make_review(engine, "knee")
    [(topic, _doc)] = judge(engine, ann, cid, limit=1, update=False)
    tid = topic_ids(engine, cid)[topic]
    barrier, results = threading.Barrier(2), []

    def server() -> None:
        barrier.wait()
        results.append(update_topic(engine, campaign_id=cid, topic_id=tid, steps=1))

    threads = [threading.Thread(target=server) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    flat = sorted(step for steps in results for step in steps)
    assert flat in (["retrain"], ["retrain", "retrain discarded"])
    with session_scope(engine, readonly=True) as session:
        state = next(t for t in store.review_topics(session, campaign_id=cid) if t.topic_id == tid)
    assert (state.ranked_count, state.due_count) == (1, 3)


def test_a_certified_topic_counts_as_complete_in_the_progress(engine):
    name, cid, ann = make_review(engine, "quant")
    with session_scope(engine, readonly=True) as session:
        before = store.progress(session, campaign=name)
    assert before["judgments_needed"].tolist() == [N_DOCS, N_DOCS]
    judge(engine, ann, cid)  # Quant stops both topics before their end
    with session_scope(engine, readonly=True) as session:
        phases = {t.phase for t in store.review_topics(session, campaign_id=cid)}
        after = store.progress(session, campaign=name)
    assert phases == {"certified"}
    assert (after["judgments_needed"] == after["judgments_done"]).all()
    assert (after["judgments_done"] < N_DOCS).all()
