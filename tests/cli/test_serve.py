"""``pooljudge serve``: the Streamlit command it runs, the database it hands over, bad databases.

Streamlit is never started: ``subprocess.Popen`` is replaced and the command line it was given
is checked (the real server's lifetime is tested in ``test_serve_signals.py``). The database is
opened (and migrated) by ``serve`` itself before Streamlit would start.
"""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
import sqlalchemy as sa
from pooljudge.annotate.store import open_engine

from pooljudge.cli import main, serve_cmd
from tests.support.postgres import PG_SERVER, create_pg_database, drop_pg_database


class _FakeChild:
    """Stands in for the Streamlit child: records how it was started, "exits" with ``status``."""

    status = 0

    def __init__(self, command, *, env, preexec_fn, stdout, calls) -> None:
        calls.append((command, env))
        self.preexec_fn = preexec_fn
        self.stdout = io.BytesIO()  # serve relays the child's output: here, none

    def wait(self, timeout: float | None = None) -> int:
        return self.status

    def send_signal(self, _signum) -> None:
        raise AssertionError("no signal was sent to pooljudge serve")


@pytest.fixture
def launched(monkeypatch) -> list[tuple[list[str], dict[str, str]]]:
    """Every ``(command, env)`` serve would have run; Streamlit "exits" with status 0."""
    calls: list[tuple[list[str], dict[str, str]]] = []

    def popen(command, **kwargs):
        return _FakeChild(command, calls=calls, **kwargs)

    # Only serve_cmd's view of the module is replaced: the tests still run real processes.
    monkeypatch.setattr(serve_cmd, "subprocess", SimpleNamespace(
        Popen=popen, PIPE=subprocess.PIPE, TimeoutExpired=subprocess.TimeoutExpired))
    monkeypatch.delenv("POOLJUDGE_DB", raising=False)
    monkeypatch.delenv("POOLJUDGE_POOL_SIZE", raising=False)
    return calls


def _flags(command: list[str]) -> dict[str, str]:
    """The ``--option value`` pairs after ``python -m streamlit run APP``."""
    assert command[:5] == [sys.executable, "-m", "streamlit", "run", str(serve_cmd.APP)]
    options = command[5:]
    assert len(options) % 2 == 0 and all(o.startswith("--") for o in options[::2]), options
    return dict(zip(options[::2], options[1::2], strict=True))


def test_streamlit_command_is_headless_quiet_and_minimal() -> None:
    flags = _flags(serve_cmd.streamlit_command("127.0.0.1", 8501))
    assert serve_cmd.APP.is_file() and serve_cmd.APP.name == "asgi_app.py"
    assert serve_cmd.APP.with_name("app.py").is_file()  # the app the door keeper mounts
    assert flags["--server.headless"] == "true"
    assert flags["--browser.gatherUsageStats"] == "false"
    assert flags["--client.toolbarMode"] == "minimal"  # no developer toolbar
    assert flags["--server.fileWatcherType"] == "none"
    assert flags["--server.runOnSave"] == "false"
    assert (flags["--server.address"], flags["--server.port"]) == ("127.0.0.1", "8501")


def test_defaults_serve_the_sqlite_file_of_the_working_folder(launched, tmp_path: Path,
                                                              monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["serve"]) == 0
    [(command, env)] = launched
    flags = _flags(command)
    assert (flags["--server.address"], flags["--server.port"]) == ("127.0.0.1", "8501")
    assert env["POOLJUDGE_DB"] == "sqlite:///pooljudge.db"
    assert (tmp_path / "pooljudge.db").is_file()  # opened and migrated before Streamlit starts
    engine = open_engine(f"sqlite:///{tmp_path / 'pooljudge.db'}", upgrade=False)
    try:
        assert "campaign" in sa.inspect(engine).get_table_names()
    finally:
        engine.dispose()


