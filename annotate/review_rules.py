"""What a review topic does next, decided from its pairs and labels; its certificate.

Pure (numpy, pandas, :mod:`pooljudge.pooling.stopping`): the statistics are the stopping
module's, this module only lays a topic's stored state out as the sequences they take.

Per rule and phase (``labels`` in labelling order, 1 = relevant = a label ≥ 1, ``n`` the
collection, ``m`` documents labelled):

- every rule: ``m == n`` → certified, ``exhausted`` (recall 1 by construction).
- ``knee`` (heuristic), phase ``rank``: :func:`knee_stop` over the labels → certified (no
  estimate of what remains); else a retrain once ``m`` reaches the due count.
- ``quant`` / ``quantci`` (heuristics), phase ``rank``: retrains as ``knee`` does; the test
  needs the retrained model's probabilities, so the review service applies it after each
  retrain (:func:`quant_decision`): from the third label on, :func:`quant_recall` ≥ τ →
  certified with the estimate (no estimate of what remains).
- ``hypergeometric``, phase ``rank``: the test over the ranking's last documents (BUSCAR's
  reading: the ranking's tail taken as a random sample, an assumption) below alpha → *sample*:
  the queue becomes a uniform random sample of the unlabelled remainder. Phase ``sample``:
  the same test restricted to windows inside the sample (``window`` = sample labels; exact, no
  assumption on the ranker) below alpha → certified with its p-value. Documents labelled outside
  the sample after the switch (claims made before it) are counted as reviewed before the
  sample. The test is applied after every label (sequential), as Callaghan & Müller-Hansen do.
- ``target``: phase ``sample`` first (from the start): a uniform random permutation of the
  collection, judged until it holds t = :func:`target_sample_size` relevant documents; then
  phase ``rank``: CAL trained only on the labels outside the sample (so the ranking does not
  depend on the sample), the sample's pairs ranked with the rest; certified once every
  relevant sample document ranks above every unlabelled document (the review has reached
  them).
- ``qbcb``: as ``target``, with r = :func:`qbcb_positives` relevant documents in the sample,
  certified once j = :func:`qbcb_quota` of them rank above every unlabelled document.

Relevant remaining: hypergeometric, from the sample (``k`` relevant of ``s`` drawn from the
``urn`` unlabelled at the switch): K̂ − k with the exact interval of
:func:`relevant_interval`, minus ``k``. Target and QBCB: the sample is drawn from the whole
collection: total relevant K̂ = k·n/s and its interval, minus the relevant found (floored at
0); the sample stops at its r-th relevant document (inverse sampling), so that interval is
approximate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from pooljudge.annotate.records import GUARANTEE_RULES, QUANT_RULES, SAMPLE_FIRST_RULES
from pooljudge.annotate.review_records import ReviewCertificate, ReviewSettings, ReviewTopicState
from pooljudge.pooling.stopping import (
    QUANTCI_STD,
    hypergeometric_p,
    knee_stop,
    qbcb_positives,
    qbcb_quota,
    quant_recall,
    relevant_interval,
    target_sample_size,
)

__all__ = ["QUANT_FIRST", "RELEVANT", "Decision", "Topic", "decide", "next_batch",
           "quant_decision", "sample_positives"]

RELEVANT = 1  # labels of at least this value are relevant (as for the adaptive orders)
QUANT_FIRST = 3  # Quant is tested once this many labels are in (two batches, as tarexp)


@dataclass(frozen=True)
class Topic:
    """A topic's review as read: ``pairs`` (pair_id, document_id, queue_pos, judged, draw) and
    ``labels`` (pair_id, label, first, ids, labels) in labelling order, with the newest
    judgment id they reflect."""

    settings: ReviewSettings
    state: ReviewTopicState
    pairs: pd.DataFrame
    labels: pd.DataFrame
    newest: int

    def laid_out(self) -> pd.DataFrame:
        """The labels with each pair's draw (−1: not in the sample) and a 0/1 ``relevant``."""
        out = self.labels.merge(self.pairs[["pair_id", "draw", "document_id"]], on="pair_id",
                                how="left", sort=False)
        out["relevant"] = (out["label"].to_numpy(np.int64) >= RELEVANT).astype(np.int64)
        return out


@dataclass(frozen=True)
class Decision:
    """``action``: none, retrain, sample, end_sample or certify; ``train``: the pairs (and
    0/1 labels) to train on; ``rank``: the pairs to rank; ``certificate`` to store."""

    action: str
    train: pd.DataFrame | None = None
    rank: np.ndarray | None = None
    certificate: ReviewCertificate | None = None
    labels: tuple[int, ...] = ()


