"""Next-pair latency and claim throughput of the judgment store, SQLite and PostgreSQL.

A campaign of ``--pairs`` pairs (1,000 topics) with overlap ``--prior + 2`` is created through
:func:`pooljudge.annotate.store.create_campaign`; ``--prior`` annotators' judgments of every pair
(``pairs × prior`` rows, 1,000,000 by default) are bulk-loaded through
:func:`pooljudge.annotate.store.import_judgments`, so every pair keeps 2 open slots. Then, for 1, 4
and 8
worker processes, each with a fresh annotator, every worker runs ``--claims`` cycles of
claim (:func:`next_pair`, one transaction) + judge (:func:`record_judgment`, one transaction),
with no pause between pairs (every worker is always claiming or judging: a saturation test).
Printed: next-pair latency p50/p95 (the claim transaction, commit included), the judgment
transaction's p95, and claims per second over the wall time of the run. Then the same workers
run ``--claims`` key presses as the browser does them: one transaction that records the judgment
of the pair on screen and claims the next (``press_p50_ms``, ``press_p95_ms``, ``presses_per_s``).

    .venv/bin/python benchmarks/store_speed.py [--pairs 100000] [--prior 10] [--claims 200]
        [--backends sqlite,postgresql]

PostgreSQL: the server on 127.0.0.1:5432 (user postgres); a database is created and dropped.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

CAMPAIGN = "bench"
PG = "postgresql+psycopg://postgres@127.0.0.1:5432/{}"


def collection(pairs: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Topics, documents and pool of ``pairs`` pairs: 1,000 topics × ``pairs // 1000`` docs."""
    topics_n, docs_n = 1000, pairs // 1000
    topics = pd.DataFrame({"id": [f"T{i}" for i in range(topics_n)], "title": "a topic",
                           "description": "what is wanted", "narrative": "what counts"})
    documents = pd.DataFrame({"id": [f"D{j}" for j in range(docs_n)], "title": "a document",
                              "text": "some text " * 50})
    pool = pd.DataFrame({"topic": np.repeat(topics["id"].to_numpy(), docs_n),
                         "doc": np.tile(documents["id"].to_numpy(), topics_n),
                         "order": np.tile(np.arange(1, docs_n + 1), topics_n),
                         "best_rank": 1, "runs": "r1"})
    return topics, documents, pool


def create(engine, pairs: int, *, scale, overlap: int,
           annotators: dict[str, str]) -> pd.DataFrame:
    """Create the campaign of ``pairs`` pairs with ``annotators`` (name -> role); its pool."""
    from pooljudge.annotate.store import add_annotator, create_campaign, session_scope

    topics, documents, pool = collection(pairs)
    with session_scope(engine) as session:
        create_campaign(session, name=CAMPAIGN, scale=scale, overlap=overlap,
                        topics=topics, documents=documents, pool=pool)
        for name, role in annotators.items():
            add_annotator(session, campaign=CAMPAIGN, name=name, role=role)
    return pool


def import_frame(engine, frame: pd.DataFrame) -> None:
    """Bulk-load ``frame`` (annotator, topic, doc, label [, kind]) into the campaign."""
    from pooljudge.annotate.store import import_judgments, session_scope

    with session_scope(engine) as session:
        import_judgments(session, campaign=CAMPAIGN, frame=frame)


def load(url: str, pairs: int, prior: int) -> float:
    """Create the campaign and bulk-load ``pairs × prior`` judgments; seconds taken."""
    from pooljudge.annotate.records import LabelScale
    from pooljudge.annotate.store import open_engine

    engine = open_engine(url)
    started = time.perf_counter()
    names = [f"prior-{i:02d}" for i in range(prior)]
    pool = create(engine, pairs, scale=LabelScale.binary(), overlap=prior + 2,
                  annotators=dict.fromkeys(names, "annotator"))
    rng = np.random.default_rng(0)
    import_frame(engine, pd.DataFrame({
        "annotator": np.repeat(names, len(pool)),
        "topic": np.tile(pool["topic"].to_numpy(), prior),
        "doc": np.tile(pool["doc"].to_numpy(), prior),
        "label": rng.integers(0, 2, len(pool) * prior).astype(str)}))
    engine.dispose()
    return time.perf_counter() - started


