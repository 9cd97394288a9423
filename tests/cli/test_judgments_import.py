"""``judgments import``: a value that cannot be stored exactly as written refuses the whole file.

Each bad file gives one line ``path:line: reason`` (exit 2) and leaves every table of the
database exactly as it was, label sources named by ``--new-annotator`` included.
"""

from __future__ import annotations

import shutil
import sqlite3

import pandas as pd
import pytest

from pooljudge.cli import main

TOPICS = "id\ttitle\n301\tcrime\n302\tpolio\n"
DOCS = '{"id": "FT1", "text": "Mafia."}\n{"id": "FT2", "text": "Vaccine."}\n'
POOL = "topic\tdoc\torder\tbest_rank\truns\n301\tFT1\t1\t1\tA\n302\tFT2\t1\t1\tA\n"
HEADER = "annotator\ttopic\tdoc\tlabel\ttime\tseconds\n"
GOOD = "alice\t302\tFT2\t1\t2024-05-01T10:00:00Z\t2.5\n"
ISO = ("time is not an ISO 8601 date and time such as 2024-05-01T10:00:00Z, "
       "2024-05-01T12:00:00+02:00 or (UTC) 2024-05-01T10:00:00: ")
JSONL = '{"annotator": "alice", "topic": "301", "doc": "FT1", "label": 1}\n'

# (file name, content, line, message)
BAD_FILES = [
    ("j.tsv", HEADER + GOOD + "alice\t301\tFT1\t1\tyesterday\t\n", 3, ISO + "'yesterday'"),
    ("j.tsv", HEADER + GOOD + "alice\t301\tFT1\t1\t2024-02-30T10:00:00\t\n", 3,
     ISO + "'2024-02-30T10:00:00'"),
    ("j.tsv", HEADER + GOOD + "alice\t301\tFT1\t1\t2024-05-01T10:00:00.1234567Z\t\n", 3,
     ISO + "'2024-05-01T10:00:00.1234567Z'"),
    ("j.tsv", HEADER + GOOD + "alice\t301\tFT1\t1\t1714557600\t\n", 3, ISO + "'1714557600'"),
    ("j.tsv", HEADER + GOOD + "alice\t301\tFT1\t1\t\tinf\n", 3,
     "seconds is not a finite number >= 0: 'inf'"),
    ("j.tsv", HEADER + GOOD + "alice\t301\tFT1\t1\t\t1e400\n", 3,
     "seconds is not a finite number >= 0: '1e400'"),
    ("j.tsv", HEADER + GOOD + "alice\t301\tFT1\t1\t\t-1\n", 3,
     "seconds is not a finite number >= 0: '-1'"),
    ("j.tsv", HEADER + GOOD + "alice\t301\tFT1\t1\t\tnan\n", 3,
     "seconds is not a finite number >= 0: 'nan'"),
    ("j.tsv", HEADER + GOOD + "alice\t301\tFT1\t1.0\t\t\n", 3, "label is not an integer: '1.0'"),
    ("j.tsv", HEADER + GOOD + "alice\t301\tFT1\t1e0\t\t\n", 3, "label is not an integer: '1e0'"),
    ("j.tsv", HEADER + GOOD + "alice\t301\tFT1\t \t\t\n", 3, "empty label"),
    ("j.tsv", HEADER + GOOD + "\t301\tFT1\t1\t\t\n", 3, "empty annotator"),
    ("j.tsv", HEADER + GOOD + "alice\t301\tFT1\t1\n", 3, "4 fields, the header has 6"),
    ("j.tsv", HEADER + GOOD + "alice\t301\tFT1\t1\t\t\t\n", 3, "7 fields, the header has 6"),
    ("j.tsv", "annotator\tlabel\ttopic\tdoc\tlabel\nalice\t1\t301\tFT1\t0\n", 1,
     "column 'label' appears twice"),
    ("j.csv", "annotator,topic,doc,label,confidence\nalice,301,FT1,1,0.9\n", 1,
     "unknown column(s) 'confidence'; known: annotator, topic, doc, label, time, created_at, "
     "seconds, comment, source, kind, version, status, rationale"),
    ("j.tsv", "annotator\ttopic\tdoc\tlable\nalice\t301\tFT1\t1\n", 1,
     "missing column(s) label; unknown column(s) 'lable' (for TREC qrels, use --as NAME)"),
    ("j.tsv", "annotator\ttopic\tdoc\tlabel\ttime\tcreated_at\nalice\t301\tFT1\t1\t\t\n", 1,
     "both time and created_at (the same column under two names)"),
    ("j.tsv", "annotator\ttopic\tdoc\tlabel\tversion\nalice\t301\tFT1\t1\t2\n", 2,
     "version 2 given, but this row is version 1 (stored versions continue, in file order)"),
    ("j.jsonl", JSONL + '{"annotator": "alice", "label": 0, "topic": "301", "doc": "FT1", '
     '"label": 1}\n', 2, "key 'label' appears twice"),
    ("j.jsonl", JSONL + JSONL.replace(": 1}", ": 1.0}"), 2, "label is not an integer: '1.0'"),
    ("j.jsonl", JSONL + JSONL.replace(": 1}", ": true}"), 2,
     "label must be a string, a number or null, not true"),
    ("j.jsonl", JSONL + JSONL.replace("}", ', "comment": {"why": "x"}}'), 2,
     'comment must be a string, a number or null, not {"why": "x"}'),
    ("j.jsonl", JSONL + JSONL.replace("}", ', "seconds": 1e400}'), 2,
     "seconds is not a finite number >= 0: 'Infinity'"),
    ("j.jsonl", JSONL + JSONL.replace("}", ', "score": 3}'), 2,
     "unknown column(s) 'score'; known: annotator, topic, doc, label, time, created_at, "
     "seconds, comment, source, kind, version, status, rationale"),
    ("j.jsonl", JSONL + JSONL.replace(', "label": 1', ""), 2,
     "missing column(s) label (for TREC qrels, use --as NAME)"),
]


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """Campaign ``c`` (binary) with annotator alice and one judgment already stored, built
    once: each test works on a copy."""
    folder = tmp_path_factory.mktemp("template")
    for name, text in (("t.tsv", TOPICS), ("d.jsonl", DOCS), ("p.tsv", POOL),
                       ("first.tsv", HEADER + GOOD)):
        (folder / name).write_text(text, encoding="utf-8")
    db = ["--db", f"sqlite:///{folder / 'p.db'}"]
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        assert main(["init", "c", "--topics", "t.tsv", "--docs", "d.jsonl", "--pool", "p.tsv",
                     *db]) == 0
        assert main(["annotators", "add", "alice", "--campaign", "c", *db]) == 0
        assert main(["judgments", "import", "first.tsv", "--campaign", "c", *db]) == 0
    return folder / "p.db"


