"""Adaptive policies: invariants, the next-pair protocol, reproducibility."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pooljudge.pooling import build_pool, global_sequence, make_policy
from pooljudge.pooling.adaptive import _Arms

from pooljudge.errors import InputError

ADAPTIVE = ["mtf", "maxmean", "thompson", "maxmean(alpha=0.5,beta=2)"]
ALL = [*ADAPTIVE, "rrf", "take@2", "docid", "combmnz"]


@pytest.fixture
def tied_pool(kit):
    return build_pool({n: kit.run_frame(rows) for n, rows in kit.tied_runs(7, 5).items()}, 12)


def random_truth(pool, seed: int, share: float = 0.3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    labels = np.where(rng.random(len(pool.pairs)) < share, rng.integers(1, 3, len(pool.pairs)), 0)
    return pool.pairs[["topic", "doc"]].assign(label=labels)


def docs_in_order(pool, order, topic="1") -> list[str]:
    mine = (pool.pairs["topic"] == topic).to_numpy()
    return list(pool.pairs["doc"].to_numpy()[mine][np.argsort(order[mine])])


@pytest.mark.parametrize("spec", ALL)
@pytest.mark.parametrize("with_truth", [True, False])
def test_plan_is_a_permutation_of_each_topic_pool(tied_pool, spec, with_truth):
    truth = random_truth(tied_pool, 1) if with_truth else None
    order = make_policy(spec, tied_pool, seed=3).plan(truth)
    for _, group in pd.Series(order).groupby(tied_pool.pairs["topic"].to_numpy()):
        assert sorted(group) == list(range(1, len(group) + 1))


def test_mtf_with_everything_relevant_stays_on_the_first_run(kit):
    runs = {"B": kit.run_frame(kit.ranked_run("1", ["b1", "s", "b2"])),
            "A": kit.run_frame(kit.ranked_run("1", ["a1", "a2", "s", "a3"])),
            "C": kit.run_frame(kit.ranked_run("1", ["c1"]))}
    pool = build_pool(runs, 10)
    truth = pool.pairs[["topic", "doc"]].assign(label=1)
    order = make_policy("mtf", pool).plan(truth)
    assert docs_in_order(pool, order) == ["a1", "a2", "s", "a3", "b1", "b2", "c1"]


def test_mtf_with_nothing_relevant_visits_the_runs_in_turn(kit):
    runs = {"A": kit.run_frame(kit.ranked_run("1", ["a1", "a2", "a3"])),
            "B": kit.run_frame(kit.ranked_run("1", ["b1", "a2", "b2", "b3", "b4"])),
            "C": kit.run_frame(kit.ranked_run("1", ["c1"]))}
    pool = build_pool(runs, 10)
    truth = pool.pairs[["topic", "doc"]].assign(label=0)
    order = make_policy("mtf", pool).plan(truth)
    # Turns A, B, C, A, B, A, B, B: a judged document is skipped, an exhausted run drops out.
    assert docs_in_order(pool, order) == ["a1", "b1", "c1", "a2", "b2", "a3", "b3", "b4"]


def test_mtf_moves_on_only_after_a_non_relevant_document(kit):
    runs = {"A": kit.run_frame(kit.ranked_run("1", ["a1", "a2", "a3"])),
            "B": kit.run_frame(kit.ranked_run("1", ["b1", "b2"]))}
    pool = build_pool(runs, 10)
    truth = pd.DataFrame({"topic": ["1", "1"], "doc": ["a1", "b1"], "label": [2, 1]})
    order = make_policy("mtf", pool).plan(truth)
    # a1 relevant: stay; a2 not: B's turn; b1 relevant: stay; b2 not; back to A.
    assert docs_in_order(pool, order) == ["a1", "a2", "b1", "b2", "a3"]


def test_maxmean_follows_the_run_with_the_best_mean(kit):
    runs = {"A": kit.run_frame(kit.ranked_run("1", ["a1", "a2", "a3"])),
            "B": kit.run_frame(kit.ranked_run("1", ["b1", "b2", "b3"]))}
    pool = build_pool(runs, 10)
    truth = pd.DataFrame({"topic": "1", "doc": ["b1", "b2", "b3"], "label": 1})
    for seed in range(5):
        docs = docs_in_order(pool, make_policy("maxmean", pool, seed=seed).plan(truth))
        # Whichever run starts, once B shows relevant documents it keeps the lead.
        assert docs in (["b1", "b2", "b3", "a1", "a2", "a3"], ["a1", "b1", "b2", "b3", "a2", "a3"])


def test_run_statistics_count_documents_judged_through_other_runs():
    # Runs 0 and 1 share document 0; it is judged relevant when run 1 is pulled.
    arms = _Arms([[0, 1], [0, 2]], 3, rel=1)
    assert arms.head(1) == 0
    arms.judge(0, lambda doc: 2)
    assert (arms.head(0), arms.hits[0], arms.seen[0]) == (1, 1, 1)
    assert (arms.head(1), arms.hits[1], arms.seen[1]) == (2, 1, 1)
    arms.judge(1, lambda doc: None)  # pending (a batch look-ahead): counted as not relevant
    assert (arms.head(0), arms.hits[0], arms.seen[0]) == (None, 1, 2)
    assert arms.active() == [1]


@pytest.mark.parametrize("spec", ALL)
def test_asking_one_pair_at_a_time_replays_the_plan(tied_pool, spec):
    truth = random_truth(tied_pool, 2)
    labels = dict(zip(zip(truth["topic"], truth["doc"], strict=True), truth["label"],
                      strict=True))
    policy = make_policy(spec, tied_pool, seed=5)
    expected = global_sequence(tied_pool, policy.plan(truth))
    pairs = list(zip(tied_pool.pairs["topic"], tied_pool.pairs["doc"], strict=True))
    judged: dict[tuple[str, str], int] = {}
    asked = []
    while nxt := policy.next_pairs(judged):
        assert len(nxt) == 1 and nxt[0] not in judged
        asked.append(nxt[0])
        judged[nxt[0]] = labels[nxt[0]]
    assert asked == [pairs[i] for i in expected]


@pytest.mark.parametrize("spec", ALL)
def test_batches_are_distinct_unjudged_pairs_spread_over_topics(tied_pool, spec):
    policy = make_policy(spec, tied_pool, seed=1)
    first = policy.next_pairs({}, n=10)
    judged = dict.fromkeys(first[:4], 0)
    batch = policy.next_pairs(judged, n=30)
    assert len(batch) == len(set(batch)) == 30 and not set(batch) & set(judged)
    assert len({topic for topic, _ in first}) == 5  # five topics, two pairs each
    everything = dict.fromkeys(zip(tied_pool.pairs["topic"], tied_pool.pairs["doc"],
                                   strict=True), 1)
    assert policy.next_pairs(everything, n=3) == []
    assert policy.next_pairs({}, n=0) == []


def test_judgments_outside_the_pool_are_ignored(tied_pool):
    policy = make_policy("maxmean", tied_pool)
    assert policy.next_pairs({("nope", "x"): 1}, n=3) == policy.next_pairs({}, n=3)


def test_seeded_policies_are_reproducible_and_the_seed_matters(tied_pool):
    truth = random_truth(tied_pool, 4)
    plans = {seed: make_policy("thompson", tied_pool, seed=seed).plan(truth) for seed in (0, 1)}
    np.testing.assert_array_equal(plans[0], make_policy("thompson", tied_pool, seed=0).plan(truth))
    assert not np.array_equal(plans[0], plans[1])


@pytest.mark.parametrize(("spec", "seed"), [("maxmean(alpha=0)", 0), ("mtf", -1)])
def test_bad_adaptive_parameters_are_refused(tied_pool, spec, seed):
    with pytest.raises(InputError):
        make_policy(spec, tied_pool, seed=seed)
