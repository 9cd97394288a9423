"""``pooljudge demo``: Python's own documentation, a dozen needs, real runs, their pool, a campaign.

The collection is built once per module (offline: sockets refuse to connect) and the command is
run once as a real subprocess with ``--no-serve``; the serving step is checked with
``serve_cmd.run_streamlit`` replaced, so no server starts.
"""

from __future__ import annotations

import argparse
import inspect
import itertools
import re
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pooljudge.annotate import store
from pooljudge.annotate.demo import (
    INFORMATION_NEEDS,
    build_collection,
    topics_frame,
    write_collection,
)
from pooljudge.annotate.demo.build import DemoCollection
from pooljudge.annotate.demo.campaign import DEMO_CAMPAIGN, read_links
from pooljudge.annotate.demo.retrieval import bm25_run, chargram_run, tfidf_run
from pooljudge.annotate.store import open_engine, session_scope
from pooljudge.pooling.pool import build_pool

from pooljudge.cli import main, serve_cmd
from pooljudge.formats.trec import read_pool, read_run

DEPTH = 10  # the demo's pool depth
RUN_DEPTH = 100  # documents retrieved per topic and run
LINK = re.compile(r"^\s+(\S+)\s+(\S+)\s+(http://127\.0\.0\.1:8501/\?token=(\S+))$")


@dataclass(frozen=True)
class DemoRun:
    """The folder ``pooljudge demo --no-serve`` built and what it printed."""

    folder: Path
    status: int
    out: str
    err: str


@pytest.fixture(scope="module")
def collection() -> DemoCollection:
    """The demo collection, built with every outgoing connection refused."""

    def offline(*_args, **_kwargs):
        raise OSError("network access during the demo build")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", offline)
        patch.setattr(socket, "create_connection", offline)
        return build_collection()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """``python -m pooljudge demo --dir FOLDER --no-serve``, run once."""
    folder = tmp_path_factory.mktemp("demo") / "pooljudge-demo"
    done = subprocess.run(
        [sys.executable, "-m", "pooljudge", "demo", "--dir", str(folder), "--no-serve"],
        capture_output=True, text=True, timeout=300, cwd=folder.parent, check=False)
    return DemoRun(folder, done.returncode, done.stdout, done.stderr)


@pytest.fixture
def demo_engine(demo: DemoRun):
    engine = open_engine(f"sqlite:///{demo.folder / 'demo.db'}")
    yield engine
    engine.dispose()


def _ranked(run: pd.DataFrame, topic: str) -> list[str]:
    """A run's documents for ``topic`` in trec_eval order: float32 score desc, then doc id desc."""
    rows = run.loc[run["topic"] == topic]
    pairs = sorted(zip(rows["score"].astype(np.float32), rows["doc"], strict=True),
                   key=lambda item: item[1].encode(), reverse=True)
    return [doc for _score, doc in sorted(pairs, key=lambda item: -item[0])]  # stable sort


# --- corpus and needs ---------------------------------------------------------------------------


def test_corpus_is_the_standard_library_documentation(collection: DemoCollection) -> None:
    from pydoc_data.topics import topics

    docs = collection.documents
    assert list(docs.columns) == ["id", "title", "text"]
    assert docs["id"].is_unique
    assert docs["title"].str.strip().ne("").all() and docs["text"].str.strip().ne("").all()
    kinds = docs["id"].str.split("-", n=1).str[0].value_counts()
    assert kinds["ref"] == len(topics) and kinds["mod"] >= 50 and set(kinds.index) == {"ref", "mod"}
    by_id = docs.set_index("id")
    assert by_id.at["ref-try", "text"] == topics["try"].strip()
    assert by_id.at["ref-try", "title"] == 'The "try" statement'
    assert by_id.at["mod-argparse", "text"] == inspect.cleandoc(argparse.__doc__).strip()
    assert by_id.at["mod-argparse", "title"].startswith("argparse — Command-line parsing")
    assert not docs["id"].str.match(r"mod-(encodings|test|idlelib)\b").any()


def test_twelve_distinct_information_needs() -> None:
    topics = topics_frame()
    assert list(topics.columns) == ["id", "title", "description", "narrative"]
    assert len(topics) == 12 == len(INFORMATION_NEEDS) and topics["id"].is_unique
    for column in ("title", "description", "narrative"):
        assert topics[column].str.strip().str.len().gt(0).all(), column
        assert topics[column].is_unique, column
    assert (topics["narrative"].str.len() > topics["title"].str.len()).all()
    assert topics["narrative"].str.contains("Relevant").all()


# --- runs -------------------------------------------------------------------------------------


