"""Adaptive judging orders asked at claim time: the store follows pooling's policies exactly.

Runs on SQLite and on the real PostgreSQL (the ``engine``/``db_url`` fixtures)."""

from __future__ import annotations

import io
import multiprocessing
import uuid

import numpy as np
import pandas as pd
import pytest
import sqlalchemy as sa
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import (
    add_annotator,
    annotator_id,
    create_campaign,
    get_campaign,
    judgments_frame,
    next_pair,
    record_judgment,
    session_scope,
)
from pooljudge.annotate.store.adaptive_queue import BATCH, rerank_queue, run_ranks
from pooljudge.annotate.store.models import Pair
from pooljudge.pooling import Pool, build_pool, global_sequence, make_policy

from pooljudge.cli import main
from pooljudge.cli.simulate_cmd import simulate_worker
from pooljudge.errors import InputError
from pooljudge.formats.trec import write_pool, write_qrels, write_run

WORKERS = 4


def _runs(seed: int, *, n_topics: int = 3, n_runs: int = 4, n_docs: int = 30,
          depth: int = 12) -> dict[str, pd.DataFrame]:
    """Runs of ``depth`` distinct random documents per topic, scores without ties."""
    rng = np.random.default_rng(seed)
    runs = {}
    for r in range(n_runs):
        rows = [(f"{100 + t}", f"D{d:03d}", float(depth - i) + rng.random() / 10)
                for t in range(n_topics)
                for i, d in enumerate(rng.choice(n_docs, size=depth, replace=False))]
        runs[f"run{r}"] = pd.DataFrame(rows, columns=["topic", "doc", "score"])
    return runs