def test_host_port_and_environment_database_are_honoured(launched, tmp_path: Path,
                                                         monkeypatch) -> None:
    url = f"sqlite:///{tmp_path / 'env.db'}"
    monkeypatch.setenv("POOLJUDGE_DB", url)
    assert main(["serve", "--host", "0.0.0.0", "--port", "9123"]) == 0
    [(command, env)] = launched
    flags = _flags(command)
    assert (flags["--server.address"], flags["--server.port"]) == ("0.0.0.0", "9123")
    assert env["POOLJUDGE_DB"] == url


def test_streamlit_exit_status_is_passed_on(launched, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(_FakeChild, "status", 7)
    assert main(["serve", "--db", f"sqlite:///{tmp_path / 'x.db'}"]) == 7


def test_pool_size_reaches_the_server_and_a_bad_one_is_refused(launched, tmp_path: Path,
                                                               monkeypatch, capsys) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    assert main(["serve", "--db", url, "--pool-size", "12"]) == 0
    assert launched[0][1]["POOLJUDGE_POOL_SIZE"] == "12"
    capsys.readouterr()
    assert main(["serve", "--db", url, "--pool-size", "0"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()[-1:]
    assert "--pool-size" in line and "0" in line
    monkeypatch.setenv("POOLJUDGE_POOL_SIZE", "many")
    assert main(["serve", "--db", "postgresql+psycopg://postgres@127.0.0.1:1/x"]) == 2
    assert "POOLJUDGE_POOL_SIZE: must be a whole number" in capsys.readouterr().err
    assert len(launched) == 1


@pytest.fixture
def pg_database() -> Iterator[str]:
    name = create_pg_database("pooljudge_serve")
    try:
        yield PG_SERVER.format(database=name)
    finally:
        drop_pg_database(name)


@pytest.mark.postgres
def test_postgresql_url_is_migrated_and_handed_over(launched, pg_database: str) -> None:
    assert main(["serve", "--db", pg_database, "--port", "8600"]) == 0
    [(command, env)] = launched
    assert _flags(command)["--server.port"] == "8600"
    assert env["POOLJUDGE_DB"] == pg_database
    engine = open_engine(pg_database, upgrade=False)
    try:
        assert "judgment" in sa.inspect(engine).get_table_names()
    finally:
        engine.dispose()


@pytest.mark.postgres
@pytest.mark.parametrize("setting", [None, "3"])
def test_the_engine_keeps_the_pool_size_it_is_given(pg_database: str, monkeypatch,
                                                    setting: str | None) -> None:
    if setting is None:
        monkeypatch.delenv("POOLJUDGE_POOL_SIZE", raising=False)
    else:
        monkeypatch.setenv("POOLJUDGE_POOL_SIZE", setting)
    engine = open_engine(pg_database)
    try:
        assert engine.pool.size() == int(setting or 5)
    finally:
        engine.dispose()


def _not_a_database(folder: Path) -> str:
    (folder / "notes.db").write_text("these are notes, not a database\n" * 100)
    return f"sqlite:///{folder / 'notes.db'}"


@pytest.mark.parametrize("make_url", [
    pytest.param(_not_a_database, id="file-not-a-database"),
    pytest.param(lambda folder: f"sqlite:///{folder / 'missing' / 'x.db'}", id="missing-folder"),
    pytest.param(lambda _folder: "postgresql+psycopg://postgres@127.0.0.1:1/nothing",
                 id="unreachable-server"),
    pytest.param(lambda _folder: "nosuchdb://somewhere/x", id="unknown-dialect"),
])
def test_bad_database_is_one_line_and_exit_2(make_url, launched, tmp_path: Path) -> None:
    """Run as a real process: exit status 2, one ``pooljudge: error:`` line, no traceback,
    and Streamlit never started (the in-process ``launched`` stays empty)."""
    url = make_url(tmp_path)
    done = subprocess.run([sys.executable, "-m", "pooljudge", "serve", "--db", url,
                           "--port", "9"], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, check=False)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pooljudge: error:"), done.stderr
    assert "serving" not in done.stderr and done.stdout == ""
    assert main(["serve", "--db", url]) == 2 and launched == []