def worker(url: str, name: str, claims: int, barrier) -> dict[str, list[float] | float]:
    """Claim then judge ``claims`` times, then press ``claims`` times (judge + claim in one
    transaction): latencies in seconds and the wall time of each phase."""
    from pooljudge.annotate.store import (
        add_annotator,
        authenticate,
        next_pair,
        open_engine,
        record_judgment,
        session_scope,
    )

    engine = open_engine(url)
    with session_scope(engine) as session:
        token = add_annotator(session, campaign=CAMPAIGN, name=name)
    with session_scope(engine) as session:
        me = authenticate(session, token=token).id
    out: dict[str, list[float] | float] = {"claim": [], "judge": [], "press": []}
    barrier.wait()
    started = time.perf_counter()
    for _ in range(claims):
        t0 = time.perf_counter()
        with session_scope(engine) as session:
            view = next_pair(session, annotator_id=me)
        out["claim"].append(time.perf_counter() - t0)
        if view is None:
            break
        t1 = time.perf_counter()
        with session_scope(engine) as session:
            record_judgment(session, annotator_id=me, pair_id=view.pair_id, label=1)
        out["judge"].append(time.perf_counter() - t1)
    out["claim_wall"] = time.perf_counter() - started
    with session_scope(engine) as session:
        view = next_pair(session, annotator_id=me)
    barrier.wait()
    started = time.perf_counter()
    for _ in range(claims if view is not None else 0):
        t0 = time.perf_counter()
        with session_scope(engine) as session:
            record_judgment(session, annotator_id=me, pair_id=view.pair_id, label=1)
            view = next_pair(session, annotator_id=me)
        out["press"].append(time.perf_counter() - t0)
        if view is None:
            break
    out["press_wall"] = time.perf_counter() - started
    engine.dispose()
    return out


def run(url: str, workers: int, claims: int) -> dict[str, float]:
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager, context.Pool(workers) as pool:
        barrier = manager.Barrier(workers)
        tag = uuid.uuid4().hex[:6]
        results = pool.starmap(worker, [(url, f"bench-{tag}-{w}", claims, barrier)
                                        for w in range(workers)])

    def milliseconds(key: str) -> np.ndarray:
        return np.concatenate([r[key] for r in results]) * 1000

    claim, judge, press = milliseconds("claim"), milliseconds("judge"), milliseconds("press")
    return {"workers": workers, "claims": len(claim),
            "p50_ms": float(np.percentile(claim, 50)),
            "p95_ms": float(np.percentile(claim, 95)),
            "judge_p95_ms": float(np.percentile(judge, 95)),
            "claims_per_s": len(claim) / max(r["claim_wall"] for r in results),
            "press_p50_ms": float(np.percentile(press, 50)),
            "press_p95_ms": float(np.percentile(press, 95)),
            "presses_per_s": len(press) / max(r["press_wall"] for r in results)}


@contextlib.contextmanager
def bench_database(backend: str, folder: Path) -> Iterator[str]:
    """A database URL for ``backend``: a SQLite file in ``folder``, or a PostgreSQL database
    created on 127.0.0.1:5432 and dropped afterwards."""
    if backend == "sqlite":
        yield f"sqlite:///{folder / 'bench.db'}"
        return
    import psycopg

    name = f"pooljudge_bench_{uuid.uuid4().hex[:8]}"
    admin = "host=127.0.0.1 user=postgres dbname=postgres"
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield PG.format(name)
    finally:
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--prior", type=int, default=10)
    parser.add_argument("--claims", type=int, default=200, help="claims per worker")
    parser.add_argument("--workers", default="1,4,8")
    parser.add_argument("--backends", default="sqlite,postgresql")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for backend in args.backends.split(","):
            with bench_database(backend, Path(folder)) as url:
                seconds = load(url, args.pairs, args.prior)
                print(f"{backend}: loaded {args.pairs:,} pairs and "
                      f"{args.pairs * args.prior:,} judgments in {seconds:.1f} s", flush=True)
                for workers in (int(w) for w in args.workers.split(",")):
                    result = {"backend": backend, **run(url, workers, args.claims)}
                    print(result, flush=True)
                    rows.append(result)
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda x: f"{x:.1f}"))


if __name__ == "__main__":
    main()
