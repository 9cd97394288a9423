"""Only ``init`` (and ``serve``) create a database; every other command says there is none.

A missing SQLite file is ``pooljudge: error: DB: no such database`` (exit 2) and no file
appears; a PostgreSQL database is never created, and one without pooljudge's tables is left
without them.
"""

from __future__ import annotations

import uuid

import pytest
import sqlalchemy as sa

from pooljudge.cli import main
from tests.support.postgres import PG_SERVER, create_pg_database, drop_pg_database

POOL = "topic\tdoc\torder\tbest_rank\truns\n301\tFT1\t1\t1\tA\n"
JUDGMENTS = "annotator\ttopic\tdoc\tlabel\nalice\t301\tFT1\t1\n"
COMMANDS = [
    ("campaigns", "list"),
    ("campaigns", "show", "c"),
    ("annotators", "list", "--campaign", "c"),
    ("annotators", "add", "alice", "--campaign", "c"),
    ("annotators", "remove", "alice", "--campaign", "c"),
    ("agree", "--campaign", "c"),
    ("export", "--campaign", "c", "-o", "qrels.txt"),
    ("adjudication", "list", "--campaign", "c"),
    ("judgments", "export", "--campaign", "c", "-o", "all.tsv"),
    ("judgments", "import", "j.tsv", "--campaign", "c"),
    ("simulate", "annotators", "--campaign", "c", "--truth", "q.txt"),
]


def _ids(command: tuple[str, ...]) -> str:
    return " ".join(word for word in command[:2] if not word.startswith("-"))


def _run(capsys, argv: list[str]) -> tuple[int, str]:
    status = main(argv)
    out, err = capsys.readouterr()
    assert out == ""
    return status, err


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A working folder holding only the input files some commands read first."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("POOLJUDGE_DB", raising=False)
    (tmp_path / "j.tsv").write_text(JUDGMENTS, encoding="utf-8")
    (tmp_path / "q.txt").write_text("301 0 FT1 1\n", encoding="utf-8")
    (tmp_path / "t.tsv").write_text("id\ttitle\n301\tcrime\n", encoding="utf-8")
    (tmp_path / "d.jsonl").write_text('{"id": "FT1", "text": "Mafia."}\n', encoding="utf-8")
    (tmp_path / "p.tsv").write_text(POOL, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("command", COMMANDS, ids=_ids)
@pytest.mark.parametrize("given", ["default", "--db"])
def test_a_missing_sqlite_database_is_an_error_and_stays_missing(folder, capsys, command,
                                                                  given):
    before = sorted(p.name for p in folder.iterdir())
    extra = ["--db", "sqlite:///other.db"] if given == "--db" else []
    status, err = _run(capsys, [*command, *extra])
    name = "other.db" if extra else "pooljudge.db"
    assert (status, err) == (2, f"pooljudge: error: {name}: no such database\n")
    assert sorted(p.name for p in folder.iterdir()) == before


def test_init_creates_the_database(folder, capsys):
    assert main(["init", "c", "--topics", "t.tsv", "--docs", "d.jsonl", "--pool", "p.tsv"]) == 0
    assert (folder / "pooljudge.db").is_file()
    capsys.readouterr()
    assert main(["campaigns", "list", "--format", "tsv"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split("\t")[:3] == ["c", "1", "1"]


@pytest.mark.postgres
@pytest.mark.parametrize("command", [*COMMANDS, ("init", "c", "--topics", "t.tsv", "--docs",
                                                 "d.jsonl", "--pool", "p.tsv")], ids=_ids)
def test_a_missing_postgresql_database_is_never_created(folder, capsys, command, pg_url):
    # pg_url: skips (fails under CI) without the server
    url = PG_SERVER.format(database=f"pooljudge_absent_{uuid.uuid4().hex[:12]}")
    status, err = _run(capsys, [*command, "--db", url])
    assert (status, err) == (2, f"pooljudge: error: {url}: no such database\n")
    admin = sa.create_engine(PG_SERVER.format(database="postgres"))
    with admin.connect() as connection:
        names = connection.execute(sa.text("SELECT datname FROM pg_database")).scalars().all()
    admin.dispose()
    assert url.rsplit("/", 1)[1] not in names


@pytest.mark.postgres
@pytest.mark.parametrize("command", COMMANDS[:3], ids=_ids)
def test_a_postgresql_database_without_tables_stays_empty(folder, capsys, command):
    name = create_pg_database("pooljudge_empty")
    url = PG_SERVER.format(database=name)
    try:
        status, err = _run(capsys, [*command, "--db", url])
        assert status == 2 and err.startswith(f"pooljudge: error: {url}: no such database")
        engine = sa.create_engine(url)
        assert sa.inspect(engine).get_table_names() == []
        engine.dispose()
    finally:
        drop_pg_database(name)
