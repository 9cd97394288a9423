"""Command line: init, annotators, campaigns, judgments import/export, simulate."""

from __future__ import annotations

import uuid

import pandas as pd
import pytest
from pooljudge.annotate.store import (
    authenticate,
    judgments_frame,
    list_annotators,
    open_engine,
    session_scope,
)

from pooljudge.cli import main

TOPICS = "id\ttitle\tdescription\tnarrative\n301\tcrime\tfind crime\tnames\n302\tpolio\tp\tn\n"
DOCS = ('{"id": "FT1", "title": "Mafia", "text": "Mafia groups."}\n'
        '{"id": "FT2", "title": "Polio", "text": "Vaccine."}\n'
        '{"id": "FT3", "title": "", "text": "Nothing."}\n')
POOL = ("topic\tdoc\torder\tbest_rank\truns\n301\tFT1\t1\t1\tA\n301\tFT3\t2\t4\tA,B\n"
        "302\tFT2\t1\t1\tB\n302\tFT3\t2\t2\tA\n")
QRELS = "301 0 FT1 1\n302 0 FT2 1\n302 0 FT3 0\n"


@pytest.fixture
def files(tmp_path):
    for name, text in (("topics.tsv", TOPICS), ("docs.jsonl", DOCS), ("pool.tsv", POOL),
                       ("qrels.txt", QRELS)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


@pytest.fixture
def cli(files, monkeypatch):
    """Run ``pooljudge`` on a SQLite file given by $POOLJUDGE_DB; returns (status, out, err)."""
    monkeypatch.setenv("POOLJUDGE_DB", f"sqlite:///{files / 'p.db'}")
    monkeypatch.chdir(files)

    def run(*argv: str) -> int:
        return main(list(argv))

    return run


def _init(cli, *extra: str) -> int:
    return cli("init", "demo", "--topics", "topics.tsv", "--docs", "docs.jsonl", "--pool",
               "pool.tsv", *extra)


def test_init_annotators_and_campaigns(cli, files, capsys):
    assert _init(cli, "--overlap", "2", "--scale", "0-2") == 0
    assert "2 topics, 3 documents, 4 pairs, overlap 2" in capsys.readouterr().out
    assert cli("annotators", "add", "alice", "--campaign", "demo", "--url", "http://x:1/") == 0
    link = capsys.readouterr().out.strip()
    assert link.startswith("http://x:1/?token=")
    engine = open_engine(f"sqlite:///{files / 'p.db'}")
    with session_scope(engine) as session:
        assert authenticate(session, token=link.split("token=")[1]).name == "alice"
    engine.dispose()
    assert cli("annotators", "add", "boss", "--campaign", "demo", "--admin") == 0
    capsys.readouterr()
    assert cli("annotators", "list", "--campaign", "demo", "--format", "tsv") == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0].split("\t")[:3] == ["name", "role", "human"]
    assert [line.split("\t")[:2] for line in listed[1:]] == [["alice", "annotator"],
                                                             ["boss", "admin"]]
    assert cli("annotators", "remove", "alice", "--campaign", "demo") == 0
    assert cli("campaigns", "list", "--format", "tsv") == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].split("\t")[:5] == ["demo", "2", "4", "2", "1"]
    assert cli("campaigns", "show", "demo") == 0
    assert "judgments_needed: 8" in capsys.readouterr().out


@pytest.mark.parametrize(("pool", "message"), [
    (POOL + "302\tFT9\t3\t3\tA\n", "pool.tsv:6: unknown document FT9"),
    (POOL.replace("302\tFT2", "303\tFT2"), "pool.tsv:4: unknown topic 303"),
], ids=["document", "topic"])
def test_init_refuses_unknown_pool_members(cli, files, capsys, pool, message):
    (files / "pool.tsv").write_text(pool, encoding="utf-8")
    assert _init(cli) == 2
    assert capsys.readouterr().err.strip() == f"pooljudge: error: {message}"
    assert not (files / "p.db").exists()  # refused before the database is opened