def _truth(pool: Pool, seed: int, share: float = 0.3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    labels = (rng.random(len(pool.pairs)) < share).astype(int)
    return pool.pairs[["topic", "doc"]].assign(label=labels)


def _collection(pool: Pool) -> dict[str, pd.DataFrame]:
    pairs = pool.pairs
    topics = pd.DataFrame({"id": pd.unique(pairs["topic"]), "title": "t", "description": "d",
                           "narrative": "n"})
    docs = pd.DataFrame({"id": sorted(set(pairs["doc"])), "title": "", "text": "x"})
    frame = pairs[["topic", "doc", "best_rank", "runs"]].assign(
        order=pairs.groupby("topic").cumcount() + 1)
    return {"topics": topics, "documents": docs, "pool": frame}


def _create(engine, pool: Pool, order: str, *, overlap: int = 1, seed: int = 0,
            annotators: int = 1) -> tuple[str, list[int]]:
    name = f"c-{uuid.uuid4().hex[:8]}"
    with session_scope(engine) as session:
        create_campaign(session, name=name, scale=LabelScale.binary(), overlap=overlap,
                        order=order, seed=seed, run_ranks=run_ranks(pool), **_collection(pool))
        for i in range(annotators):
            add_annotator(session, campaign=name, name=f"a{i}")
    with session_scope(engine) as session:
        ids = [annotator_id(session, campaign=name, name=f"a{i}") for i in range(annotators)]
    return name, ids


def _replay(engine, annotator: int, truth: pd.DataFrame) -> list[tuple[str, str]]:
    """One annotator judges with the truth's labels until the queue is empty."""
    labels = dict(zip(zip(truth["topic"], truth["doc"], strict=True), truth["label"],
                      strict=True))
    seen = []
    while True:
        with session_scope(engine) as session:
            view = next_pair(session, annotator_id=annotator)
            if view is None:
                return seen
            seen.append((view.topic_id, view.doc_id))
            record_judgment(session, annotator_id=annotator, pair_id=view.pair_id,
                            label=int(labels.get((view.topic_id, view.doc_id), 0)))


def _planned(pool: Pool, order: str, truth: pd.DataFrame | None, seed: int = 0):
    plan = make_policy(order, pool, seed=seed).plan(truth)
    rows = global_sequence(pool, plan)
    return list(zip(pool.pairs["topic"].to_numpy()[rows], pool.pairs["doc"].to_numpy()[rows],
                    strict=True))


@pytest.mark.parametrize("order", ["mtf", "maxmean", "thompson(alpha=0.5)"])
def test_single_annotator_follows_the_policy_plan(engine, order):
    pool = build_pool(_runs(1), 12)
    truth = _truth(pool, 2)
    _name, (annotator,) = _create(engine, pool, order, seed=7)
    assert _replay(engine, annotator, truth) == _planned(pool, order, truth, seed=7)


def test_queue_starts_in_the_plan_before_any_judgment(engine):
    pool = build_pool(_runs(3), 12)
    name, _ = _create(engine, pool, "maxmean", seed=5)
    with session_scope(engine) as session:
        rows = session.execute(sa.text(
            "SELECT t.key, d.key FROM pair p JOIN topic t ON t.id = p.topic_id "
            "JOIN document d ON d.id = p.document_id JOIN campaign c ON c.id = p.campaign_id "
            "WHERE c.name = :n ORDER BY p.queue_pos"), {"n": name}).all()
        assert get_campaign(session, name=name).order == "maxmean"
    assert [tuple(r) for r in rows] == _planned(pool, "maxmean", None, seed=5)


def test_move_to_front_stays_on_the_first_run_when_all_is_relevant(engine):
    pool = build_pool(_runs(4), 12)
    truth = pool.pairs[["topic", "doc"]].assign(label=1)
    _name, (annotator,) = _create(engine, pool, "mtf")
    seen = pd.DataFrame(_replay(engine, annotator, truth), columns=["topic", "doc"])
    first = _runs(4)["run0"]
    for topic, docs in seen.groupby("topic", sort=False)["doc"]:
        top = first[first["topic"] == topic].sort_values("score", ascending=False)["doc"]
        assert docs.tolist()[:len(top)] == top.tolist()


def test_queue_is_re_ranked_only_after_a_new_judgment(engine):
    pool = build_pool(_runs(5), 12)
    name, (annotator,) = _create(engine, pool, "mtf")
    with session_scope(engine) as session:
        campaign_id = get_campaign(session, name=name).id
        view = next_pair(session, annotator_id=annotator)
        record_judgment(session, annotator_id=annotator, pair_id=view.pair_id, label=0)
    with session_scope(engine) as session:
        assert rerank_queue(session, campaign_id=campaign_id)
        assert not rerank_queue(session, campaign_id=campaign_id)
        moved = session.execute(sa.select(sa.func.count()).where(
            Pair.campaign_id == campaign_id, Pair.open_slots > 0, Pair.queue_pos <= 0)
        ).scalar_one()
    assert moved == BATCH  # the open pairs were at 1, 2, ...; the batch now sits before them


def test_adaptive_orders_are_refused_without_run_ranks_or_by_topic(engine):
    pool = build_pool(_runs(6), 12)
    with session_scope(engine) as session, pytest.raises(InputError, match="runs"):
        create_campaign(session, name="x", scale=LabelScale.binary(), order="maxmean",
                        **_collection(pool))
    with session_scope(engine) as session, pytest.raises(InputError, match="by pair"):
        create_campaign(session, name="x", scale=LabelScale.binary(), order="mtf",
                        assign_mode="topic", run_ranks=run_ranks(pool), **_collection(pool))
    partial = run_ranks(pool).query("run != 'run0'")
    with session_scope(engine) as session, pytest.raises(InputError, match="no run's ranking"):
        create_campaign(session, name="x", scale=LabelScale.binary(), order="mtf",
                        run_ranks=partial, **_collection(pool))
    with session_scope(engine) as session, pytest.raises(InputError, match="unknown judging"):
        create_campaign(session, name="x", scale=LabelScale.binary(), order="rrf",
                        run_ranks=run_ranks(pool), **_collection(pool))


def test_parallel_adaptive_judging_gives_each_pair_exactly_k(engine, db_url):
    pool = build_pool(_runs(7, n_topics=4, depth=15), 15)
    name, ids = _create(engine, pool, "maxmean", overlap=2, annotators=8)
    truth = _truth(pool, 8)
    labels = dict(zip(zip(truth["topic"], truth["doc"], strict=True),
                      truth["label"].tolist(), strict=True))
    jobs = [(db_url, ids[w::WORKERS], labels, [0, 1], 0.0, w) for w in range(WORKERS)]
    with multiprocessing.get_context("spawn").Pool(WORKERS) as workers:
        written = workers.starmap(simulate_worker, jobs)
    with session_scope(engine) as session:
        frame = judgments_frame(session, campaign=name, latest_only=False)
    assert sum(written) == 2 * len(pool.pairs) == len(frame)
    per_pair = frame.groupby(["topic", "doc"])["annotator"].agg(["size", "nunique"])
    assert len(per_pair) == len(pool.pairs)
    assert (per_pair["size"] == 2).all() and (per_pair["nunique"] == 2).all()


def _write_inputs(tmp_path, runs: dict[str, pd.DataFrame], pool: Pool) -> list[str]:
    paths = []
    for name, run in runs.items():
        write_run(run, tmp_path / name)
        paths.append(str(tmp_path / name))
    collection = _collection(pool)
    collection["topics"].to_csv(tmp_path / "topics.tsv", sep="\t", index=False)
    collection["documents"].to_json(tmp_path / "docs.jsonl", orient="records", lines=True)
    write_pool(collection["pool"], tmp_path / "pool.tsv")
    write_qrels(_truth(pool, 9), tmp_path / "qrels.txt")
    return paths


def test_cli_init_with_runs_then_simulate_completes(tmp_path, monkeypatch, capsys):
    runs = _runs(10, n_topics=2, depth=8)
    pool = build_pool(runs, 8)
    paths = _write_inputs(tmp_path, runs, pool)
    monkeypatch.setenv("POOLJUDGE_DB", f"sqlite:///{tmp_path / 'p.db'}")
    monkeypatch.chdir(tmp_path)
    base = ["init", "c", "--topics", "topics.tsv", "--docs", "docs.jsonl", "--pool", "pool.tsv"]
    assert main([*base, "--order", "maxmean"]) == 2
    assert "--runs" in capsys.readouterr().err
    assert main([*base, "--order", "bogus", "--runs", *paths]) == 2
    assert main([*base, "--order", "ts", "--runs", *paths, "--seed", "3"]) == 0
    assert "order thompson" in capsys.readouterr().out
    assert main(["simulate", "annotators", "--campaign", "c", "--truth", "qrels.txt",
                 "--annotators", "2", "--workers", "2"]) == 0
    capsys.readouterr()
    assert main(["campaigns", "show", "c", "--format", "tsv"]) == 0
    shown = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t")
    assert (shown["judgments_done"] == shown["judgments_needed"]).all()


def _found_at(seen: list[tuple[str, str]], truth: pd.DataFrame, share: float) -> float:
    relevant = set(map(tuple, truth.loc[truth["label"] > 0, ["topic", "doc"]].to_numpy()))
    head = seen[: int(len(seen) * share)]
    return sum(pair in relevant for pair in head) / len(relevant)


@pytest.mark.slow
def test_maxmean_finds_relevant_documents_earlier_than_document_order(engine):
    """Two good runs rank the relevant documents high; two poor runs retrieve noise."""
    rng = np.random.default_rng(11)
    runs, truth_rows = {}, []
    for t in range(4):
        topic = f"{200 + t}"
        ids = [f"D{t}-{i:02d}" for i in rng.permutation(72)]
        relevant, noise = ids[:12], ids[12:]
        truth_rows += [(topic, d, 1) for d in relevant]
        for r in range(4):
            good = r < 2
            docs = list(rng.permutation(relevant))[:10] + list(rng.choice(noise, 10, False)) \
                if good else list(rng.choice(noise, 20, False))
            rows = [(topic, d, 20.0 - i) for i, d in enumerate(docs)]
            runs.setdefault(f"run{r}", []).extend(rows)
    runs = {k: pd.DataFrame(v, columns=["topic", "doc", "score"]) for k, v in runs.items()}
    pool = build_pool(runs, 20)
    truth = pd.DataFrame(truth_rows, columns=["topic", "doc", "label"])
    _adaptive, (a,) = _create(engine, pool, "maxmean")
    _by_docid, (b,) = _create(engine, pool, "pool")  # pool order = document id
    early_adaptive = _found_at(_replay(engine, a, truth), truth, 0.3)
    early_docid = _found_at(_replay(engine, b, truth), truth, 0.3)
    assert early_adaptive > early_docid + 0.2


def test_a_withdrawn_or_cannot_judge_vote_leaves_the_pair_unjudged_for_the_policy() -> None:
    from pooljudge.annotate.store.adaptive_queue import _State

    state = _State(policy=None, keys={1: ("t", "d1")}, ids={("t", "d1"): 1})
    assert state.absorb([(1, 10, 1, 1), (1, 11, 1, 0)]) and state.judged == {("t", "d1"): 0}
    assert state.absorb([(1, 11, 2, None)]) and state.judged == {("t", "d1"): 1}
    assert state.absorb([(1, 10, 2, None)]) and state.judged == {}  # nobody's label stands
    assert not state.absorb([(1, 10, 2, None)])                       # idempotent


def test_an_adaptive_order_makes_no_forecast(engine):
    """The policy re-ranks the queue at claim time: store.peek_next_pair makes no forecast."""
    from pooljudge.annotate.store import next_pair, peek_next_pair

    _, (ann,) = _create(engine, build_pool(_runs(6), 12), "maxmean")
    with session_scope(engine) as session:
        held = next_pair(session, annotator_id=ann)
    with session_scope(engine, readonly=True) as session:
        assert peek_next_pair(session, annotator_id=ann, held_pair_id=held.pair_id) is None
