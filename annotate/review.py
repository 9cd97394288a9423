"""Review campaigns: a collection and topics judged in CAL's order until a rule certifies recall.

Made by :func:`create_review` (``pooljudge init --review``): every (topic, document) of the
collection is a pair of an ordinary campaign (so the judging pane, claims, overlap, undo and
exports are the pooled campaigns'), queued in a *seed ranking* per topic — the runs' best rank
first when runs are given, then tf-idf cosine similarity to the topic's text
(:func:`pooljudge.pooling.cal.collection_features`) — and marked a review
(:func:`pooljudge.annotate.store.start_review`). The target rule starts each topic on its
random sample.

Afterwards :func:`update_topic` moves a topic on by the steps of
:mod:`pooljudge.annotate.review_rules`: retrain CAL (:class:`pooljudge.pooling.cal.CalRanker`)
once a BMI batch of labels is in and store the new ranking's front (:func:`_front`), switch the
queue to a random sample, end the target method's sample, certify. Each step reads the topic in
one read-only transaction, computes *outside* any transaction, and writes in one short
transaction that discards an outdated result (:mod:`pooljudge.annotate.store.review`). It never
runs in a claim or a label's transaction: the judging page hands the topic to
:mod:`pooljudge.annotate.review_worker` after its label is stored, and the annotator goes on
with the stored ranking meanwhile. The tf-idf features are computed once per campaign and
process (:func:`features`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from pooljudge.annotate import store
from pooljudge.annotate.campaigns import (
    CampaignPlan,
    CampaignSettings,
    CreatedCampaign,
    Runs,
    plan_campaign,
    store_campaign,
)
from pooljudge.annotate.records import QUANT_RULES, SAMPLE_FIRST_RULES, STOP_RULES
from pooljudge.annotate.review_records import ReviewCertificate, ReviewTopicState
from pooljudge.annotate.review_rules import Decision, Topic, decide, next_batch, quant_decision
from pooljudge.pooling.cal import CalRanker, collection_features
from pooljudge.pooling.pool import build_pool
from sqlalchemy import Engine
from sqlmodel import Session

from pooljudge.errors import InputError

__all__ = ["create_review", "features", "plan_review", "review_table", "update_campaign",
           "update_topic"]

DEFAULT_DEPTH = 1000  # run ranks kept to seed the first ranking
FRONT = 200  # a retrain moves at least this many of its best pairs to the topic's front


def plan_review(settings: CampaignSettings, *, topics: pd.DataFrame, documents: pd.DataFrame,
                runs: Runs | None = None, depth: int | None = None) -> CampaignPlan:
    """Every topic × document as a pool in each topic's seed ranking (``order`` 1 = first).

    ``best_rank``/``runs``: the pair's best rank in the ``runs`` (top ``depth``, default
    :data:`DEFAULT_DEPTH`) and the runs that retrieved it (0 and empty for none). InputError for
    no topics or documents, or a run's pair outside them."""
    if topics.empty or documents.empty:
        raise InputError("a review needs at least one topic and one document")
    t_ids = topics["id"].astype(str).to_numpy()
    d_ids = documents["id"].astype(str).to_numpy()
    doc_x, topic_x = collection_features(_document_texts(documents), _topic_texts(topics))
    similarity = np.asarray((doc_x @ topic_x.T).todense(), dtype=np.float64).T  # topics × docs
    pool = pd.DataFrame({"topic": np.repeat(t_ids, len(d_ids)), "doc": np.tile(d_ids, len(t_ids)),
                         "best_rank": np.zeros(len(t_ids) * len(d_ids), dtype=np.int64),
                         "runs": ""})
    ranks = None
    if runs is not None:
        ranks = store.run_ranks(build_pool(runs, depth or DEFAULT_DEPTH))
        pool = _with_runs(pool, ranks, t_ids, d_ids)
    retrieved = pool["best_rank"].to_numpy() > 0
    rank_key = np.where(retrieved, pool["best_rank"].to_numpy(), np.iinfo(np.int64).max)
    topic_code = np.repeat(np.arange(len(t_ids)), len(d_ids))
    sequence = np.lexsort((np.arange(len(pool)), -similarity.ravel(), rank_key, topic_code))
    order = np.empty(len(pool), dtype=np.int64)
    order[sequence] = np.arange(len(pool)) - topic_code[sequence] * len(d_ids) + 1
    pool["order"] = order
    plan = plan_campaign(settings, topics=topics, documents=documents,
                         pool=pool[["topic", "doc", "order", "best_rank", "runs"]])
    return CampaignPlan(plan.settings, plan.topics, plan.documents, plan.pool, ranks)