def test_init_refuses_bad_scale(cli, capsys):
    assert _init(cli, "--scale", "3-1") == 2
    assert capsys.readouterr().err == ("pooljudge: error: --scale: 3-1: a graded scale needs "
                                       "lo < hi, got 3-1\n")


def test_grant_and_revoke_a_role_in_another_campaign(cli, files, capsys):
    assert _init(cli) == 0
    assert cli("init", "other", "--topics", "topics.tsv", "--docs", "docs.jsonl", "--pool",
               "pool.tsv") == 0
    assert cli("annotators", "add", "boss", "--campaign", "demo", "--admin") == 0
    assert cli("annotators", "add", "carol", "--campaign", "other") == 0
    capsys.readouterr()
    assert cli("annotators", "grant", "boss", "--of", "demo", "--campaign", "other",
               "--role", "admin") == 0
    assert capsys.readouterr().out == ("boss of demo is now admin of other "
                                       "(with their own login link)\n")
    assert cli("annotators", "list", "--campaign", "other", "--format", "tsv") == 0
    listed = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert listed[0] == ["name", "role", "human", "active", "judgments", "last_judgment",
                         "granted_from"]
    assert [(r[0], r[1], r[-1]) for r in listed[1:]] == [("carol", "annotator", ""),
                                                         ("boss", "admin", "demo")]
    assert cli("annotators", "list", "--campaign", "demo", "--format", "tsv") == 0
    assert [line.split("\t")[-1] for line in capsys.readouterr().out.splitlines()[1:]] == [""]
    assert cli("annotators", "revoke", "boss", "--of", "demo", "--campaign", "other") == 0
    assert capsys.readouterr().out == "boss of demo is no longer admin of other\n"
    assert cli("annotators", "list", "--campaign", "other") == 0
    assert "boss" not in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (("grant", "boss", "--of", "demo", "--campaign", "nowhere", "--role", "admin"),
     "no campaign named 'nowhere'"),
    (("grant", "boss", "--of", "nowhere", "--campaign", "other", "--role", "admin"),
     "no campaign named 'nowhere'"),
    (("grant", "zed", "--of", "demo", "--campaign", "other", "--role", "admin"),
     "no active annotator 'zed' in campaign 'demo'"),
    (("grant", "boss", "--of", "demo", "--campaign", "demo", "--role", "adjudicator"),
     "cannot grant 'boss' a role in 'demo': it is their own campaign (their role there is "
     "the one they were added with)"),
    (("grant", "boss", "--of", "demo", "--campaign", "other", "--role", "annotator"),
     "--role: invalid choice: 'annotator' (choose from "),  # quotes vary with Python
    (("revoke", "boss", "--of", "demo", "--campaign", "other"),
     "'boss' holds no granted role in campaign 'other'"),
], ids=["campaign", "own-campaign-unknown", "person", "own", "role", "revoke-nothing"])
def test_grant_and_revoke_errors_are_one_line(cli, files, capsys, argv, message):
    assert _init(cli) == 0
    assert cli("init", "other", "--topics", "topics.tsv", "--docs", "docs.jsonl", "--pool",
               "pool.tsv") == 0
    assert cli("annotators", "add", "boss", "--campaign", "demo", "--admin") == 0
    capsys.readouterr()
    assert cli("annotators", *argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"pooljudge: error: {message}") and err.count("\n") == 1, err
    assert err.endswith(")\n" if argv[-1] == "annotator" else f"{message}\n")
    assert cli("annotators", "list", "--campaign", "other") == 0
    assert capsys.readouterr().out == "(none)\n"


