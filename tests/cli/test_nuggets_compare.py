"""``pooljudge nuggets compare``: two bank files (both formats), two authors of one campaign
and two campaigns, on SQLite and PostgreSQL; bad records and bad options are one line."""

from __future__ import annotations

import json

import pytest

from pooljudge.cli import main

TOPICS = "id\ttitle\n301\tWho wrote Python?\n302\tpolio\n303\tcafé\n"
DOCS = '{"id": "FT1", "text": "Guido."}\n'
POOL = "topic\tdoc\torder\tbest_rank\truns\n" + "".join(
    f"{t}\tFT1\t1\t1\tA\n" for t in (301, 302, 303))
KIM = [{"qid": "301", "query": "q", "nuggets": [
           {"text": "Guido van Rossum wrote Python", "importance": "vital"},
           {"text": "First released in 1991", "importance": "okay"},
           {"text": "Named after Monty Python", "importance": "okay"}]},
       {"qid": "302", "query": "polio", "nuggets": [
           {"text": "Salk made the first vaccine", "importance": "vital"}]},
       {"qid": "303", "query": "café", "nuggets": []}]
MODEL = [{"qid": "301", "query": "q", "nuggets": [
             {"text": "python was written by Guido van Rossum", "importance": "vital"},
             {"text": "FIRST RELEASED: 1991.", "importance": "vital"},
             {"text": "It is dynamically typed", "importance": "okay"}]},
         {"qid": "303", "query": "café", "nuggets": [
             {"text": "Café « crème » ☕", "importance": "okay"}]}]
EXPECTED = {  # topic: a, b, linked, share_a_linked, share_b_linked, kappa
    "301": [3, 3, 2, 2 / 3, 2 / 3, 0.0],
    "302": [1, 0, 0, 0.0, None, None],
    "303": [0, 1, 0, None, 0.0, None],
    "all": [4, 4, 2, 0.5, 0.5, 0.0]}


def _jsonl(path, records):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                    encoding="utf-8")
    return str(path)


def _figures(report):
    return {row["topic"]: [row[c] for c in ("a", "b", "linked", "share_a_linked",
                                            "share_b_linked", "kappa")]
            for row in report["topics"]}


def _approx(figures):
    return {t: [pytest.approx(v) if isinstance(v, float) else v for v in row]
            for t, row in figures.items()}


