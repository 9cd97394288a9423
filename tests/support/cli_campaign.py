"""The command line's small campaign: two topics, three documents, a four-pair pool and qrels
written to a temporary folder (``files``), ``pooljudge`` run there on a SQLite file (``cli``),
and ``_init`` making the campaign ``demo`` from them. Imported by name by the command tests
(tests/cli/) and the folders that build on them."""

from __future__ import annotations

import pytest

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
