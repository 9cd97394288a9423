"""``pooljudge logs import`` and ``logs sample``: the files written, the runs evaluated per
topic group, privacy, bad input (exit 2, one line, nothing written) and the sampling contract."""

from __future__ import annotations

import json

import pytest

from pooljudge.cli import main
from pooljudge.formats.collection import read_topics
from pooljudge.formats.trec import read_run
from tests.support.logs import CATEGORIES, sample_records, write_jsonl

KEY_ENV = "POOLJUDGE_TEST_LOG_KEY"


@pytest.fixture
def log_file(tmp_path):
    return write_jsonl(tmp_path / "traffic.jsonl", sample_records(), gz=False)


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("gz", [False, True])
def test_import_writes_runs_topics_groups_and_latency(tmp_path, capsys, gz):
    log = write_jsonl(tmp_path / "traffic.jsonl.gz", sample_records(), gz=gz)
    status, out, err = _run(capsys, "logs", "import", str(log), "--out", str(tmp_path / "out"))
    assert status == 0, err
    out_dir = tmp_path / "out"
    assert sorted(p.name for p in (out_dir / "runs").iterdir()) == [
        "bm25@v1.run", "bm25@v2.run", "dense@v1.run", "dense@v2.run"]
    run = read_run(out_dir / "runs" / "dense@v2.run")
    assert run["topic"].nunique() == 12 and set(run["tag"]) == {"dense@v2"}
    topics = read_topics(out_dir / "topics.tsv")
    assert topics.loc[topics["id"] == "q4", "title"].item() == "how do I 4?"
    groups = (out_dir / "topic-groups.tsv").read_text().splitlines()
    assert groups[0] == "topic group" and "q1 category=shipping" in groups
    assert "q0 language=de" in groups and not any(g.startswith("q0 category") for g in groups)
    assert (out_dir / "latency.tsv").read_text().startswith("run\tqueries\tretrievals")
    assert "48 retrievals, 12 queries, 4 run(s)" in out and "p95_ms" in out


def test_the_written_runs_evaluate_per_category(tmp_path, capsys, log_file):
    out_dir = tmp_path / "out"
    assert main(["logs", "import", str(log_file), "--out", str(out_dir)]) == 0
    records = sample_records()
    relevant = {(r["query_id"], r["results"][0]["id"]) for r in records}
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} 1\n" for q, d in sorted(relevant)))
    capsys.readouterr()
    runs = sorted(str(p) for p in (out_dir / "runs").iterdir())
    status = main(["eval", str(qrels), *runs, "-m", "P@1", "--topic-groups",
                   str(out_dir / "topic-groups.tsv"), "--format", "tsv"])
    out = capsys.readouterr().out
    assert status == 0
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    groups = {row[1] for row in rows}
    assert {f"category={c}" for c in CATEGORIES} <= groups and "language=en" in groups
    # every logged top result is relevant: P@1 is 1 in every group of every run
    assert {float(row[-1]) for row in rows if row[2] == "P@1"} == {1.0}


def test_private_and_hashed_fields(tmp_path, capsys, log_file, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "s3cret")
    argv = ["logs", "import", str(log_file), "--private", "query", "--hash", "query_id",
            "--hash-key-env", KEY_ENV]
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    assert main([*argv, "--out", str(tmp_path / "b")]) == 0
    topics = read_topics(tmp_path / "a" / "topics.tsv")
    assert (topics["title"] == "").all()
    assert not set(topics["id"]) & {f"q{i}" for i in range(12)}
    assert all(len(t) == 32 for t in topics["id"])
    text = "".join(p.read_text() for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert "how do I" not in text
    assert (tmp_path / "a" / "topics.tsv").read_text() == (
        tmp_path / "b" / "topics.tsv").read_text()


@pytest.mark.parametrize(("extra", "env", "message"), [
    (["--hash", "query"], None, "--hash needs --hash-key-env VAR"),
    (["--hash", "query", "--hash-key-env", KEY_ENV], None,
     f"the environment variable {KEY_ENV} is not set or empty"),
    (["--hash", "query", "--hash-key-env", KEY_ENV], "", "is not set or empty"),
    (["--hash", "query", "--private", "query", "--hash-key-env", KEY_ENV], "k",
     "query cannot be both dropped and hashed"),
    (["--hash-key-env", KEY_ENV], "k", "--hash-key-env without --hash"),
    (["--private", "query_id"], None, "--private: invalid choice"),
])
@pytest.mark.parametrize("command", ["import", "sample"])
def test_privacy_usage_errors(tmp_path, capsys, log_file, monkeypatch, command, extra, env,
                              message):
    monkeypatch.delenv(KEY_ENV, raising=False)
    if env is not None:
        monkeypatch.setenv(KEY_ENV, env)
    more = ["--out", str(tmp_path / "out")] if command == "import" else ["--n", "2"]
    status, _, err = _run(capsys, "logs", command, str(log_file), *more, *extra)
    assert status == 2 and message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["import", "sample"])
@pytest.mark.parametrize("gz", [False, True])
def test_a_bad_line_exits_2_with_its_line_and_writes_nothing(tmp_path, capsys, command, gz):
    lines = [json.dumps(r) for r in sample_records()[:5]]
    lines.insert(3, '{"query_id": "q7", "latency_ms": "slow", "results": []}')
    log = write_jsonl(tmp_path / "bad.jsonl", lines, gz=gz)
    more = (["--out", str(tmp_path / "out")] if command == "import"
            else ["--n", "2", "-o", str(tmp_path / "topics.tsv")])
    status, _, err = _run(capsys, "logs", command, str(log), *more)
    assert status == 2
    assert err == f"pooljudge: error: {log}:4: latency_ms must be a finite number >= 0, " \
                  "not 'slow'\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]