def _with_runs(pool: pd.DataFrame, ranks: pd.DataFrame, t_ids: np.ndarray, d_ids: np.ndarray
               ) -> pd.DataFrame:
    """``pool`` with each pair's best rank and runs; InputError for a run's unknown id."""
    t_index, d_index = pd.Index(t_ids), pd.Index(d_ids)
    t_at, d_at = t_index.get_indexer(ranks["topic"]), d_index.get_indexer(ranks["doc"])
    if (t_at < 0).any() or (d_at < 0).any():
        bad = ranks.iloc[int(np.argmax((t_at < 0) | (d_at < 0)))]
        raise InputError(f"run {bad['run']} retrieves topic {bad['topic']} document "
                         f"{bad['doc']}, which the topics or documents lack")
    row = t_at * len(d_ids) + d_at
    per = pd.DataFrame({"row": row, "run": ranks["run"].to_numpy(),
                        "rank": ranks["rank"].to_numpy()}).sort_values(["row", "run"])
    best = per.groupby("row")["rank"].min()
    names = per.groupby("row")["run"].agg(",".join)
    pool.loc[best.index, "best_rank"] = best.to_numpy()
    pool.loc[names.index, "runs"] = names.to_numpy()
    return pool


def _document_texts(documents: pd.DataFrame) -> list[str]:
    title = documents["title"].astype(str) if "title" in documents else ""
    return (title + "\n" + documents["text"].astype(str)).tolist()


def _topic_texts(topics: pd.DataFrame) -> list[str]:
    parts = [topics[c].astype(str) for c in ("title", "description", "narrative") if c in topics]
    return [" \n".join(row) for row in zip(*parts, strict=True)]


def create_review(target: Engine | Session, settings: CampaignSettings, *, topics: pd.DataFrame,
                  documents: pd.DataFrame, rule: str, recall: float, alpha: float,
                  runs: Runs | None = None, depth: int | None = None) -> CreatedCampaign:
    """Plan and store a review campaign in one transaction (all or nothing)."""
    if rule not in STOP_RULES:
        raise InputError(f"unknown stopping rule {rule!r}; choose from {', '.join(STOP_RULES)}")
    if settings.order != "pool":
        raise InputError("a review is queued by CAL: no --order")
    plan = plan_review(settings, topics=topics, documents=documents, runs=runs, depth=depth)
    if isinstance(target, Session):
        return _store(target, plan, rule, recall, alpha)
    with store.session_scope(target) as session:
        return _store(session, plan, rule, recall, alpha)


def _store(session: Session, plan: CampaignPlan, rule: str, recall: float, alpha: float
           ) -> CreatedCampaign:
    created = store_campaign(session, plan)
    settings = store.start_review(session, campaign=created.info.name, rule=rule,
                                  target=recall, alpha=alpha, seed=plan.settings.seed)
    if rule in SAMPLE_FIRST_RULES:  # the target method and QBCB draw their sample first
        for topic in store.review_topics(session, campaign_id=settings.campaign_id):
            store.start_sample(session, topic_id=topic.topic_id,
                               seed=_seed(settings.seed, topic.topic_id, 0))
    return created