def test_runs_are_valid_trec_runs_over_the_corpus(collection: DemoCollection,
                                                  demo: DemoRun) -> None:
    assert demo.status == 0, demo.err
    doc_ids = set(collection.documents["id"])
    need_ids = set(collection.topics["id"])
    files = sorted((demo.folder / "collection" / "runs").iterdir())
    assert [f.name for f in files] == sorted(collection.runs) and len(files) == 4
    for path in files:
        lines = [line.split() for line in path.read_text().splitlines()]
        assert all(len(f) == 6 and f[1] == "Q0" and f[5] == path.name for f in lines), path.name
        frame = pd.DataFrame(lines, columns=["topic", "q0", "doc", "rank", "score", "tag"])
        frame["rank"], frame["score"] = frame["rank"].astype(int), frame["score"].astype(float)
        assert set(frame["topic"]) == need_ids, path.name  # every need retrieves something
        assert set(frame["doc"]) <= doc_ids
        assert not frame.duplicated(["topic", "doc"]).any()
        assert (frame["score"] > 0).all() and np.isfinite(frame["score"]).all()
        for _topic, rows in frame.groupby("topic", sort=False):
            assert rows["rank"].tolist() == list(range(1, len(rows) + 1))
            assert len(rows) <= RUN_DEPTH and rows["score"].is_monotonic_decreasing
        back = read_run(path)  # the project's own validating reader accepts it
        expected = collection.runs[path.name]
        assert sorted(zip(back["topic"], back["doc"], back["score"], strict=True)) == sorted(
            zip(expected["topic"], expected["doc"], expected["score"], strict=True))


def test_the_methods_rank_differently(collection: DemoCollection) -> None:
    runs = collection.runs
    assert len({frozenset(run["tag"]) for run in runs.values()}) == len(runs) == 4
    for (a, run_a), (b, run_b) in itertools.combinations(runs.items(), 2):
        differ = sum(_ranked(run_a, t)[:DEPTH] != _ranked(run_b, t)[:DEPTH]
                     for t in collection.topics["id"])
        assert differ >= 10, (a, b, differ)
    tfidf = runs["tfidf-title"]
    assert _ranked(tfidf, "112")[0] == "mod-argparse"  # command line argument parsing
    assert _ranked(tfidf, "111")[0] == "mod-unittest"  # unit testing
    assert "ref-try" in _ranked(tfidf, "101")[:3]  # exception handling and cleanup


def test_tfidf_finds_the_module_a_query_names(collection: DemoCollection) -> None:
    names = ["argparse", "fnmatch", "statistics", "smtplib", "timeit", "unittest", "random"]
    run = tfidf_run(collection.documents, pd.Series(names, index=names), depth=5)
    assert {name: _ranked(run, name)[0] for name in names} == {n: f"mod-{n}" for n in names}


SMALL = pd.DataFrame({
    "id": ["a", "b", "c", "d", "e"],
    "title": ["Formatting", "Parsing", "Sockets", "Cats", "Format codes"],
    "text": ["formatting values formatting text", "parsing values",
             "sockets connect sockets listen sockets", "cats sleep", "format codes"],
})


def test_bm25_follows_the_okapi_formula() -> None:
    query = "values sockets"
    run = bm25_run(SMALL, pd.Series([query], index=["q"]), depth=10)
    texts = (SMALL["title"] + "\n" + SMALL["text"]).str.lower().str.split().tolist()
    avgdl = sum(map(len, texts)) / len(texts)
    k1, b, n = 1.2, 0.75, len(texts)
    expected = {}
    for doc, words in zip(SMALL["id"], texts, strict=True):
        score = 0.0
        for term in query.split():
            df = sum(term in other for other in texts)
            tf = words.count(term)
            idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
            score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(words) / avgdl))
        if score > 0:
            expected[doc] = round(score, 6)
    assert dict(zip(run["doc"], run["score"], strict=True)) == pytest.approx(expected, abs=1e-6)
    assert _ranked(run, "q") == ["c", "b", "a"]  # d matches nothing: not retrieved


def test_character_ngrams_match_word_variants_words_do_not() -> None:
    queries = pd.Series(["formats"], index=["q"])
    assert tfidf_run(SMALL, queries).empty and bm25_run(SMALL, queries).empty
    chars = chargram_run(SMALL, queries)
    assert set(_ranked(chars, "q")[:2]) == {"a", "e"}  # formatting, format


# --- pool -------------------------------------------------------------------------------------


def test_pool_is_the_depth_k_pool_of_the_runs(collection: DemoCollection, demo: DemoRun) -> None:
    expected: dict[tuple[str, str], tuple[int, set[str]]] = {}
    for name, run in collection.runs.items():
        for topic in collection.topics["id"]:
            for rank, doc in enumerate(_ranked(run, topic)[:DEPTH], start=1):
                best, names = expected.get((topic, doc), (rank, set()))
                expected[(topic, doc)] = (min(best, rank), names | {name})
    pool = collection.pool
    assert list(pool.columns) == ["topic", "doc", "order", "best_rank", "runs"]
    got = {(t, d): (r, set(runs.split(","))) for t, d, r, runs in
           zip(pool["topic"], pool["doc"], pool["best_rank"], pool["runs"], strict=True)}
    assert got == expected
    pairs = build_pool(collection.runs, DEPTH).pairs
    assert set(zip(pairs["topic"], pairs["doc"], strict=True)) == set(expected)
    written = read_pool(demo.folder / "collection" / "pool.tsv")
    assert written.astype(str).equals(pool.reset_index(drop=True).astype(str))


