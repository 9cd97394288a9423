"""H5-H10, H12: databases, addresses, names and environment variables that are not what they
should be. Each is one ``pooljudge: error:`` line with exit status 2, checked before anything is
written (or, for ``serve``, before Streamlit starts), with control characters escaped."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hostile.conftest import run_inprocess

ESC = "\x1b[31m"

# every command that opens a database, with what it needs besides --db
DB_COMMANDS = {
    "init": lambda g: ["init", "c2", "--topics", f"{g}/topics", "--docs", f"{g}/docs",
                       "--pool", f"{g}/pool"],
    "campaigns list": lambda g: ["campaigns", "list"],
    "annotators add": lambda g: ["annotators", "add", "eve", "--campaign", "demo"],
    "agree": lambda g: ["agree", "--campaign", "demo"],
    "export": lambda g: ["export", "--campaign", "demo", "-o", "-"],
    "judgments export": lambda g: ["judgments", "export", "--campaign", "demo"],
    "judgments import": lambda g: ["judgments", "import", f"{g}/judgments", "--campaign",
                                   "demo"],
}
READ_ONLY = ("campaigns list", "agree", "export", "judgments export")


def _one_line(capsys, status: int) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert status == 2, err
    assert err.count("\n") == 1 and err.startswith("pooljudge: error: "), err
    return err


# --- H9, H5: URLs that store nothing or are no database ----------------------------------------

@pytest.mark.parametrize("command", list(DB_COMMANDS))
@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:", "", "  ",
                                 "sqlite:////dev/null", f"sqlite:///x{ESC}\n.db"])
def test_a_database_url_that_keeps_nothing_is_refused(command, url, good, tmp_path, capsys,
                                                      monkeypatch):
    monkeypatch.chdir(tmp_path)
    err = _one_line(capsys, run_inprocess([*DB_COMMANDS[command](good), "--db", url]))
    assert "\x1b" not in err
    assert not (tmp_path / "pooljudge.db").exists()  # --db '' is not ./pooljudge.db


@pytest.mark.parametrize("url", ["sqlite://", ""])
def test_the_environment_database_is_checked_too(url, good, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("POOLJUDGE_DB", url)
    err = _one_line(capsys, run_inprocess(["campaigns", "list"]))
    assert "$POOLJUDGE_DB" in err
    assert not (tmp_path / "pooljudge.db").exists()


# --- H12: read-only commands never create or change a file -------------------------------------

@pytest.mark.parametrize("command", READ_ONLY)
def test_a_read_only_command_leaves_an_empty_file_empty(command, good, tmp_path, capsys):
    db = tmp_path / "empty.db"
    db.write_bytes(b"")
    err = _one_line(capsys, run_inprocess([*DB_COMMANDS[command](good), "--db",
                                           f"sqlite:///{db}"]))
    assert "no such database" in err
    assert db.read_bytes() == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]  # no -wal, no -shm


@pytest.mark.parametrize("command", READ_ONLY)
def test_a_read_only_command_creates_no_missing_file(command, good, tmp_path, capsys):
    db = tmp_path / "missing.db"
    err = _one_line(capsys, run_inprocess([*DB_COMMANDS[command](good), "--db",
                                           f"sqlite:///{db}"]))
    assert "no such database" in err
    assert list(tmp_path.iterdir()) == []


def _other_sqlite_file(db: Path, _campaign_db: str) -> None:
    with contextlib.closing(sqlite3.connect(db)) as connection, connection:
        connection.execute("CREATE TABLE t (x)")


def _newer_schema(db: Path, campaign_db: str) -> None:
    shutil.copy(campaign_db.removeprefix("sqlite:///"), db)
    with contextlib.closing(sqlite3.connect(db)) as connection, connection:
        connection.execute("UPDATE alembic_version SET version_num = 'ffff_from_the_future'")


UNUSABLE = {"not a pooljudge database": (_other_sqlite_file, READ_ONLY),
            "newer than this pooljudge": (_newer_schema, tuple(DB_COMMANDS))}


@pytest.mark.parametrize(("expected", "command"), [
    (expected, command) for expected, (_, commands) in UNUSABLE.items() for command in commands])
def test_an_unusable_database_is_refused_and_left_unchanged(expected, command, good,
                                                            campaign_db, tmp_path, capsys):
    """H12: a newer schema exits 2 (it was 1); another SQLite file is not turned into WAL."""
    db = tmp_path / "some.db"
    UNUSABLE[expected][0](db, campaign_db)
    before = db.read_bytes()
    err = _one_line(capsys, run_inprocess([*DB_COMMANDS[command](good), "--db",
                                           f"sqlite:///{db}"]))
    assert expected in err
    assert db.read_bytes() == before


# --- H8: names ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["a\nb", "a\rb", f"x{ESC}", "a\tb", "a\x00b", "a\x85b",
                                  "a\u2028b"])
def test_campaign_and_annotator_names_refuse_control_characters(name, good, tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'c.db'}"
    err = _one_line(capsys, run_inprocess([*DB_COMMANDS["init"](good)[:1], name,
                                           *DB_COMMANDS["init"](good)[2:], "--db", url]))
    assert "campaign name" in err and "\x1b" not in err
    assert run_inprocess([*DB_COMMANDS["init"](good), "--db", url]) == 0
    capsys.readouterr()
    err = _one_line(capsys, run_inprocess(["annotators", "add", name, "--campaign", "c2",
                                           "--db", url]))
    assert "annotator name" in err and "\x1b" not in err


# --- H7: control characters in paths are escaped in every message ------------------------------

@pytest.mark.parametrize("argv", [
    ["eval", "q\n{esc}", "r"],
    ["pool", "--depth", "3", "r\n{esc}x"],
    ["init", "c", "--topics", "t{esc}\nx", "--docs", "d{esc}\nx", "--pool", "p{esc}\nx",
     "--db", "sqlite:///{tmp}/x.db"],
    ["eval", "q", "r", "--no-such-option\n{esc}"],
])
def test_control_characters_in_paths_are_escaped(argv, tmp_path, capsys):
    argv = [a.format(esc=ESC, tmp=tmp_path) for a in argv]
    status = run_inprocess(argv)
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.count("\n") == 1, err
    assert "\x1b" not in err and "\\x1b" in err, err


def test_warnings_escape_control_characters(good, tmp_path, capsys):
    run = tmp_path / f"r{ESC}\nx"
    run.write_text("1 Q0 d1 1 1.0 t\n")
    assert run_inprocess(["eval", str(good / "qrels"), str(run)]) == 0
    err = capsys.readouterr().err
    assert "warning" in err and "\x1b" not in err
    assert all(line.startswith("pooljudge eval: warning: ") for line in err.splitlines()), err


# --- H10: environment variables are checked like options ---------------------------------------

@pytest.mark.parametrize(("value", "expected"), [
    ("javascript:alert(1)//", "must be http:// or https://"),
    ("http://host/\nEvil: 1", "control character"),
    (f"http://host/{ESC}", "control character"),
    ("http://", "must be http:// or https://"),
    ("ftp://host", "must be http:// or https://"),
    ("http://host:99999", "not a URL"),
])
def test_the_app_address_variable_is_checked(value, expected, campaign_db, tmp_path, capsys,
                                             monkeypatch):
    db = tmp_path / "c.db"
    shutil.copy(campaign_db.removeprefix("sqlite:///"), db)
    monkeypatch.setenv("POOLJUDGE_URL", value)
    before = db.read_bytes()
    err = _one_line(capsys, run_inprocess(["annotators", "add", "zed", "--campaign", "demo",
                                           "--db", f"sqlite:///{db}"]))
    assert "$POOLJUDGE_URL" in err and expected in err and "\x1b" not in err
    assert db.read_bytes() == before  # refused before the annotator was stored


def test_the_app_address_option_is_checked(campaign_db, capsys):
    err = _one_line(capsys, run_inprocess(["annotators", "add", "zed", "--campaign", "demo",
                                           "--url", "javascript:alert(1)", "--db",
                                           campaign_db]))
    assert "--url" in err


@pytest.mark.parametrize("value", ["0", "100000000000", "x", "-3", "1001"])
def test_the_pool_size_variable_is_bounded(value, monkeypatch, capsys):
    from pooljudge.annotate.store.engine import pool_size

    from pooljudge.errors import UsageError

    monkeypatch.setenv("POOLJUDGE_POOL_SIZE", value)
    with pytest.raises(UsageError, match=r"\$POOLJUDGE_POOL_SIZE: must be a whole number"):
        pool_size()


def test_a_good_pool_size_variable_is_used(monkeypatch):
    from pooljudge.annotate.store.engine import pool_size

    monkeypatch.setenv("POOLJUDGE_POOL_SIZE", "1000")
    assert pool_size() == 1000


@pytest.mark.parametrize("value", ["0", "100000000000", "x", "-3", "\u0661", " 5"])
def test_the_upload_size_variable_is_bounded(value, campaign_db, tmp_path):
    """H10 for main's $POOLJUDGE_MAX_UPLOAD_MB: refused in one line before Streamlit starts
    (an Arabic-Indic digit passes str.isdigit, not int's range check)."""
    done = subprocess.run([sys.executable, "-m", "pooljudge", "serve", "--db", campaign_db,
                           "--port", "1"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=60, env={**os.environ, "POOLJUDGE_MAX_UPLOAD_MB": value})
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "serving" not in done.stderr, done.stderr
    assert "$POOLJUDGE_MAX_UPLOAD_MB: must be a whole number" in done.stderr


# --- H5, H6: serve checks its address before Streamlit starts ----------------------------------

def _serve(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pooljudge", "serve", *argv],
                          capture_output=True, text=True, cwd=cwd, timeout=60)


@pytest.mark.parametrize("host", ["999.1.1.1", "1.2.3", "a b", "-bad", f"x{ESC}", "::g"])
def test_serve_refuses_a_malformed_host(host, campaign_db, tmp_path):
    done = _serve(["--host", host, "--db", campaign_db], tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "--host" in done.stderr, done.stderr
    assert "\x1b" not in done.stderr and "serving" not in done.stderr


def test_serve_refuses_a_port_in_use(campaign_db, tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = _serve(["--port", str(port), "--db", campaign_db], tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert f"--port: cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "serving" not in done.stderr


def test_serve_refuses_an_address_not_of_this_machine(campaign_db, tmp_path):
    done = _serve(["--host", "192.0.2.7", "--db", campaign_db], tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "cannot listen on 192.0.2.7" in done.stderr


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:////dev/null", ""])
def test_serve_refuses_a_database_that_keeps_nothing(url, tmp_path):
    done = _serve(["--db", url], tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "serving" not in done.stderr and "Traceback" not in done.stderr