def _seed(seed: int, topic_id: int, newest: int) -> int:
    return (seed * 1_000_003 + topic_id) * 1_000_003 + newest


# --- moving a topic on ----------------------------------------------------------------------

_FEATURES: dict[tuple[str, int], tuple[sp.csr_matrix, sp.csr_matrix, pd.Index, pd.Index]] = {}
_FEATURES_LOCK = threading.Lock()


def features(engine: Engine, campaign_id: int
             ) -> tuple[sp.csr_matrix, sp.csr_matrix, pd.Index, pd.Index]:
    """(document matrix, topic matrix, document ids, topic ids) of a campaign, computed once
    per process (the rows follow the ids' order)."""
    key = (str(engine.url), campaign_id)
    with _FEATURES_LOCK:
        cached = _FEATURES.get(key)
    if cached is not None:
        return cached
    with store.session_scope(engine, readonly=True) as session:
        docs, topics = store.review_texts(session, campaign_id=campaign_id)
    doc_x, topic_x = collection_features(docs["text"].tolist(), topics["text"].tolist())
    built = (doc_x, topic_x, pd.Index(docs["document_id"]), pd.Index(topics["topic_id"]))
    with _FEATURES_LOCK:
        return _FEATURES.setdefault(key, built)


def update_topic(engine: Engine, *, campaign_id: int, topic_id: int, steps: int = 4
                 ) -> list[str]:
    """Move a review topic on by up to ``steps`` steps; the steps taken (``retrain``,
    ``sample``, ``end_sample``, ``certify``; ``… discarded`` when another writer was first).
    Nothing for a campaign that is not a review."""
    done: list[str] = []
    for _ in range(steps):
        topic = _read(engine, campaign_id, topic_id)
        decision = Decision("none") if topic is None else decide(topic)
        if topic is None or decision.action == "none":
            break
        stored = _apply(engine, topic, decision)
        done.append(decision.action if stored else f"{decision.action} discarded")
        if not stored:
            break
    return done


def update_campaign(engine: Engine, *, campaign_id: int) -> dict[str, list[str]]:
    """:func:`update_topic` for every topic of a review (when no server did); by topic key."""
    with store.session_scope(engine, readonly=True) as session:
        topics = store.review_topics(session, campaign_id=campaign_id)
    return {t.topic: update_topic(engine, campaign_id=campaign_id, topic_id=t.topic_id)
            for t in topics}


def _read(engine: Engine, campaign_id: int, topic_id: int) -> Topic | None:
    with store.session_scope(engine, readonly=True) as session:
        settings = store.review_settings(session, campaign_id=campaign_id)
        if settings is None:
            return None
        states = [t for t in store.review_topics(session, campaign_id=campaign_id)
                  if t.topic_id == topic_id]
        if not states:
            return None
        pairs = store.review_pairs(session, topic_id=topic_id)
        labels, newest = store.review_labels(session, topic_id=topic_id)
    return Topic(settings, states[0], pairs, labels, newest)


def _apply(engine: Engine, topic: Topic, decision: Decision) -> bool:
    """Compute what ``decision`` needs (outside any transaction), then write it in one."""
    tid, settings = topic.state.topic_id, topic.settings
    args: dict[str, Any] = {"topic_id": tid}
    write: Callable[..., object]
    if decision.action == "retrain":
        ranking, stop = _retrain(engine, topic, decision)
        if stop is not None:  # Quant or QuantCI: the new model says the topic is done
            return _apply(engine, topic, stop)
        batch = next_batch(topic.state.batch)
        trained = 0 if decision.train is None else len(decision.train)
        args |= {"pair_ids": ranking, "trained": trained, "due": trained + batch,
                 "batch": batch, "front": _front(settings.rule, batch)}
        write = store.write_ranking
    elif decision.action == "sample":
        args["seed"] = _seed(settings.seed, tid, topic.newest)
        write = store.start_sample
    elif decision.action == "end_sample":
        args |= {"newest": topic.newest, "pair_ids": _ranking(engine, topic, decision)}
        write = store.end_sample
    else:
        args |= {"newest": topic.newest, "certificate": decision.certificate,
                 "labels": decision.labels}
        write = store.certify
    with store.session_scope(engine) as session:
        return bool(write(session, **args))