def test_pool_is_ordered_by_reciprocal_rank_fusion(collection: DemoCollection) -> None:
    for topic, rows in collection.pool.groupby("topic", sort=False):
        tops = [_ranked(run, topic)[:DEPTH] for run in collection.runs.values()]
        fused = {doc: sum(1 / (60 + top.index(doc) + 1) for top in tops if doc in top)
                 for doc in rows["doc"]}
        best = dict(zip(rows["doc"], rows["best_rank"], strict=True))
        expected = sorted(fused, key=lambda d: (-round(fused[d], 12), best[d], d.encode()))
        assert rows.sort_values("order")["doc"].tolist() == expected, topic
        assert sorted(rows["order"]) == list(range(1, len(rows) + 1))


def test_build_is_deterministic(collection: DemoCollection, demo: DemoRun, tmp_path: Path) -> None:
    write_collection(collection, tmp_path)
    built = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    cli = demo.folder / "collection"
    assert built == sorted(p.relative_to(cli) for p in cli.rglob("*") if p.is_file())
    for name in built:
        assert (tmp_path / name).read_bytes() == (cli / name).read_bytes(), name


# --- campaign and command -----------------------------------------------------------------------


def test_campaign_holds_topics_documents_and_pairs(collection: DemoCollection,
                                                   demo_engine) -> None:
    pool = collection.pool
    with session_scope(demo_engine, readonly=True) as session:
        summary = store.campaign_summary(session, campaign=DEMO_CAMPAIGN)
        campaign = store.get_campaign(session, name=DEMO_CAMPAIGN)
        views = [store.pair_by_key(session, campaign=DEMO_CAMPAIGN, topic=t, doc=d)
                 for t, d in zip(pool["topic"], pool["doc"], strict=True)]
    assert (summary["topics"], summary["pairs"], summary["documents"]) == (
        12, len(pool), pool["doc"].nunique())
    assert campaign.overlap == 2 and campaign.scale.values == (0, 1)
    assert summary["judgment_rows"] == 0
    topics = collection.topics.set_index("id")
    docs = collection.documents.set_index("id")
    for view in views:
        need = topics.loc[view.topic_id]
        assert (view.topic_title, view.topic_description, view.topic_narrative) == (
            need["title"], need["description"], need["narrative"])
        assert (view.doc_title, view.doc_text) == tuple(docs.loc[view.doc_id, ["title", "text"]])


def test_printed_links_log_in_the_three_demo_people(demo: DemoRun, demo_engine) -> None:
    assert demo.status == 0, demo.err
    links = [m.groups() for m in map(LINK.match, demo.out.splitlines()) if m]
    assert [(role, name) for role, name, _url, _token in links] == [
        ("admin", "demo-admin"), ("annotator", "ada"), ("annotator", "brian")]
    assert "building the demo collection" in demo.err
    with session_scope(demo_engine, readonly=True) as session:
        people = store.list_annotators(session, campaign=DEMO_CAMPAIGN)
        logins = [store.authenticate(session, token=token) for *_rest, token in links]
        token = links[0][3]  # its last character changed (a random token may end in "x")
        assert store.authenticate(session, token=token[:-1] + "xy"[token.endswith("x")]) is None
    assert dict(zip(people["name"], people["role"], strict=True)) == {
        "demo-admin": "admin", "ada": "annotator", "brian": "annotator"}
    assert [(i.name, i.role, i.campaign_name) for i in logins] == [
        (name, role, DEMO_CAMPAIGN) for role, name, _url, _token in links]
    saved = read_links(demo.folder / "links.tsv")
    assert [(p.role, p.name, p.path) for p in saved] == [
        (role, name, url.removeprefix("http://127.0.0.1:8501")) for role, name, url, _ in links]


def test_second_run_reuses_the_demo(demo: DemoRun, capsys: pytest.CaptureFixture,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(demo.folder.parent)  # the next commands name pooljudge relative to here
    database = demo.folder / "demo.db"
    stamp = database.stat().st_mtime_ns
    assert main(["demo", "--dir", str(demo.folder), "--no-serve"]) == 0
    out, err = capsys.readouterr()
    assert out == demo.out and "building" not in err
    assert database.stat().st_mtime_ns == stamp


def test_demo_serves_its_database_on_127_0_0_1_8501(demo: DemoRun, monkeypatch) -> None:
    calls = []

    def fake_run(command, env):
        calls.append((command, env))
        return 3

    monkeypatch.setattr(serve_cmd, "run_streamlit", fake_run)
    monkeypatch.delenv("POOLJUDGE_DB", raising=False)
    assert main(["demo", "--dir", str(demo.folder)]) == 3  # Streamlit's status is passed on
    [(command, env)] = calls
    assert command == serve_cmd.streamlit_command("127.0.0.1", 8501)
    flags = dict(zip(command[5::2], command[6::2], strict=True))
    assert command[1:5] == ["-m", "streamlit", "run", str(serve_cmd.APP)]
    assert flags["--server.address"] == "127.0.0.1" and flags["--server.port"] == "8501"
    assert env["POOLJUDGE_DB"] == f"sqlite:///{demo.folder / 'demo.db'}"
