"""Many processes at once: no pair over-assigned, no judgment lost; a killed import stores
nothing. Runs on SQLite and on the real PostgreSQL."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid

import pandas as pd
import pytest
import sqlalchemy as sa
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import (
    add_annotator,
    annotator_id,
    create_campaign,
    judgments_frame,
    list_annotators,
    next_pair,
    open_engine,
    progress,
    session_scope,
)
from pooljudge.annotate.store.models import Claim, Pair

from pooljudge.cli.simulate_cmd import simulate_worker

WORKERS = 4


def _claim_only(url: str, ids: list[int], rounds: int) -> list[tuple[int, int]]:
    """Claim (never judge) with each annotator; returns (annotator, pair) of every claim."""
    engine = open_engine(url)
    got = []
    for _ in range(rounds):
        for annotator in ids:
            with session_scope(engine) as session:
                view = next_pair(session, annotator_id=annotator, lease_seconds=3600)
            if view is not None:
                got.append((annotator, view.pair_id))
    engine.dispose()
    return got


def _campaign(engine, collection, *, overlap: int, n_topics: int, n_docs: int, n_annotators: int,
              assign_mode: str = "pair"):
    name = f"c-{uuid.uuid4().hex[:8]}"
    with session_scope(engine) as session:
        create_campaign(session, name=name, scale=LabelScale.binary(), overlap=overlap,
                        assign_mode=assign_mode, **collection(n_topics, n_docs))
        for i in range(n_annotators):
            add_annotator(session, campaign=name, name=f"w{i:02d}")
    with session_scope(engine) as session:
        ids = [annotator_id(session, campaign=name, name=f"w{i:02d}")
               for i in range(n_annotators)]
    return name, ids


@pytest.mark.parametrize("assign_mode", ["pair", "topic"])
def test_parallel_judging_gives_each_pair_exactly_k(engine, db_url, collection, assign_mode):
    name, ids = _campaign(engine, collection, overlap=3, n_topics=10, n_docs=40, n_annotators=8,
                          assign_mode=assign_mode)
    jobs = [(db_url, ids[w::WORKERS], {}, [0, 1], 0.0, w) for w in range(WORKERS)]
    with multiprocessing.get_context("spawn").Pool(WORKERS) as pool:
        written = pool.starmap(simulate_worker, jobs)
    with session_scope(engine) as session:
        frame = judgments_frame(session, campaign=name, latest_only=False)
        done = progress(session, campaign=name)
    assert sum(written) == 1200 == len(frame)  # 400 pairs x 3: none lost, none extra
    assert min(written) > 0  # every process took part
    per_pair = frame.groupby(["topic", "doc"])["annotator"].agg(["size", "nunique"])
    assert len(per_pair) == 400
    assert (per_pair["size"] == 3).all() and (per_pair["nunique"] == 3).all()
    assert (frame["version"] == 1).all()
    assert (done["judgments_done"] == done["judgments_needed"]).all()
    if assign_mode == "topic":  # every topic stays with exactly 3 annotators
        assert (frame.groupby("topic")["annotator"].nunique() == 3).all()


def test_parallel_claims_never_exceed_the_overlap(engine, db_url, collection):
    _, ids = _campaign(engine, collection, overlap=2, n_topics=2, n_docs=5, n_annotators=24)
    jobs = [(db_url, ids[w::WORKERS], 3) for w in range(WORKERS)]
    with multiprocessing.get_context("spawn").Pool(WORKERS) as pool:
        claims = [c for part in pool.starmap(_claim_only, jobs) for c in part]
    frame = pd.DataFrame(claims, columns=["annotator", "pair"]).drop_duplicates()
    # an annotator's repeated calls return its one live claim; 10 pairs x 2 slots = 20 claims
    assert frame["annotator"].is_unique and len(frame) == 20
    assert (frame["pair"].value_counts() == 2).all()
    with session_scope(engine) as session:
        slots = session.execute(sa.select(sa.func.sum(Pair.open_slots)).where(
            Pair.id.in_(frame["pair"].tolist()))).scalar_one()
        claimed = session.execute(sa.select(sa.func.count()).select_from(Claim).where(
            Claim.pair_id.in_(frame["pair"].tolist()))).scalar_one()
    assert slots == 0 and claimed == 20


def _import_file(path, pairs: pd.DataFrame, sources: int) -> None:
    rows = pd.concat([pairs.assign(annotator=f"src{i}") for i in range(sources)])
    rows = rows.assign(label=1)[["annotator", "topic", "doc", "label"]]
    rows.to_csv(path, sep="\t", index=False)


def _in_write_transaction(url: str, database: str | None) -> bool:
    """Whether another process holds a write transaction open on the database."""
    if database is None:  # SQLite: the importer's BEGIN IMMEDIATE holds the write lock
        path = sa.make_url(url).database
        connection = sqlite3.connect(path, timeout=0, isolation_level=None)
        try:
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("ROLLBACK")
            return False
        except sqlite3.OperationalError:
            return True
        finally:
            connection.close()
    import psycopg

    with psycopg.connect("host=127.0.0.1 user=postgres dbname=postgres") as connection:
        return connection.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s "
            "AND backend_xid IS NOT NULL", (database,)).fetchone()[0] > 0


def test_killed_import_leaves_the_campaign_as_it_was(engine, db_url, collection, tmp_path):
    name, _ = _campaign(engine, collection, overlap=1, n_topics=40, n_docs=100, n_annotators=1)
    with session_scope(engine) as session:
        before = len(judgments_frame(session, campaign=name, latest_only=False))
    big = tmp_path / "big.tsv"
    _import_file(big, collection(40, 100)["pool"][["topic", "doc"]], sources=60)  # 240,000
    command = [sys.executable, "-m", "pooljudge", "judgments", "import", str(big), "--campaign",
               name, "--db", db_url, *[f"--new-annotator=src{i}" for i in range(60)]]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    database = None if db_url.startswith("sqlite") else sa.make_url(db_url).database
    deadline = time.monotonic() + 120
    while not _in_write_transaction(db_url, database):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.5)
    assert process.poll() is None, "the import finished before it could be killed"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    with session_scope(engine) as session:
        assert len(judgments_frame(session, campaign=name, latest_only=False)) == before
        assert list_annotators(session, campaign=name)["name"].tolist() == ["w00"]
        assert next_pair(session, annotator_id=annotator_id(
            session, campaign=name, name="w00")) is not None