@pytest.mark.parametrize(("row", "message"), [
    ("alice\t301\tFT1\t3", "label 3 is not on the scale [0, 1]"),
    ("alice\t301\tFT1\tyes", "label is not an integer: 'yes'"),
    ("zed\t301\tFT1\t1", "unknown annotator 'zed'"),
    ("alice\t399\tFT1\t1", "unknown topic '399'"),
    ("alice\t301\tFT9\t1", "unknown document 'FT9'"),
    ("alice\t301\tFT2\t1", "topic '301', document 'FT2' is not in the pool"),
], ids=["scale", "integer", "annotator", "topic", "document", "pair"])
def test_import_refuses_the_whole_file(cli, files, capsys, row, message):
    assert _init(cli) == 0
    assert cli("annotators", "add", "alice", "--campaign", "demo") == 0
    body = "annotator\ttopic\tdoc\tlabel\nalice\t302\tFT2\t1\n\n" + row + "\n"
    (files / "j.tsv").write_text(body, encoding="utf-8")
    capsys.readouterr()
    assert cli("judgments", "import", "j.tsv", "--campaign", "demo",
               "--new-annotator", "llm") == 2
    assert capsys.readouterr().err.strip() == f"pooljudge: error: j.tsv:4: {message}"
    assert cli("judgments", "export", "--campaign", "demo") == 0
    assert capsys.readouterr().out.splitlines()[1:] == []
    engine = open_engine(f"sqlite:///{files / 'p.db'}")
    with session_scope(engine) as session:
        assert list_annotators(session, campaign="demo")["name"].tolist() == ["alice"]
    engine.dispose()


def test_import_qrels_as_label_source_and_export_round_trip(cli, files, capsys):
    assert _init(cli, "--overlap", "2") == 0
    assert cli("annotators", "add", "alice", "--campaign", "demo") == 0
    assert cli("judgments", "import", "qrels.txt", "--campaign", "demo", "--as", "qrels") == 0
    (files / "j.csv").write_text("annotator,topic,doc,label,seconds,comment,time\n"
                                 "alice,301,FT1,1,2.5,\"sure, yes\",2024-05-01T10:00:00Z\n"
                                 "alice,301,FT1,0,,,\n", encoding="utf-8")
    (files / "states.tsv").write_text(  # an undo, then "I can't judge this"
        "annotator\ttopic\tdoc\tlabel\tstatus\trationale\n"
        "alice\t302\tFT2\t1\tlabel\t\nalice\t302\tFT2\t\twithdrawn\t\n"
        "alice\t302\tFT2\t\tcannot_judge\tnot English\n", encoding="utf-8")
    assert cli("judgments", "import", "j.csv", "--campaign", "demo") == 0
    assert cli("judgments", "import", "states.tsv", "--campaign", "demo") == 0
    capsys.readouterr()
    assert cli("judgments", "export", "--campaign", "demo", "-o", "all.tsv") == 0
    exported = pd.read_csv(files / "all.tsv", sep="\t", dtype=str, keep_default_na=False)
    assert list(exported.columns) == ["annotator", "topic", "doc", "label", "version", "time",
                                      "seconds", "source", "comment", "kind", "status",
                                      "rationale"]
    assert exported[["label", "version", "status", "rationale"]].values.tolist()[5:] == [
        ["1", "1", "label", ""], ["", "2", "withdrawn", ""],
        ["", "3", "cannot_judge", "not English"]]
    assert exported[["annotator", "topic", "doc", "label", "version", "source"]].values.tolist(
        )[:5] == [["qrels", "301", "FT1", "1", "1", "automatic"],
            ["qrels", "302", "FT2", "1", "1", "automatic"],
            ["qrels", "302", "FT3", "0", "1", "automatic"],
            ["alice", "301", "FT1", "1", "1", "import"],
            ["alice", "301", "FT1", "0", "2", "import"]]
    assert exported["comment"].iloc[3] == "sure, yes"
    assert exported["time"].iloc[3] == "2024-05-01T10:00:00.000000Z"
    engine = open_engine(f"sqlite:///{files / 'p.db'}")
    with session_scope(engine) as session:
        annotators = list_annotators(session, campaign="demo").set_index("name")
    engine.dispose()
    assert not annotators.loc["qrels", "human"] and annotators.loc["alice", "human"]
    # re-importing the export into a fresh campaign reproduces every row
    (files / "p.db").unlink()
    assert _init(cli, "--overlap", "2") == 0
    assert cli("annotators", "add", "alice", "--campaign", "demo") == 0
    assert cli("judgments", "import", "all.tsv", "--campaign", "demo",
               "--new-annotator", "qrels") == 0
    assert cli("judgments", "export", "--campaign", "demo", "-o", "again.tsv") == 0
    again = pd.read_csv(files / "again.tsv", sep="\t", dtype=str, keep_default_na=False)
    columns = ["annotator", "topic", "doc", "label", "version", "seconds", "source", "comment",
               "status", "rationale"]
    pd.testing.assert_frame_equal(again[columns], exported[columns])
    assert again["time"].iloc[3] == exported["time"].iloc[3]