def _front(rule: str, batch: int) -> int | None:
    """How much of a new ranking is written: max(:data:`FRONT`, 4 × the next batch) pairs,
    enough for the batch judged before the next retrain (the rest of the queue keeps the order
    of earlier rankings, so a retrain writes few rows and holds its lock briefly); the whole
    ranking for the target rule and QBCB, whose stops read where the sample's documents rank."""
    return None if rule in SAMPLE_FIRST_RULES else max(FRONT, 4 * batch)


def _ranking(engine: Engine, topic: Topic, decision: Decision) -> np.ndarray:
    """The pairs of ``decision.rank`` best first: CAL's scores after training on
    ``decision.train`` (with none, the topic's tf-idf similarity)."""
    return _retrain(engine, topic, decision)[0]


def _retrain(engine: Engine, topic: Topic, decision: Decision
             ) -> tuple[np.ndarray, Decision | None]:
    """(:func:`_ranking`'s order, a certify decision when the retrained model stops a Quant or
    QuantCI topic: :func:`pooljudge.annotate.review_rules.quant_decision`)."""
    doc_x, topic_x, doc_ids, topic_ids = features(engine, topic.settings.campaign_id)
    query = topic_x[topic_ids.get_loc(topic.state.topic_id)]
    train = decision.train
    stop = None
    if train is None or train.empty:
        scores = np.asarray((doc_x @ query.T).todense()).ravel()
    else:
        ranker = CalRanker(doc_x, query, seed=_seed(topic.settings.seed, topic.state.topic_id,
                                                    topic.newest))
        rows = doc_ids.get_indexer(train["document_id"])
        scores, probabilities = ranker.fit(rows, train["relevant"].to_numpy(np.int64))
        if topic.settings.rule in QUANT_RULES:  # the other rules never read probabilities
            seen = topic.laid_out()
            reviewed = np.zeros(len(doc_ids), dtype=bool)
            reviewed[doc_ids.get_indexer(seen["document_id"])] = True
            stop = quant_decision(topic, seen, probabilities, reviewed)
    pairs = topic.pairs.set_index("pair_id")
    rank = np.asarray(decision.rank, dtype=np.int64)
    rows = doc_ids.get_indexer(pairs.loc[rank, "document_id"])
    return rank[np.lexsort((rank, -scores[rows]))], stop


_PHASE = {"rank": "ranked review", "sample": "random sample", "certified": "certified"}


def review_table(states: list[ReviewTopicState], certificates: list[ReviewCertificate]
                 ) -> pd.DataFrame:
    """One row per topic: phase and documents, then the certificate's figures (empty without
    one): reviewed, relevant_found, sample, sample_relevant, remaining (estimated relevant not
    found) and its interval, p_value, recall_estimate (Quant's), judgments (the count it rests
    on), stale."""
    by_topic = {c.topic: c for c in certificates}
    rows = []
    for state in states:
        c = by_topic.get(state.topic)
        row = {"topic": state.topic, "phase": _PHASE[state.phase], "documents": state.n_docs}
        if c is not None:
            row |= {"reviewed": c.reviewed, "relevant_found": c.relevant_found,
                    "sample": c.sample_size, "sample_relevant": c.sample_relevant,
                    "remaining": c.remaining,
                    "interval": (None if c.remaining_low is None
                                 else f"{c.remaining_low}-{c.remaining_high}"),
                    "p_value": c.p_value, "recall_estimate": c.recall_estimate,
                    "judgments": len(c.judgments), "stale": c.stale}
        rows.append(row)
    return pd.DataFrame(rows)
