"""``pooljudge nuggets``: import banks, answers and assignments in one transaction (a bad record
stores nothing and prints ``path:line``), export them back, scores and agreement."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest

from pooljudge.cli import main

TOPICS = "id\ttitle\n301\tWho wrote Python?\n302\tpolio\n"
DOCS = '{"id": "FT1", "text": "Guido."}\n{"id": "FT2", "text": "Vaccine."}\n'
POOL = "topic\tdoc\torder\tbest_rank\truns\n301\tFT1\t1\t1\tA\n302\tFT2\t1\t1\tA\n"
BANKS = [
    {"qid": "301", "query": "Who wrote Python?", "nuggets": [
        {"text": "Guido van Rossum wrote Python", "importance": "vital"},
        {"text": "It was released in 1991", "importance": "okay"}]},
    {"qid": "302", "query": "polio", "nuggets": [
        {"text": "Salk made a vaccine", "importance": "okay"}]}]
ANSWERS = [
    {"run_id": "r1", "topic_id": "301", "references": ["FT1"],
     "answer": [{"text": "Guido wrote it.", "citations": [0]}]},
    {"run_id": "r1", "topic_id": "302", "references": [], "answer": [{"text": "?"}]},
    {"run_id": "r2", "topic_id": "301", "references": [], "answer": [{"text": "Nobody."}]},
    {"run_id": "r2", "topic_id": "302", "references": ["FT2"],
     "answer": [{"text": "Salk.", "citations": ["FT2"]}]}]


def _assigned(run, topic, labels, assessor=None):
    texts = [n["text"] for b in BANKS if b["qid"] == topic for n in b["nuggets"]]
    record = {"qid": topic, "run_id": run, "nuggets": [
        {"text": t, "importance": "vital", "assignment": label}
        for t, label in zip(texts, labels, strict=True)]}
    return record | ({"assessor": assessor} if assessor else {})


ASSIGNMENTS = [
    _assigned("r1", "301", ["support", "partial_support"]),
    _assigned("r1", "302", ["not_support"]),
    _assigned("r2", "301", ["not_support", "not_support"]),
    _assigned("r2", "302", ["support"]),
    _assigned("r1", "301", ["support", "not_support"], "kim"),
    _assigned("r2", "301", ["partial_support", "not_support"], "kim")]


def _jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    folder = tmp_path_factory.mktemp("nuggets")
    for name, text in (("t.tsv", TOPICS), ("d.jsonl", DOCS), ("p.tsv", POOL)):
        (folder / name).write_text(text, encoding="utf-8")
    db = ["--db", f"sqlite:///{folder / 'p.db'}"]
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        assert main(["init", "c", "--topics", "t.tsv", "--docs", "d.jsonl", "--pool", "p.tsv",
                     *db]) == 0
        assert main(["annotators", "add", "kim", "--campaign", "c", *db]) == 0
    return folder / "p.db"


@pytest.fixture
def campaign(template, tmp_path, monkeypatch):
    shutil.copy(template, tmp_path / "p.db")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("POOLJUDGE_DB", f"sqlite:///{tmp_path / 'p.db'}")
    _jsonl(tmp_path / "banks.jsonl", BANKS)
    _jsonl(tmp_path / "answers.jsonl", ANSWERS)
    _jsonl(tmp_path / "assign.jsonl", ASSIGNMENTS)
    return tmp_path


def _content(database) -> dict[str, list[tuple]]:
    with sqlite3.connect(database) as connection:
        names = [n for (n,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        return {n: sorted(connection.execute(f'SELECT * FROM "{n}"').fetchall(), key=repr)
                for n in names}


IMPORT = ["nuggets", "import", "--campaign", "c", "--banks", "banks.jsonl", "--answers",
          "answers.jsonl", "--assignments", "assign.jsonl", "--assessor", "gpt-4o",
          "--new-source"]


def test_import_export_scores_and_agree(campaign, capsys):
    assert main(IMPORT) == 0
    assert capsys.readouterr().out == "3 nuggets, 4 answers, 10 assignments stored\n"
    assert main(["nuggets", "export", "banks", "--campaign", "c", "-o", "banks.out"]) == 0
    lines = [json.loads(line) for line in (campaign / "banks.out").read_text().splitlines()]
    assert [(b["query_id"], b["title_query"], list(b["claim_bank"])) for b in lines] == [
        ("301", "Who wrote Python?", ["Guido van Rossum wrote Python", "It was released in 1991"]),
        ("302", "polio", ["Salk made a vaccine"])]
    claim = lines[0]["claim_bank"]["Guido van Rossum wrote Python"]
    assert (claim["claim_id"], claim["creator"]) == ("301-1", [{"is_human": False,
                                                                "llm_model": "nuggetizer"}])
    assert main(["nuggets", "export", "assignments", "--campaign", "c", "-o", "a.out"]) == 0
    exported = [json.loads(line) for line in (campaign / "a.out").read_text().splitlines()]
    assert len(exported) == 6 and exported[0]["answer_text"] == "Guido wrote it."
    capsys.readouterr()
    assert main(["nuggets", "export", "qrels", "--by", "topic", "--campaign", "c"]) == 0
    assert capsys.readouterr().out == ""  # a nuggetizer bank names no source passages
    assert main(["nuggets", "export", "answers", "--campaign", "c"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[3])["answer"] == [
        {"text": "Salk.", "citations": [0]}]
    assert main(["nuggets", "export", "answers", "--answer-format", "report", "--team", "pj",
                 "--campaign", "c"]) == 0
    report = json.loads(capsys.readouterr().out.splitlines()[3])
    assert (report["metadata"], report["responses"]) == (
        {"team_id": "pj", "run_id": "r2", "topic_id": "302"},
        [{"text": "Salk.", "citations": ["FT2"]}])
    assert main(["nuggets", "export", "history", "--campaign", "c"]) == 0
    history = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(h["key"], h["action"], h["actor"]) for h in history] == [
        ("301-1", "created", "import"), ("301-2", "created", "import"),
        ("302-1", "created", "import")]
    assert history[0]["at"].endswith("Z") and history[0]["before"] is None
    assert main(["nuggets", "scores", "--campaign", "c", "--per", "answer", "--format",
                 "json"]) == 0
    scores = {(r["assessor"], r["answer"]): r for r in json.loads(capsys.readouterr().out)}
    assert (scores["gpt-4o", "r1/301"]["strict_all"], scores["gpt-4o", "r1/301"]["all"]) == (
        0.5, 0.75)
    assert scores["gpt-4o", "r2/302"]["vital"] == 0.0  # no vital nugget in 302
    assert main(["nuggets", "scores", "--campaign", "c", "--format", "json"]) == 0
    runs = {(r["assessor"], r["run"], r["score"]): r for r in
            json.loads(capsys.readouterr().out)}
    assert runs["gpt-4o", "r2", "all"]["mean"] == 0.5
    assert runs["gpt-4o", "r2", "all"]["topics"] == 2
    assert main(["nuggets", "scores", "--campaign", "c", "--ppi", "gpt-4o", "--format",
                 "json"]) == 0
    ppi = {(r["run"], r["score"]): r for r in json.loads(capsys.readouterr().out)}
    assert (ppi["r1", "all"]["labelled"], ppi["r1", "all"]["unlabelled"]) == (1, 1)
    assert ppi["r1", "all"]["human_mean"] == 0.5  # kim's score of r1/301
    assert main(["nuggets", "scores", "--campaign", "c", "--ppi", "gpt-4o", "--per",
                 "answer"]) == 2
    assert capsys.readouterr().err.endswith("--ppi: estimates are per run (not with --per "
                                            "answer)\n")
    assert main(["nuggets", "agree", "--campaign", "c", "--format", "json",
                 "--resamples", "0"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(p["a"], p["b"], p["n"]) for p in report["pairs"]] == [("gpt-4o", "kim", 4)]
    ranked = {r["score"]: r for r in report["run_rankings"]}
    assert (ranked["all"]["runs"], ranked["all"]["topics"]) == (2, 1)
    assert ranked["all"]["tau_b"] == 1.0  # r1 above r2 for both (0.75 > 0, 0.5 > 0.25)
    assert main(["nuggets", "edits", "--campaign", "c", "--format", "json"]) == 0
    edits = json.loads(capsys.readouterr().out)
    assert edits[-1] == {"topic": "all", "model_nuggets": 3, "kept": 3, "edited": 0,
                         "merged": 0, "deleted": 0, "added": 0, "kept_share": 1.0}


BAD = [
    ("banks.jsonl", [BANKS[0], {"qid": "303", "nuggets": []}], 2,
     "campaign 'c' has no topic '303'"),
    ("banks.jsonl", [BANKS[0], {"qid": "302", "nuggets": [{"text": "x",
                                                           "importance": "high"}]}], 2,
     "importance must be one of vital, okay, not 'high'"),
    ("answers.jsonl", [*ANSWERS, {"run_id": "r3", "topic_id": "309", "answer": []}], 5,
     "campaign 'c' has no topic '309'"),
    ("assign.jsonl", [*ASSIGNMENTS, _assigned("r9", "302", ["support"])], 7,
     "run 'r9' has no answers to topic '302'"),
    ("assign.jsonl", [*ASSIGNMENTS, {"qid": "302", "run_id": "r1", "answer_id": "nope",
                                     "nuggets": []}], 7, "no answer 'nope'"),
    ("assign.jsonl", [*ASSIGNMENTS, {"qid": "302", "run_id": "r1", "nuggets": [
        {"text": "Salk made a vaccine", "assignment": "yes"}]}], 7,
     "assignment must be one of not_support, partial_support, support, not 'yes'"),
]


@pytest.mark.parametrize(("name", "records", "line", "message"), BAD)
def test_a_bad_record_prints_path_line_and_stores_nothing(campaign, capsys, name, records,
                                                          line, message):
    _jsonl(campaign / name, records)
    before = _content(campaign / "p.db")
    capsys.readouterr()
    status = main(IMPORT)
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1, err
    assert err.rstrip("\n").endswith(f"{name}:{line}: {message}"), err
    assert _content(campaign / "p.db") == before


def test_round_trip_of_exported_banks_into_a_new_campaign(campaign, capsys):
    assert main(IMPORT) == 0
    assert main(["nuggets", "export", "banks", "--campaign", "c", "-o", "out.jsonl"]) == 0
    for name, text in (("t.tsv", TOPICS), ("docs.jsonl", DOCS), ("pool.tsv", POOL)):
        (campaign / name).write_text(text, encoding="utf-8")
    assert main(["init", "d", "--topics", "t.tsv", "--docs", "docs.jsonl", "--pool",
                 "pool.tsv"]) == 0
    assert main(["nuggets", "import", "--campaign", "d", "--banks", "out.jsonl",
                 "--bank-format", "nuggetbanks"]) == 0
    for name in ("c", "d"):
        assert main(["nuggets", "export", "banks", "--campaign", name, "-o",
                     f"bank-{name}.jsonl"]) == 0
    exported = (campaign / "bank-c.jsonl").read_text(encoding="utf-8")
    assert (campaign / "bank-d.jsonl").read_text(encoding="utf-8") == exported
    assert '"claim_id": "301-2"' in exported


@pytest.mark.parametrize(("extra", "message"), [
    (["--bank-format", "nuggetbanks", "--author", "me"],
     "a NuggetBanks file names its own authors"),
    (["--author-kind", "person", "--prompt-sha256", "ab" * 32],
     "only a model author has a prompt"),
    (["--prompt-sha256", "xyz"], "not a SHA-256 in hexadecimal (64 digits): 'xyz'"),
    ([], "give --banks, --answers and/or --assignments"),
])
def test_usage_errors(campaign, capsys, extra, message):
    files = ["--banks", "banks.jsonl"] if extra else []
    assert main(["nuggets", "import", "--campaign", "c", *files, *extra]) == 2
    assert capsys.readouterr().err.rstrip("\n").endswith(message)