def next_batch(batch: int) -> int:
    """BMI's next batch size: b + ceil(b / 10)."""
    return batch + -(-batch // 10)


def decide(topic: Topic) -> Decision:
    """The next step of ``topic`` (see the module docstring)."""
    state, settings = topic.state, topic.settings
    if state.phase == "certified":
        return Decision("none")
    seen = topic.laid_out()
    if len(seen) >= state.n_docs:
        return _certify(topic, seen, exhausted=True)
    rule = settings.rule
    if state.phase == "sample":
        return _sample_step(topic, seen)
    if rule == "knee" and knee_stop(seen["relevant"].to_numpy()):
        return _certify(topic, seen)
    if rule == "hypergeometric" and hypergeometric_p(
            seen["relevant"].to_numpy(), state.n_docs, settings.target) < settings.alpha:
        return Decision("sample")
    if rule in SAMPLE_FIRST_RULES and _sample_reached(topic, seen):
        return _certify(topic, seen)
    train = seen[seen["draw"] < 0] if rule in SAMPLE_FIRST_RULES else seen
    if len(train) >= state.due_count and len(train) > state.ranked_count:
        return Decision("retrain", train=train[["pair_id", "document_id", "relevant"]],
                        rank=_to_rank(topic))
    return Decision("none")


def quant_decision(topic: Topic, seen: pd.DataFrame, probabilities: np.ndarray,
                   reviewed: np.ndarray) -> Decision | None:
    """After a retrain of a Quant or QuantCI topic (``seen``: its :meth:`Topic.laid_out`):
    certify when the estimate of recall from the new model's ``probabilities`` (one per
    document) with ``reviewed`` (a mask over the same documents) reaches the target; None
    otherwise (and for every other rule)."""
    settings = topic.settings
    if settings.rule not in QUANT_RULES or len(seen) < QUANT_FIRST:
        return None
    nstd = QUANTCI_STD if settings.rule == "quantci" else 0.0
    estimate = quant_recall(probabilities, reviewed, nstd)
    if estimate < settings.target:
        return None
    return _certify(topic, seen, recall_estimate=estimate)


def _sample_step(topic: Topic, seen: pd.DataFrame) -> Decision:
    settings, n = topic.settings, topic.state.n_docs
    in_sample = seen["draw"].to_numpy() >= 0
    relevant = seen["relevant"].to_numpy()
    if settings.rule in SAMPLE_FIRST_RULES:
        if relevant[in_sample].sum() >= sample_positives(settings)[0]:
            return Decision("end_sample", rank=_to_rank(topic))
        return Decision("none")
    labels = np.concatenate([relevant[~in_sample], relevant[in_sample]])
    p = hypergeometric_p(labels, n, settings.target, window=int(in_sample.sum()))
    return _certify(topic, seen, p_value=p) if p < settings.alpha else Decision("none")


def _to_rank(topic: Topic) -> np.ndarray:
    """Pair ids to rank: every unlabelled pair, and (target, QBCB) the sample's pairs."""
    pairs = topic.pairs
    keep = pairs["judged"].to_numpy() == 0
    if topic.settings.rule in SAMPLE_FIRST_RULES:
        keep |= pairs["draw"].to_numpy() >= 0
    return pairs["pair_id"].to_numpy()[keep]


def sample_positives(settings: ReviewSettings) -> tuple[int, int]:
    """(r, j): relevant documents a sample-first rule draws, and how many of them the review
    must reach: (t, t) for the target method, (:func:`qbcb_positives`, its quota) for QBCB."""
    if settings.rule == "target":
        t = target_sample_size(settings.target, settings.alpha)
        return t, t
    r = qbcb_positives(settings.target, settings.alpha)
    return r, int(qbcb_quota(r, settings.target, settings.alpha) or r)


def _sample_reached(topic: Topic, seen: pd.DataFrame) -> bool:
    """At least j of the sample's relevant documents (all, when it holds fewer than r) rank
    above every unlabelled document: the review has reached them."""
    found = seen.loc[(seen["draw"] >= 0) & (seen["relevant"] == 1), "pair_id"]
    pairs = topic.pairs
    if not len(found):
        return False
    r, quota = sample_positives(topic.settings)
    if len(found) < r:  # a sample of the whole collection: every relevant document
        quota = len(found)
    unlabelled = pairs.loc[pairs["judged"] == 0, "queue_pos"]
    first_open = unlabelled.min() if len(unlabelled) else np.inf
    reached = pairs.loc[pairs["pair_id"].isin(found), "queue_pos"] < first_open
    return int(reached.sum()) >= quota


def _certify(topic: Topic, seen: pd.DataFrame, *, exhausted: bool = False,
             p_value: float | None = None, recall_estimate: float | None = None) -> Decision:
    settings, n = topic.settings, topic.state.n_docs
    in_sample = seen["draw"].to_numpy() >= 0
    relevant = seen["relevant"].to_numpy()
    found, reviewed = int(relevant.sum()), len(seen)
    size, k = int(in_sample.sum()), int(relevant[in_sample].sum())
    drew = settings.rule in GUARANTEE_RULES and (size > 0 or settings.rule in SAMPLE_FIRST_RULES)
    estimate = _remaining(settings, n, reviewed, found, size, k, exhausted)
    ids = tuple(int(i) for group in seen["ids"] for i in group)
    labels = tuple(int(x) for group in seen["labels"] for x in group)
    certificate = ReviewCertificate(
        topic=topic.state.topic, rule=settings.rule, guarantee=settings.rule in GUARANTEE_RULES,
        target=settings.target, alpha=settings.alpha, reviewed=reviewed, relevant_found=found,
        n_docs=n, sample_size=size if drew else None, sample_relevant=k if drew else None,
        remaining=None if estimate is None else estimate[0],
        remaining_low=None if estimate is None else estimate[1],
        remaining_high=None if estimate is None else estimate[2],
        p_value=p_value, exhausted=exhausted, judgments=ids, recall_estimate=recall_estimate)
    return Decision("certify", certificate=certificate, labels=labels)


def _remaining(settings: ReviewSettings, n: int, reviewed: int, found: int, size: int, k: int,
               exhausted: bool) -> tuple[float, int, int] | None:
    """(estimate, low, high) of relevant documents not found; None for the heuristic."""
    if exhausted:
        return 0.0, 0, 0
    if settings.rule not in GUARANTEE_RULES or size == 0:
        return None
    if settings.rule == "hypergeometric":
        total, low, high = relevant_interval(k, size, n - (reviewed - size), settings.alpha)
        return total - k, low - k, high - k
    total, low, high = relevant_interval(k, size, n, settings.alpha)
    return max(0.0, total - found), max(0, low - found), max(0, high - found)
