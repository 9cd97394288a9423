"""What a review topic does next, from hand-made pairs and labels (no database)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pooljudge.annotate.review_records import ReviewSettings, ReviewTopicState
from pooljudge.annotate.review_rules import Topic, decide, next_batch, sample_positives
from pooljudge.pooling.stopping import hypergeometric_p, qbcb_positives, relevant_interval


def topic(rule: str, phase: str, labels: list[int], *, n: int = 20, draws: dict | None = None,
          positions: list[int] | None = None, due: int = 1, ranked: int = 0,
          target: float = 0.5, alpha: float = 0.5) -> Topic:
    """Pairs 1..n (document = pair); the first len(labels) pairs labelled in that order."""
    draws = draws or {}
    pairs = pd.DataFrame({"pair_id": np.arange(1, n + 1), "document_id": np.arange(1, n + 1),
                          "queue_pos": positions or list(range(n)),
                          "judged": [1 if i < len(labels) else 0 for i in range(n)],
                          "draw": [draws.get(i + 1, -1) for i in range(n)]})
    frame = pd.DataFrame({"pair_id": np.arange(1, len(labels) + 1), "label": labels,
                          "first": np.arange(1, len(labels) + 1),
                          "ids": [(10 + i,) for i in range(len(labels))],
                          "labels": [(x,) for x in labels]})
    settings = ReviewSettings(1, rule, target, alpha, 0)
    state = ReviewTopicState(1, "t", phase, ranked, due, 1, n)
    return Topic(settings, state, pairs, frame, 99)


def test_bmi_batches():
    sizes, b = [], 1
    for _ in range(12):
        sizes.append(b)
        b = next_batch(b)
    assert sizes == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13]


def test_retrain_once_a_batch_is_in_and_not_twice():
    assert decide(topic("knee", "rank", [1, 0], due=2)).action == "retrain"
    assert decide(topic("knee", "rank", [1], due=2)).action == "none"
    assert decide(topic("knee", "rank", [1, 0], due=2, ranked=2)).action == "none"
    d = decide(topic("knee", "rank", [1, 0, 0], due=2))
    assert d.train["pair_id"].tolist() == [1, 2, 3] and d.train["relevant"].tolist() == [1, 0, 0]
    assert d.rank.tolist() == list(range(4, 21))


def test_every_document_judged_is_certified_exhausted():
    d = decide(topic("knee", "rank", [1, 0, 1, 0], n=4))
    c = d.certificate
    assert d.action == "certify" and c.exhausted and (c.reviewed, c.relevant_found) == (4, 2)
    assert (c.remaining, c.remaining_low, c.remaining_high) == (0.0, 0, 0)
    assert c.judgments == (10, 11, 12, 13) and d.labels == (1, 0, 1, 0)


def test_hypergeometric_switches_to_a_sample_then_certifies_on_it():
    ranked = [1] * 5 + [0] * 40
    p = hypergeometric_p(np.array(ranked), 100, 0.5)
    assert p < 0.5
    assert decide(topic("hypergeometric", "rank", ranked, n=100)).action == "sample"
    sample = {46 + i: i for i in range(54)}  # every unlabelled pair, in draw order
    labels = ranked + [0] * 10
    d = decide(topic("hypergeometric", "sample", labels, n=100, draws=sample))
    want = hypergeometric_p(np.array(labels), 100, 0.5, window=10)
    assert want < 0.5 and d.action == "certify"
    c = d.certificate
    assert c.p_value == want and (c.sample_size, c.sample_relevant) == (10, 0)
    est, low, high = relevant_interval(0, 10, 100 - 45, 0.5)
    assert (c.remaining, c.remaining_low, c.remaining_high) == (est, low, high)


def test_target_ends_its_sample_at_t_relevant_then_certifies_when_they_are_reached():
    # t = ceil(log 0.5 / log 0.5) = 1: the sample ends at its first relevant document
    sample = {1: 0, 2: 1, 3: 2}
    assert decide(topic("target", "sample", [0, 0], draws=sample)).action == "none"
    d = decide(topic("target", "sample", [0, 0, 1], draws=sample))
    assert d.action == "end_sample" and d.rank.tolist() == list(range(1, 21))
    # ranked: pair 3 (the relevant sample document) at position 5; pairs 4-5 unjudged before it
    positions = [10, 11, 5, 0, 1, *list(range(20, 35))]
    t = topic("target", "rank", [0, 0, 1], draws=sample, positions=positions, due=5)
    assert decide(t).action == "none"
    labels = [0, 0, 1, 1, 0]  # pairs 4 and 5 judged in the review: pair 3 is reached
    d = decide(topic("target", "rank", labels, draws=sample, positions=positions, due=9))
    c = d.certificate
    assert d.action == "certify" and (c.sample_size, c.sample_relevant) == (3, 1)
    est, low, high = relevant_interval(1, 3, 20, 0.5)
    assert c.remaining == pytest.approx(max(0.0, est - 2))
    assert (c.remaining_low, c.remaining_high) == (max(0, low - 2), max(0, high - 2))


def test_target_trains_only_on_labels_outside_its_sample():
    sample = {1: 0, 2: 1, 3: 2}
    positions = [10, 11, 30, 0, 1, *list(range(20, 30)), *list(range(31, 36))]
    d = decide(topic("target", "rank", [0, 0, 1, 1, 0], draws=sample, positions=positions,
                     due=2))
    assert d.action == "retrain" and d.train["pair_id"].tolist() == [4, 5]
    assert set(d.rank.tolist()) == {1, 2, 3, *range(6, 21)}


def test_qbcb_ends_its_sample_at_r_relevant_and_certifies_once_j_of_them_are_reached():
    # target 0.5, alpha 0.5: r = 3 sample relevant documents, j = 2 of them to reach
    assert qbcb_positives(0.5, 0.5) == 3
    assert sample_positives(ReviewSettings(1, "qbcb", 0.5, 0.5, 0)) == (3, 2)
    sample = {i: i - 1 for i in range(1, 7)}  # pairs 1..6 drawn in that order
    assert decide(topic("qbcb", "sample", [1, 0, 1, 0, 0], draws=sample)).action == "none"
    d = decide(topic("qbcb", "sample", [1, 0, 1, 0, 0, 1], draws=sample))
    assert d.action == "end_sample" and d.rank.tolist() == list(range(1, 21))
    # ranked: the sample's relevant pairs 1, 3, 6 at positions 0, 2, 30; the review's pairs
    # 7 and 8 at positions 1 and 3
    positions = [0, 10, 2, 11, 12, 30, 1, 3, *list(range(40, 52))]
    labels = [1, 0, 1, 0, 0, 1]
    t = topic("qbcb", "rank", labels, draws=sample, positions=positions, due=99)
    assert decide(t).action == "none"  # pair 7 is open above pair 3: 1 of 3 reached
    d = decide(topic("qbcb", "rank", [*labels, 0], draws=sample, positions=positions, due=99))
    c = d.certificate  # pair 8 is open above pair 6 only: 2 of 3 reached, j = 2
    assert d.action == "certify" and c.guarantee and c.rule == "qbcb"
    assert (c.sample_size, c.sample_relevant, c.reviewed, c.relevant_found) == (6, 3, 7, 3)


def test_qbcb_with_fewer_relevant_than_r_needs_them_all():
    sample = {1: 0, 2: 1}  # the sample stopped short of r = 3 with 2 relevant
    positions = [0, 2, 1, *list(range(10, 27))]
    t = topic("qbcb", "rank", [1, 1], draws=sample, positions=positions, due=99)
    assert decide(t).action == "none"  # pair 3 is open above pair 2
    t = topic("qbcb", "rank", [1, 1, 0], draws=sample, positions=positions, due=99)
    assert decide(t).action == "certify"