def test_simulate_completes_the_campaign_through_the_claim_path(files, db_url, capsys,
                                                                monkeypatch):
    monkeypatch.chdir(files)
    name = f"sim-{uuid.uuid4().hex[:8]}"
    assert main(["init", name, "--topics", "topics.tsv", "--docs", "docs.jsonl", "--pool",
                 "pool.tsv", "--overlap", "2", "--db", db_url]) == 0
    assert main(["simulate", "annotators", "--campaign", name, "--truth", "qrels.txt",
                 "--annotators", "3", "--workers", "2", "--db", db_url]) == 0
    engine = open_engine(db_url)
    with session_scope(engine) as session:
        frame = judgments_frame(session, campaign=name)
    engine.dispose()
    assert len(frame) == 8 and (frame.groupby(["topic", "doc"]).size() == 2).all()
    truth = {("301", "FT1"): 1, ("302", "FT2"): 1}  # FT3 pairs: absent or 0 -> 0
    expected = [truth.get((t, d), 0) for t, d in zip(frame["topic"], frame["doc"], strict=True)]
    assert frame["label"].tolist() == expected and (frame["source"] == "automatic").all()
    assert main(["simulate", "annotators", "--campaign", name, "--truth", "qrels.txt",
                 "--annotators", "1", "--db", db_url]) == 2
    assert "cannot meet the overlap 2" in capsys.readouterr().err


def test_jsonl_and_qrels_import_errors_name_their_lines(cli, files, capsys):
    assert _init(cli) == 0
    row = '{{"annotator": "llm", "topic": "301", "doc": "FT1", "label": {}}}\n'
    (files / "j.jsonl").write_text(row.format(1) + "\n" + row.format(7), encoding="utf-8")
    capsys.readouterr()
    assert cli("judgments", "import", "j.jsonl", "--campaign", "demo",
               "--new-annotator", "llm") == 2
    assert capsys.readouterr().err.strip() == ("pooljudge: error: j.jsonl:3: label 7 is not on "
                                               "the scale [0, 1]")
    (files / "q.txt").write_text("# made by hand\n301 0 FT1 1\n\n302 0 FT9 1\n",
                                 encoding="utf-8")
    assert cli("judgments", "import", "q.txt", "--campaign", "demo", "--as", "qrels") == 2
    assert capsys.readouterr().err.strip() == "pooljudge: error: q.txt:4: unknown document 'FT9'"
    assert cli("judgments", "import", "q.txt", "--campaign", "demo") == 2
    assert "use --as NAME" in capsys.readouterr().err


def test_the_guide_lists_the_judgments_export_columns():
    """campaigns.md names the columns ``judgments export`` writes (EXPORT_COLUMNS, the header
    the export test above reads back), in order."""
    import re
    from pathlib import Path

    from pooljudge.cli.judgments_cmd import EXPORT_COLUMNS

    guide = (Path(__file__).resolve().parents[2] / "docs" / "guides" / "campaigns.md").read_text(
        encoding="utf-8")
    listed = re.search(r"`judgments export` writes every row \(all versions\):\s+`([^`]+)`",
                       guide)
    assert listed is not None
    assert tuple(listed[1].split()) == EXPORT_COLUMNS
