"""``pooljudge init --units MAP``: a campaign of passages; every bad map or pool is one line,
exit 2, and nothing stored (not even the database file)."""

from __future__ import annotations

import json

import pytest
from pooljudge.annotate.store import next_pair, open_engine, pair_by_key, session_scope

from pooljudge.cli import main

TEXT = "Opening words. The widget passage <script>alert(1)</script> here. Closing words."
START, END = TEXT.index("The"), TEXT.index(" Closing")
TOPICS = "id\ttitle\tdescription\tnarrative\n301\twidget\td\tn\n"
DOCS = (json.dumps({"id": "D1", "title": "One", "text": TEXT}) + "\n"
        + json.dumps({"id": "D2", "title": "Two", "text": "tiny"}) + "\n")
POOL = "topic\tdoc\torder\tbest_rank\truns\n301\tD1#1\t1\t1\tA\n301\tD2#0\t2\t2\tA\n"
UNITS = (f"chunk doc start end\n# a comment\nD1#0 D1 0 {START}\nD1#1 D1 {START} {END}\n"
         "D2#0 D2 0 4\n")


@pytest.fixture
def cli(tmp_path, monkeypatch):
    for name, text in (("topics.tsv", TOPICS), ("docs.jsonl", DOCS), ("pool.tsv", POOL),
                       ("units.txt", UNITS)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.setenv("POOLJUDGE_DB", f"sqlite:///{tmp_path / 'p.db'}")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _init(*extra: str) -> int:
    return main(["init", "c", "--topics", "topics.tsv", "--docs", "docs.jsonl", "--pool",
                 "pool.tsv", "--units", "units.txt", *extra])


def test_init_with_units_stores_passages_inside_their_documents(cli, capsys):
    assert _init() == 0
    assert "1 topics, 2 documents, 2 pairs" in capsys.readouterr().out
    engine = open_engine(f"sqlite:///{cli / 'p.db'}")
    try:
        with session_scope(engine, readonly=True) as session:
            view = pair_by_key(session, campaign="c", topic="301", doc="D1#1")
        assert view.doc_text == TEXT[START:END]
        assert (view.passage.doc_id, view.passage.text) == ("D1", TEXT)
        assert (view.passage.start, view.passage.end) == (START, END)
        assert main(["annotators", "add", "a", "--campaign", "c"]) == 0
        with session_scope(engine) as session:
            assert next_pair(session, annotator_id=1).doc_id == "D1#1"
    finally:
        engine.dispose()


@pytest.mark.parametrize(("name", "text", "message"), [
    ("units.txt", UNITS.replace("D1#1 D1", "D1#7 D1"),
     "pool.tsv:2: chunk D1#1 is not in the unit map units.txt"),
    ("units.txt", UNITS.replace(f"{START} {END}", f"{START} 500"),
     f"units.txt:4: chunk D1#1 ends at 500, beyond the {len(TEXT)} characters of document D1"),
    ("units.txt", UNITS.replace("D2#0 D2", "D2#0 D9"),
     "units.txt:5: chunk D2#0: its document D9 is not among the documents"),
    ("units.txt", "# map\nD1#0 D1\nD1#1 D1\nD2#0 D2\n",
     "units.txt:2: the unit map gives no offsets ('chunk doc', not 'chunk doc start end')"),
    ("units.txt", UNITS.replace(f"{START} {END}", f"{END} {START}"),
     f"units.txt:4: start {END} is after end {START}"),
    ("pool.tsv", POOL.replace("D2#0", "D2"), "pool.tsv:3: chunk D2 is not in the unit map"),
    ("pool.tsv", POOL.replace("301\tD2#0", "999\tD2#0"), "pool.tsv:3: unknown topic 999"),
])
def test_bad_units_are_one_line_and_store_nothing(cli, capsys, name, text, message):
    (cli / name).write_text(text, encoding="utf-8")
    assert _init() == 2
    err = capsys.readouterr().err
    assert err.startswith(f"pooljudge: error: {message}"), err
    assert err.count("\n") == 1
    assert not (cli / "p.db").exists()


def test_a_sampled_pools_unsampled_chunks_need_no_map_line(cli, capsys):
    sampled = ("topic\tdoc\torder\tbest_rank\truns\tstratum\tinclusion\tsampled\n"
               "301\tD1#1\t1\t1\tA\t1\t0.5\t1\n301\tNOWHERE#3\t2\t2\tA\t1\t0.5\t0\n")
    (cli / "pool.tsv").write_text(sampled, encoding="utf-8")
    assert _init() == 0
    assert "1 sampled pairs queued of 2 pooled" in capsys.readouterr().out
    (cli / "p.db").unlink()
    (cli / "pool.tsv").write_text(sampled.replace("\t0\n", "\t1\n"), encoding="utf-8")
    assert _init() == 2
    assert "pool.tsv:3: chunk NOWHERE#3 is not in the unit map" in capsys.readouterr().err