def test_two_files_in_either_format(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _jsonl(tmp_path / "kim.jsonl", KIM)
    _jsonl(tmp_path / "model.jsonl", MODEL)
    assert main(["nuggets", "compare", "--banks", "kim.jsonl", "model.jsonl", "--format",
                 "json", "--links", "links.tsv"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert _figures(report) == _approx(EXPECTED)
    assert [(x["a_key"], x["b_key"]) for x in report["links"]] == [("301-1", "301-1"),
                                                                   ("301-2", "301-2")]
    assert [x["similarity"] for x in report["links"]] == [0.5, 0.75]
    lines = (tmp_path / "links.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t")[:3] == ["topic", "a_key", "b_key"] and len(lines) == 3
    assert main(["nuggets", "compare", "--banks", "kim.jsonl", "model.jsonl", "--threshold",
                 "1"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:4] == ["topic", "a", "b", "linked"]
    assert table[1].split()[:4] == ["301", "3", "3", "0"]  # nothing identical at threshold 1


def test_nuggetbanks_files_keep_their_claim_ids(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for name, banks in (("kim", KIM), ("model", MODEL)):
        lines = [{"query_id": b["qid"], "title_query": b["query"], "claim_bank": {
            n["text"]: {"claim": n["text"], "claim_id": f"{name}{i}", "importance":
                        n["importance"]} for i, n in enumerate(b["nuggets"])}} for b in banks]
        _jsonl(tmp_path / f"{name}.jsonl", lines)
    assert main(["nuggets", "compare", "--banks", "kim.jsonl", "model.jsonl", "--bank-format",
                 "nuggetbanks", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert _figures(report) == _approx(EXPECTED)
    assert [(x["a_key"], x["b_key"]) for x in report["links"]] == [("kim0", "model0"),
                                                                   ("kim1", "model1")]


def _campaign(tmp_path, db, name="c"):
    for file, text in (("t.tsv", TOPICS), ("d.jsonl", DOCS), ("p.tsv", POOL)):
        (tmp_path / file).write_text(text, encoding="utf-8")
    assert main(["init", name, "--topics", "t.tsv", "--docs", "d.jsonl", "--pool", "p.tsv",
                 "--db", db]) == 0


def test_two_authors_of_a_campaign_and_two_campaigns(fresh_db_url, tmp_path, monkeypatch,
                                                      capsys):
    monkeypatch.chdir(tmp_path)
    db = fresh_db_url
    _campaign(tmp_path, db)
    _jsonl(tmp_path / "kim.jsonl", KIM)
    _jsonl(tmp_path / "model.jsonl", MODEL)
    assert main(["nuggets", "import", "--campaign", "c", "--banks", "kim.jsonl",
                 "--author-kind", "person", "--author", "kim", "--db", db]) == 0
    assert main(["nuggets", "import", "--campaign", "c", "--banks", "model.jsonl",
                 "--author", "gpt-4o", "--db", db]) == 0
    capsys.readouterr()
    assert main(["nuggets", "compare", "--campaign", "c", "--authors", "kim", "gpt-4o",
                 "--format", "json", "--db", db]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["banks"] == ["kim", "gpt-4o"]
    assert _figures(report) == _approx(EXPECTED)
    assert [(x["a_key"], x["b_key"]) for x in report["links"]] == [("301-1", "301-4"),
                                                                   ("301-2", "301-5")]
    _campaign(tmp_path, db, "d")
    assert main(["nuggets", "import", "--campaign", "d", "--banks", "model.jsonl",
                 "--db", db]) == 0
    capsys.readouterr()
    assert main(["nuggets", "compare", "--campaigns", "c", "d", "--format", "tsv",
                 "--db", db]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    overall = dict(zip(rows[0], rows[-1], strict=True))
    assert (overall["topic"], overall["a"], overall["b"], overall["linked"]) == (
        "all", "8", "4", "4")  # c holds both banks: the model's nuggets link to themselves
    assert main(["nuggets", "compare", "--campaign", "c", "--authors", "kim", "kimm",
                 "--db", db]) == 2
    assert capsys.readouterr().err == ("pooljudge: error: campaign 'c' has no active nuggets "
                                       "by 'kimm'\n")
    assert main(["nuggets", "compare", "--campaigns", "c", "nope", "--db", db]) == 2
    assert capsys.readouterr().err == "pooljudge: error: no campaign named 'nope'\n"


PAIRED = "--authors needs --campaign, and --campaign goes with --authors"


@pytest.mark.parametrize(("args", "message"), [
    (["--banks", "kim.jsonl", "kim.jsonl"], "bank A and bank B are both 'kim.jsonl'"),
    (["--authors", "kim", "gpt"], PAIRED),
    (["--banks", "kim.jsonl", "model.jsonl", "--campaign", "c"], PAIRED),
    (["--banks", "kim.jsonl", "model.jsonl", "--threshold", "0"],
     "--threshold: must be in (0, 1], got 0"),
    (["--banks", "kim.jsonl", "bad.jsonl"], "bad.jsonl:2: importance must be one of vital, "
                                            "okay, not 'high'"),
])
def test_bad_options_and_records_are_one_line(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    _jsonl(tmp_path / "kim.jsonl", KIM)
    _jsonl(tmp_path / "model.jsonl", MODEL)
    _jsonl(tmp_path / "bad.jsonl", [MODEL[0], {"qid": "9", "nuggets": [
        {"text": "x", "importance": "high"}]}])
    assert main(["nuggets", "compare", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.rstrip("\n").endswith(message), err
    assert not (tmp_path / "pooljudge.db").exists()
