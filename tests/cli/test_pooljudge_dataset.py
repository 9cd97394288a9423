"""``--dataset ID``: pooljudge init from an ir_datasets dataset (only the pool's documents are
fetched), the dataset's qrels in eval, and the errors (offline only, one line, exit 2)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pandas.testing as pdt
import pytest
from pooljudge.metrics.evaluate import evaluate

from pooljudge.cli import main
from pooljudge.cli.datasets import (
    dataset_qrels,
    qrels_and_runs,
    qrels_frame_and_runs,
    qrels_name,
)
from pooljudge.formats.trec import read_qrels

ir_datasets = pytest.importorskip("ir_datasets")
from tests.support import irds  # noqa: E402

get_many_calls = irds.get_many_calls  # the fixture, shared with the other ir_datasets tests

REPO = Path(__file__).resolve().parents[2]
RUNS = {  # two runs over 3 topics; at depth 2 they pool 9 of the 20 documents
    "bm25": [("q1", "d01", 9), ("q1", "d02", 8), ("q1", "d03", 7), ("q1", "d11", 1),
             ("q2", "d05", 9), ("q2", "d06", 8), ("q2", "d01", 7), ("q3", "d07", 5),
             ("q3", "d19", 1)],
    "dense": [("q1", "d03", 9), ("q1", "d04", 8), ("q1", "d01", 2), ("q2", "d05", 3),
              ("q3", "d08", 6), ("q3", "d07", 4), ("q3", "d12", 0.5)],
}
POOLED = {"d01", "d02", "d03", "d04", "d05", "d06", "d07", "d08", "d19"}  # not d11, d12
QRELS = "q1 0 d01 1\nq1 0 d02 0\nq1 0 d04 1\nq2 0 d05 2\nq2 0 d09 1\nq3 0 d07 1\nq3 0 d08 0\n"


@pytest.fixture
def data(tmp_path, monkeypatch):
    """A local dataset (3 queries, 20 documents, qrels) registered under a fresh ID, its files,
    the runs, and a SQLite database; the working folder is ``tmp_path``."""
    from ir_datasets.formats import TrecQrels, TsvDocs, TsvQueries
    from ir_datasets.util import LocalDownload

    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds-home"))
    monkeypatch.setenv("POOLJUDGE_DB", f"sqlite:///{tmp_path / 'p.db'}")
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "collection"
    folder.mkdir()
    (folder / "docs.tsv").write_text(
        "".join(f"d{i:02d}\tdocument {i} <b>text</b>\n" for i in range(20)), encoding="utf-8")
    (folder / "queries.tsv").write_text("q1\tblack holes\nq2\tpolio\nq3\tcrime\n",
                                        encoding="utf-8")
    (folder / "qrels").write_text(QRELS, encoding="utf-8")
    for name, rows in RUNS.items():
        (tmp_path / name).write_text("".join(f"{t} Q0 {d} 0 {s} {name}\n" for t, d, s in rows),
                                     encoding="utf-8")
    dataset_id = f"pooljudge-cli-test/{uuid.uuid4().hex[:10]}"
    ir_datasets.registry.register(dataset_id, ir_datasets.Dataset(
        TsvDocs(LocalDownload(folder / "docs.tsv")),
        TsvQueries(LocalDownload(folder / "queries.tsv")),
        TrecQrels(LocalDownload(folder / "qrels"), {})))
    return argparse.Namespace(id=dataset_id, folder=folder, root=tmp_path)


def _pool(capsys, *extra: str) -> None:
    assert main(["pool", "bm25", "dense", "--depth", "2", "-o", "pool.tsv", *extra]) == 0
    capsys.readouterr()


def _stored_documents(root: Path, campaign: str) -> int:
    from pooljudge.annotate.store import campaign_summary, open_engine, session_scope

    engine = open_engine(f"sqlite:///{root / 'p.db'}")
    with session_scope(engine, readonly=True) as session:
        return int(campaign_summary(session, campaign=campaign)["documents"])


@pytest.mark.parametrize("source", ["id", "folder"])
def test_init_from_a_dataset_fetches_only_the_pooled_documents(data, capsys, get_many_calls,
                                                               source):
    _pool(capsys)
    pooled = {line.split("\t")[1] for line in Path("pool.tsv").read_text().splitlines()[1:]}
    assert pooled == POOLED
    dataset = data.id if source == "id" else str(data.folder)
    assert main(["init", "c1", "--dataset", dataset, "--pool", "pool.tsv"]) == 0
    assert "campaign c1: 3 topics, 9 documents, 9 pairs" in capsys.readouterr().out
    assert len(get_many_calls) == 1 and set(get_many_calls[0]) == pooled
    assert len(get_many_calls[0]) == len(pooled)  # each asked once
    assert _stored_documents(data.root, "c1") == 9


def test_file_options_fill_in_what_the_dataset_lacks(data, capsys, get_many_calls):
    _pool(capsys)
    only_docs = data.root / "only-docs"
    only_docs.mkdir()
    (only_docs / "docs.tsv").write_text((data.folder / "docs.tsv").read_text())
    (data.root / "topics.tsv").write_text("id\ttitle\nq1\ta\nq2\tb\nq3\tc\n")
    assert main(["init", "c2", "--dataset", str(only_docs), "--topics", "topics.tsv",
                 "--pool", "pool.tsv"]) == 0
    assert "3 topics, 9 documents" in capsys.readouterr().out
    assert len(get_many_calls) == 1


def test_a_pool_document_missing_from_the_dataset_names_the_pool_line(data, capsys):
    Path("pool.tsv").write_text("topic\tdoc\torder\tbest_rank\truns\nq1\td01\t1\t1\tA\n"
                                "q1\tnot-there\t2\t2\tA\n")
    assert main(["init", "c3", "--dataset", data.id, "--pool", "pool.tsv"]) == 2
    err = capsys.readouterr().err
    assert err == "pooljudge: error: pool.tsv:3: unknown document not-there\n"


def test_the_dataset_qrels_evaluate_like_the_qrels_file(data, capsys):
    args = argparse.Namespace(dataset=data.id, qrels="bm25", runs=["dense"])
    qrels, runs = qrels_and_runs(args)
    assert runs == ["bm25", "dense"]
    measures = ["map", "P@5", "nDCG@10", "bpref", "NumRelRet"]
    from_dataset = evaluate(qrels, runs, measures)
    pdt.assert_frame_equal(from_dataset, evaluate(data.folder / "qrels", runs, measures))
    assert from_dataset["value"].gt(0).any()
    assert dataset_qrels(argparse.Namespace(dataset=None)) is None
    assert qrels_and_runs(argparse.Namespace(dataset=None, qrels="Q", runs=["R"])) == ("Q", ["R"])
    frame, _ = qrels_frame_and_runs(args)
    pdt.assert_frame_equal(frame, read_qrels(data.folder / "qrels"))
    from_file = argparse.Namespace(dataset=None, qrels=str(data.folder / "qrels"), runs=["r"])
    pdt.assert_frame_equal(qrels_frame_and_runs(from_file)[0], frame)
    assert qrels_name(args) == f"dataset {data.id}" and qrels_name(from_file) == "qrels"


def _one_line_error(capsys, argv: list[str], expected: str) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("pooljudge: error: ") and captured.err.count("\n") == 1
    assert expected in captured.err


@pytest.mark.parametrize(("extra", "expected"), [
    (["--topics", "t.tsv"], "--topics: the topics come from --dataset"),
    (["--docs", "d.jsonl"], "--docs: the documents come from --dataset"),
])
def test_a_file_option_and_the_dataset_giving_the_same_thing_conflict(data, capsys, extra,
                                                                      expected):
    _pool(capsys)
    _one_line_error(capsys, ["init", "c", "--dataset", data.id, "--pool", "pool.tsv", *extra],
                    expected)


def test_without_a_dataset_the_files_are_required(data, capsys):
    _pool(capsys)
    _one_line_error(capsys, ["init", "c", "--docs", "d.jsonl", "--pool", "pool.tsv"],
                    "--topics: required (or --dataset ID)")


def test_a_dataset_lacking_documents_needs_docs(data, capsys):
    _pool(capsys)
    queries_only = data.root / "queries-only"
    queries_only.mkdir()
    (queries_only / "queries.tsv").write_text("q1\tx\n")
    _one_line_error(capsys, ["init", "c", "--dataset", str(queries_only), "--pool", "pool.tsv"],
                    "has no docs: give --docs FILE")


def test_an_unknown_dataset_is_one_line(data, capsys):
    _pool(capsys)
    _one_line_error(capsys, ["init", "c", "--dataset", "pooljudge-no-such/x", "--pool",
                             "pool.tsv"], "--dataset pooljudge-no-such/x: no such ir_datasets")


def test_a_known_dataset_not_downloaded_is_one_line_and_downloads_nothing(tmp_path):
    """A real ID of the registry in an empty cache, in a fresh process (so IR_DATASETS_HOME is
    the one ir_datasets imports with): exit 2, one line, and no file fetched."""
    (tmp_path / "pool.tsv").write_text("topic\tdoc\torder\tbest_rank\truns\n1\t1\t1\t1\tA\n")
    home = tmp_path / "home"
    env = {**os.environ, "IR_DATASETS_HOME": str(home),
           "POOLJUDGE_DB": f"sqlite:///{tmp_path / 'p.db'}",
           "PYTHONPATH": str(REPO), "http_proxy": "http://127.0.0.1:9",
           "https_proxy": "http://127.0.0.1:9"}
    done = subprocess.run([sys.executable, "-m", "pooljudge", "init", "c", "--dataset",
                           "vaswani", "--pool", "pool.tsv"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and done.stderr.count("\n") == 1
    assert done.stderr.startswith("pooljudge: error: dataset vaswani: its queries are not in "
                                  f"the local ir_datasets cache (IR_DATASETS_HOME={home})")
    assert "ir_datasets export vaswani queries" in done.stderr
    assert not [p for p in home.rglob("*") if p.is_file()]
    assert not (tmp_path / "p.db").exists()


def test_a_sampled_pool_fetches_only_its_sampled_documents(data, capsys, get_many_calls):
    _pool(capsys, "--sample", "uniform", "--budget", "4", "--seed", "3")
    rows = [line.split("\t") for line in Path("pool.tsv").read_text().splitlines()]
    header = rows[0]
    sampled = {r[header.index("doc")] for r in rows[1:] if r[header.index("sampled")] == "1"}
    assert 0 < len(sampled) < len({r[header.index("doc")] for r in rows[1:]})
    assert main(["init", "s", "--dataset", data.id, "--pool", "pool.tsv"]) == 0
    assert "sampled pairs queued" in capsys.readouterr().out
    assert [set(ids) for ids in get_many_calls] == [sampled]


def _output(capsys, argv: list[str]) -> str:
    assert main(argv) == 0, capsys.readouterr().err
    return capsys.readouterr().out


@pytest.mark.parametrize("fmt", ["tsv", "json"])
def test_eval_with_a_dataset_prints_what_the_qrels_file_gives(data, capsys, fmt):
    """``eval --dataset ID RUN...``: every positional is a run, the numbers those of the file."""
    measures = ["-m", "AP P@5 nDCG@10", "--per-topic", "--format", fmt]
    from_file = _output(capsys, ["eval", str(data.folder / "qrels"), "bm25", "dense",
                                 *measures])
    assert _output(capsys, ["eval", "--dataset", data.id, "bm25", "dense", *measures]) == \
        from_file


def test_eval_with_a_dataset_and_exactly_one_run(data, capsys):
    """``eval --dataset ID RUN``: the lone positional is the run (not the qrels)."""
    measures = ["-m", "AP P@5", "--format", "tsv"]
    from_file = _output(capsys, ["eval", str(data.folder / "qrels"), "bm25", *measures])
    assert _output(capsys, ["eval", "--dataset", data.id, "bm25", *measures]) == from_file
    assert "bm25" in from_file


def test_report_with_a_dataset_and_exactly_one_run(data, capsys):
    _output(capsys, ["report", str(data.folder / "qrels"), "bm25", "-o", "f.html"])
    _output(capsys, ["report", "--dataset", data.id, "bm25", "-o", "d.html"])
    body = (data.root / "f.html").read_text().split("<table", 1)[1]
    assert (data.root / "d.html").read_text().split("<table", 1)[1] == body


@pytest.mark.parametrize("command", ["eval", "report"])
def test_a_qrels_file_without_a_run_is_still_refused(data, capsys, command):
    extra = ["-o", "r.html"] if command == "report" else []
    _one_line_error(capsys, [command, str(data.folder / "qrels"), *extra],
                    "the following arguments are required: RUN")
    assert not (data.root / "r.html").exists()


def test_pool_excludes_the_dataset_qrels_as_exclude_does(data, capsys):
    _output(capsys, ["pool", "bm25", "dense", "--depth", "2", "-o", "file.tsv",
                     "--exclude", str(data.folder / "qrels")])
    _output(capsys, ["pool", "bm25", "dense", "--depth", "2", "-o", "dataset.tsv",
                     "--dataset", data.id])
    assert (data.root / "dataset.tsv").read_bytes() == (data.root / "file.tsv").read_bytes()
    assert "d01" not in (data.root / "dataset.tsv").read_text()  # judged for q1 and q2


def test_report_with_a_dataset_names_it_and_shows_the_file_s_numbers(data, capsys):
    _output(capsys, ["report", str(data.folder / "qrels"), "bm25", "dense", "-o", "f.html"])
    _output(capsys, ["report", "--dataset", data.id, "bm25", "dense", "-o", "d.html"])
    page = (data.root / "d.html").read_text()
    assert f"qrels: dataset {data.id}" in page
    body = (data.root / "f.html").read_text().split("<table", 1)[1]
    assert page.split("<table", 1)[1] == body


@pytest.mark.parametrize("argv, message", [
    (["pool", "bm25", "--depth", "2", "--exclude", "q", "--dataset", "X"],
     "--exclude: the qrels come from --dataset X; give one or the other"),
    (["pool", "bm25", "--depth", "2", "--sample", "uniform(depth=2)", "--budget", "2",
      "--dataset", "X"], "--dataset does not apply to --sample"),
], ids=["exclude-and-dataset", "sample"])
def test_pool_refuses_a_dataset_where_it_does_not_apply(data, capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