@pytest.fixture
def campaign(template, tmp_path, monkeypatch):
    """A working folder with a copy of the template campaign as $POOLJUDGE_DB."""
    shutil.copy(template, tmp_path / "p.db")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("POOLJUDGE_DB", f"sqlite:///{tmp_path / 'p.db'}")
    return tmp_path


def _content(database) -> dict[str, list[tuple]]:
    """Every row of every table (statistics tables aside), sorted."""
    with sqlite3.connect(database) as connection:
        names = [n for (n,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        return {n: sorted(connection.execute(f'SELECT * FROM "{n}"').fetchall(), key=repr)
                for n in names}


@pytest.mark.parametrize(("name", "text", "line", "message"), BAD_FILES,
                         ids=[f"{i:02d}-{c[3][:30]}" for i, c in enumerate(BAD_FILES)])
def test_a_value_that_cannot_be_stored_exactly_refuses_the_file(campaign, capsys, name, text,
                                                                line, message):
    (campaign / name).write_text(text, encoding="utf-8")
    before = _content(campaign / "p.db")
    capsys.readouterr()
    status = main(["judgments", "import", name, "--campaign", "c", "--new-annotator", "llm"])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1, err
    assert err.rstrip("\n").endswith(f"{name}:{line}: {message}"), err
    assert _content(campaign / "p.db") == before


TEN_UTC = "2024-05-01T10:00:00.000000Z"
# written time -> the instant stored, by case
ISO_TIMES = {
    "utc": ("2024-05-01T10:00:00Z", TEN_UTC),
    "offset": ("2024-05-01T12:00:00+02:00", TEN_UTC),
    "offset-no-colon": ("2024-05-01T05:30:00-0430", TEN_UTC),
    "no-offset-is-utc": ("2024-05-01T10:00:00", TEN_UTC),
    "space-micro": ("2024-05-01 10:00:00.123456", "2024-05-01T10:00:00.123456Z"),
    "date": ("2024-05-01", "2024-05-01T00:00:00.000000Z"),
}


@pytest.mark.parametrize(("written", "stored"), ISO_TIMES.values(), ids=ISO_TIMES.keys())
def test_iso_times_are_stored_as_the_instant_they_name(campaign, capsys, written, stored):
    (campaign / "t.csv").write_text(f"annotator,topic,doc,label,time\nalice,301,FT1,0,{written}\n",
                                    encoding="utf-8")
    assert main(["judgments", "import", "t.csv", "--campaign", "c"]) == 0
    assert main(["judgments", "export", "--campaign", "c", "-o", "out.tsv"]) == 0
    out = pd.read_csv(campaign / "out.tsv", sep="\t", dtype=str, keep_default_na=False)
    assert out.loc[out["topic"] == "301", "time"].tolist() == [stored]


def test_the_store_refuses_a_frame_with_a_column_twice(campaign):
    from pooljudge.annotate.store import import_judgments, open_engine, session_scope

    from pooljudge.errors import InputError

    frame = pd.DataFrame([["alice", "301", "FT1", "1", "0"]],
                         columns=["annotator", "topic", "doc", "label", "label"])
    engine = open_engine(f"sqlite:///{campaign / 'p.db'}")
    try:
        with pytest.raises(InputError, match="column 'label' appears twice"), \
                session_scope(engine) as session:
            import_judgments(session, campaign="c", frame=frame)
    finally:
        engine.dispose()