def test_import_refuses_a_folder_with_files(tmp_path, capsys, log_file):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    status, _, err = _run(capsys, "logs", "import", str(log_file), "--out", str(tmp_path / "out"))
    assert status == 2 and "exists and is not an empty folder" in err
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["keep.txt"]


def test_import_defaults_to_a_folder_named_after_the_log(tmp_path, capsys, log_file,
                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["logs", "import", str(log_file)]) == 0
    assert (tmp_path / "traffic" / "latency.tsv").is_file()


def test_sample_writes_topics_and_ids_ready_for_import_and_init(tmp_path, capsys, log_file):
    argv = ["logs", "sample", str(log_file), "--n", "6", "--stratify", "category",
            "--allocation", "equal", "--seed", "4"]
    status, out, err = _run(capsys, *argv, "-o", str(tmp_path / "s.tsv"), "--ids",
                            str(tmp_path / "ids.txt"))
    assert status == 0, err
    topics = read_topics(tmp_path / "s.tsv")
    ids = (tmp_path / "ids.txt").read_text().split()
    assert list(topics["id"]) == ids and len(set(ids)) == 6
    assert all(t == f"how do I {i[1:]}?" for i, t in zip(topics["id"], topics["title"],
                                                          strict=True))
    assert "6 of 12 queries sampled, stratified by category (equal)" in out
    status, again, _ = _run(capsys, *argv)
    assert status == 0 and again == (tmp_path / "s.tsv").read_text()
    assert main(["logs", "import", str(log_file), "--queries", str(tmp_path / "ids.txt"),
                 "--out", str(tmp_path / "out")]) == 0
    run = read_run(tmp_path / "out" / "runs" / "bm25@v1.run")
    assert set(run["topic"]) == set(ids)


def test_sample_counts_per_category_are_exact(tmp_path, capsys, log_file):
    status, out, err = _run(capsys, "logs", "sample", str(log_file), "--n", "7", "--stratify",
                            "category")
    assert status == 0
    table = [line.split() for line in err.splitlines()[2:]]
    # q0 has no category: strata (none) 1, shipping 4, returns 4, billing 3 queries
    assert {row[0]: int(row[-1]) for row in table} == {
        "(none)": 1, "shipping": 2, "returns": 2, "billing": 2}
    assert len(out.splitlines()) == 8


def test_import_groups_and_sample_strata_read_a_category_alike(tmp_path, capsys):
    """`` billing`` and ``billing`` are one group and one stratum, a blank category is none;
    both commands print the same warning."""
    records = [{"query_id": f"q{i}", "category": [" billing", "billing", "  "][i % 3],
                "results": [{"id": "d1"}]} for i in range(6)]
    log = write_jsonl(tmp_path / "log.jsonl", records, gz=False)
    status, _, imported = _run(capsys, "logs", "import", str(log), "--out", str(tmp_path / "o"))
    assert status == 0
    groups = (tmp_path / "o" / "topic-groups.tsv").read_text().splitlines()[1:]
    assert sorted(groups) == ["q0 category=billing", "q1 category=billing",
                              "q3 category=billing", "q4 category=billing"]
    status, _, sampled = _run(capsys, "logs", "sample", str(log), "--n", "3", "--stratify",
                              "category")
    assert status == 0
    table = {row.split()[0]: int(row.split()[-1]) for row in sampled.splitlines()[3:]}
    assert table == {"billing": 2, "(none)": 1}
    warning = ("warning: 4 query id(s) have a category value with tabs, line breaks or blanks at "
               "its ends: read as one line, the ends removed, a blank value as none (e.g. q0)")
    assert warning in imported and warning in sampled


def test_sample_more_than_logged_is_a_usage_error(tmp_path, capsys, log_file):
    status, _, err = _run(capsys, "logs", "sample", str(log_file), "--n", "13")
    assert status == 2 and "--n: 13 queries asked for, but the logs hold only 12" in err


def test_the_report_shows_latency_beside_the_runs_it_evaluated(tmp_path, capsys, log_file):
    """The walkthrough's last step: ``report --latency`` matches the imported runs by name (the
    run files are named config@version.run; eval and report call them by that file name), so
    every run has its latency row and no run is reported on one side only."""
    out_dir = tmp_path / "out"
    assert main(["logs", "import", str(log_file), "--out", str(out_dir)]) == 0
    qrels = tmp_path / "qrels.txt"
    relevant = sorted({(r["query_id"], r["results"][0]["id"]) for r in sample_records()})
    qrels.write_text("".join(f"{q} 0 {d} 1\n" for q, d in relevant))
    runs = sorted(str(p) for p in (out_dir / "runs").iterdir())
    page = tmp_path / "report.html"
    capsys.readouterr()
    assert main(["report", str(qrels), *runs, "-m", "P@1", "--latency",
                 str(out_dir / "latency.tsv"), "-o", str(page)]) == 0
    html = page.read_text()
    assert "Latency and precision" in html
    section = html.split("Latency and precision", 1)[1]
    assert "no latency row" not in section and "name no evaluated run" not in section
    for run in ("bm25@v1", "dense@v2"):
        assert html.count(run) >= 2


@pytest.mark.parametrize("text", ["", "run\tp50\n"], ids=["empty", "bad-header"])
def test_a_bad_latency_file_is_one_line(tmp_path, capsys, log_file, text):
    (tmp_path / "q.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 1 r\n")
    (tmp_path / "latency.tsv").write_text(text)
    assert main(["report", str(tmp_path / "q.txt"), str(tmp_path / "r"), "--latency",
                 str(tmp_path / "latency.tsv"), "-o", str(tmp_path / "o.html")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("latency.tsv:1:" in err or "file is empty" in err), err
    assert not (tmp_path / "o.html").exists()
