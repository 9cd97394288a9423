"""CAL (BMI style) on generated collections: batches, ranking, replay, certificates."""

from __future__ import annotations

import numpy as np
import pytest
from pooljudge.pooling.cal import CalRanker, batch_sizes, collection_features
from pooljudge.pooling.replay import replay, replay_rules
from pooljudge.pooling.stopping import RULES, target_sample_size

from pooljudge.errors import UsageError


def generated(n_docs: int, n_relevant: int, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """Documents of random filler words; the relevant ones also use a few topic words."""
    rng = np.random.default_rng(seed)
    filler = [f"w{i}" for i in range(3000)]
    topical = ["turbulent", "boundary", "layer", "hypersonic", "shock", "wave"]
    texts, truth = [], np.zeros(n_docs, dtype=np.int64)
    truth[rng.choice(n_docs, n_relevant, replace=False)] = 1
    for rel in truth:
        words = list(rng.choice(filler, 40))
        if rel:
            words += [*rng.choice(topical, 4), "shock"]
        elif rng.random() < 0.05:
            words += list(rng.choice(topical, 1))
        texts.append(" ".join(words))
    return texts, truth


def test_batch_sizes_grow_as_in_bmi():
    sizes = batch_sizes(10_000)
    expected, b = [], 1
    while sum(expected) + b < 10_000:
        expected.append(b)
        b += -(-b // 10)
    assert sizes[:len(expected)] == expected
    assert sum(sizes) == 10_000
    assert sizes[:12] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13]


def test_ranker_puts_relevant_documents_first():
    texts, truth = generated(2000, 20)
    docs, topics = collection_features(texts, ["hypersonic shock wave boundary layer"])
    ranker = CalRanker(docs, topics[0])
    first = ranker.next_batch(np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), 20)
    assert truth[first].mean() > 0.5  # random order would give 0.01
    judged = first
    again = ranker.next_batch(judged, truth[judged], 30)
    assert not set(again) & set(judged)  # never a judged document twice
    assert len(set(again)) == 30


def test_features_are_computed_once_per_collection():
    texts, _ = generated(300, 5)
    docs, topics = collection_features(texts, ["shock", "wave layer"])
    assert docs.shape[0] == 300 and topics.shape == (2, docs.shape[1])


@pytest.mark.parametrize("rule", RULES)
def test_replay_stops_with_a_certificate(rule):
    texts, truth = generated(3000, 40, seed=1)
    docs, topics = collection_features(texts, ["hypersonic shock wave boundary layer"])
    result = replay(docs, topics[0], truth, rule=rule, target=0.9, alpha=0.05)
    cert = result.certificate
    assert cert.rule == rule and cert.guarantee == (rule in ("hypergeometric", "target", "qbcb"))
    assert result.relevant_total == 40
    assert cert.relevant_found == result.relevant_found
    assert result.recall == result.relevant_found / 40
    if rule == "hypergeometric":
        assert not cert.exhausted and cert.p_value < 0.05 and cert.recall_bound == 0.9
        assert result.judged < 3000
    if rule == "target":
        assert cert.sample_relevant == 29 and cert.sample_size >= 29  # ceil(log .05/log .9)
        assert cert.sample_quota == 29
    if rule == "qbcb":  # r = 40 > the 40 relevant: the sample is the whole collection
        assert cert.sample_relevant == 40 and cert.sample_size == 3000
    if rule == "quant":
        assert not cert.exhausted and cert.recall_estimate >= 0.9
    if rule == "quantci":  # its lower bound may never reach the target: then all is judged
        assert cert.exhausted or cert.recall_estimate >= 0.9
    assert result.recall >= 0.9 or not cert.guarantee


def test_one_trajectory_stops_every_rule_where_it_alone_would():
    texts, truth = generated(2000, 60, seed=4)
    docs, topics = collection_features(texts, ["hypersonic shock wave boundary layer"])
    together = replay_rules(docs, topics[0], truth, RULES, target=0.8, alpha=0.05, seed=3)
    for rule in RULES:
        assert together[rule] == replay(docs, topics[0], truth, rule=rule, target=0.8,
                                        alpha=0.05, seed=3)
    assert len({result.judged for result in together.values()}) > 2
    # QuantCI's bound never exceeds Quant's estimate on the same model: it stops no earlier
    assert together["quantci"].judged >= together["quant"].judged


def test_qbcb_with_the_target_methods_sample_is_the_target_method():
    texts, truth = generated(2000, 60, seed=5)
    docs, topics = collection_features(texts, ["hypersonic shock wave boundary layer"])
    t = target_sample_size(0.8, 0.05)
    both = replay_rules(docs, topics[0], truth, ["target", "qbcb"], target=0.8, alpha=0.05,
                        positives=t)
    assert both["qbcb"].certificate.sample_quota == t
    assert both["qbcb"].judged == both["target"].judged
    assert both["qbcb"].relevant_found == both["target"].relevant_found


def test_qbcb_stops_after_j_of_r_sample_relevant_found():
    texts, truth = generated(3000, 200, seed=6)
    docs, topics = collection_features(texts, ["hypersonic shock wave boundary layer"])
    cert = replay(docs, topics[0], truth, rule="qbcb", target=0.8, alpha=0.05).certificate
    assert (cert.sample_relevant, cert.sample_quota) == (22, 21) and not cert.exhausted


def test_qbcb_refuses_a_sample_too_small_to_certify():
    texts, truth = generated(100, 3)
    docs, topics = collection_features(texts, ["shock"])
    with pytest.raises(UsageError, match=r"--positives: 10 .* need at least 59"):
        replay(docs, topics[0], truth, rule="qbcb", positives=10)


def test_replay_rejects_bad_rule():
    texts, truth = generated(100, 3)
    docs, topics = collection_features(texts, ["shock"])
    with pytest.raises(UsageError, match="--stopping"):
        replay(docs, topics[0], truth, rule="guess")


def test_a_rule_still_running_when_all_is_judged_is_exhausted():
    texts, truth = generated(120, 3, seed=2)
    docs, topics = collection_features(texts, ["hypersonic shock wave boundary layer"])
    results = replay_rules(docs, topics[0], truth, ["hypergeometric", "knee"], target=0.95,
                           alpha=0.05)
    for result in results.values():  # 3 relevant of 120: neither can stop before the end
        cert = result.certificate
        assert cert.exhausted and result.judged == 120 and result.recall == 1.0
        assert cert.p_value is None and cert.recall_bound is None
