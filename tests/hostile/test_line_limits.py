"""H1, H2, H11: every command that reads a file, against inputs that never end or have a line
without end: a sparse file of 3 GiB without a line break, a line over the cap after good lines,
a gzip bomb, a FIFO with no writer, ``/dev/zero``. Each runs as a real process under RLIMIT_AS
of 1 GiB (so an unbounded read fails the test instead of the machine) and a timeout (so a
blocking read fails it too): exit 2, one ``pooljudge: error: path[:line]: ...`` line, nothing
written."""

from __future__ import annotations

import gzip
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hostile.conftest import GOOD, snapshot
from tests.hostile.test_hostile_inputs import COMMANDS, _runs_beside, _setup

MEMORY = 1 << 30
SMALL_CAP = 1 << 20  # the cap the parametrised cases set, so that each reads little


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run_limited(argv: list[str], cwd: Path, env: dict[str, str] | None = None,
                pass_fds: tuple[int, ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pooljudge", *argv], capture_output=True,
                          text=True, cwd=cwd, timeout=120, preexec_fn=_limited,
                          pass_fds=pass_fds,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2]),
                               **(env or {})})


def _expect_one_line(done: subprocess.CompletedProcess, bad: str, text: str) -> None:
    err = done.stderr
    assert "Traceback" not in err and "MemoryError" not in err, err[-2000:]
    assert done.returncode == 2, err[-2000:]
    assert err.count("\n") == 1 and err.startswith("pooljudge: error: "), err
    assert f"{bad}{text}" in err, err


def _case(command: str, good: Path, campaign_db: str, tmp_path: Path):
    """argv with the good file of the command's kind replaced by ``tmp_path/bad-KIND`` (with
    ``.json`` for a scale: ``--scale`` reads only files so named)."""
    argv, bad, _line, written = _setup(command, "empty", good, campaign_db, tmp_path)
    if COMMANDS[command][0] == "scale":
        Path(bad).rename(bad + ".json")
        argv = [f"{bad}.json" if a == bad else a for a in argv]
        bad = f"{bad}.json"
    return argv, bad, written


def _sparse(path: Path, size: int = 3 << 30) -> None:
    """A file of ``size`` zero bytes that takes no room on disk."""
    with open(path, "wb") as handle:
        handle.truncate(size)


def _refused_unwritten(command: str, good: Path, campaign_db: str, tmp_path: Path, fill,
                       cap: int | None, line: int) -> None:
    """``fill(path, kind)`` writes the bad file; the command must refuse it at ``line`` with
    the cap (``cap`` set in the environment, or the default) and write nothing."""
    argv, bad, written = _case(command, good, campaign_db, tmp_path)
    fill(Path(bad), COMMANDS[command][0])
    before = snapshot(written)
    env = {} if cap is None else {"POOLJUDGE_MAX_LINE_BYTES": str(cap)}
    done = run_limited(argv, tmp_path, env)
    _expect_one_line(done, bad, f":{line}: line longer than {cap or 64 << 20} bytes")
    assert snapshot(written) == before


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_sparse_file_without_line_breaks_is_refused_at_line_1(command, good, campaign_db,
                                                                 tmp_path):
    _refused_unwritten(command, good, campaign_db, tmp_path, lambda p, _k: _sparse(p),
                       SMALL_CAP, 1)


@pytest.mark.parametrize("command", ["eval/run", "pool/run", "init/docs", "logs import",
                                     "judgments import", "init/scale"])
def test_the_default_cap_is_64_mib_and_a_2_gib_line_no_traceback(command, good, campaign_db,
                                                                  tmp_path):
    """H2: pyarrow never sees a line of more than 2 GiB (its block size is an int32)."""
    _refused_unwritten(command, good, campaign_db, tmp_path, lambda p, _k: _sparse(p), None, 1)


def _late_long_line(path: Path, kind: str) -> None:
    lines = GOOD[kind].splitlines(keepends=True)
    path.write_bytes("".join(lines[:2]).encode() + b"x" * (SMALL_CAP + 1) + b"\n")


@pytest.mark.parametrize("command", [c for c, (k, _) in COMMANDS.items() if k != "scale"])
def test_a_long_line_after_good_lines_is_named(command, good, campaign_db, tmp_path):
    _refused_unwritten(command, good, campaign_db, tmp_path, _late_long_line, SMALL_CAP, 3)


@pytest.mark.parametrize("command", ["eval/run", "eval/qrels", "pool/run", "init/docs",
                                     "logs import", "report/units"])
def test_a_gzip_bomb_stops_at_the_cap(command, good, campaign_db, tmp_path):
    """200 MiB of zeros in 200 kB of gzip: refused after the cap, not after inflating."""
    argv, bad, _written = _case(command, good, campaign_db, tmp_path)
    Path(bad).write_bytes(gzip.compress(b"\0" * (200 << 20), compresslevel=1))
    done = run_limited(argv, tmp_path, {"POOLJUDGE_MAX_LINE_BYTES": str(SMALL_CAP)})
    _expect_one_line(done, bad, f":1: line longer than {SMALL_CAP} bytes")


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_fifo_without_writer_is_refused_not_waited_for(command, good, campaign_db, tmp_path):
    """H11: the timeout of run_limited fails the test if the command blocks."""
    argv, bad, written = _case(command, good, campaign_db, tmp_path)
    Path(bad).unlink()
    os.mkfifo(bad)
    before = snapshot(written)
    done = run_limited(argv, tmp_path)
    _expect_one_line(done, bad, ": is a FIFO, not a regular file")
    assert snapshot(written) == before


@pytest.mark.parametrize("command", ["eval/run", "init/docs", "logs import", "init/scale"])
def test_a_device_that_never_ends_is_refused(command, good, campaign_db, tmp_path):
    argv, bad, _written = _case(command, good, campaign_db, tmp_path)
    argv = [("/dev/zero" if a == bad else a) for a in argv]
    if COMMANDS[command][0] == "scale":  # a .json name that is the device
        os.symlink("/dev/zero", tmp_path / "zero.json")
        argv = [str(tmp_path / "zero.json") if a == "/dev/zero" else a for a in argv]
    done = run_limited(argv, tmp_path)
    shown = "zero.json" if COMMANDS[command][0] == "scale" else "/dev/zero"
    _expect_one_line(done, shown, ": is a device, not a regular file")


def test_a_pipe_from_a_process_is_still_read(good, tmp_path):
    """``<(cmd)``: an anonymous pipe (``/dev/fd/N``) whose writer exists is read as before."""
    read, write = os.pipe()
    os.write(write, (good / "run_a").read_bytes())
    os.close(write)
    try:
        done = run_limited(["eval", str(good / "qrels"), f"/dev/fd/{read}"], tmp_path,
                           pass_fds=(read,))
    finally:
        os.close(read)
    assert done.returncode == 0, done.stderr
    assert "P@10" in done.stdout or "map" in done.stdout.lower(), done.stdout


@pytest.mark.parametrize("value", ["0", "-1", "x", "1e6", str((1 << 30) + 1), " 5"])
def test_the_cap_variable_is_checked_like_an_option(value, good, tmp_path):
    done = run_limited(["eval", str(good / "qrels"), str(good / "run_a")], tmp_path,
                       {"POOLJUDGE_MAX_LINE_BYTES": value})
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "$POOLJUDGE_MAX_LINE_BYTES: must be a whole number" in done.stderr


def test_a_line_at_the_cap_is_accepted(good, tmp_path):
    """The cap counts a line's bytes without its line break: exactly N bytes pass."""
    run = tmp_path / "run_c"
    run.write_text(GOOD["run"].replace("tag", "run_c"))
    longest = max(len(line) for line in run.read_bytes().split(b"\n"))
    _runs_beside("run", good, tmp_path)
    done = run_limited(["eval", str(good / "qrels"), str(run)], tmp_path,
                       {"POOLJUDGE_MAX_LINE_BYTES": str(longest)})
    assert done.returncode == 0, done.stderr
    done = run_limited(["eval", str(good / "qrels"), str(run)], tmp_path,
                       {"POOLJUDGE_MAX_LINE_BYTES": str(longest - 1)})
    assert done.returncode == 2 and f"line longer than {longest - 1} bytes" in done.stderr


def test_standard_input_is_read_and_capped(good, tmp_path):
    """H11 allows ``-`` (a pipe a process writes to): a good run is read, and a line of zeros
    on standard input without end is refused at the cap under the memory limit."""
    command = ["trec_eval", str(good / "qrels"), "-"]
    done = subprocess.run([sys.executable, "-m", "pooljudge", *command], capture_output=True,
                          input=(good / "run_a").read_bytes(), cwd=tmp_path, timeout=120,
                          preexec_fn=_limited,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])})
    assert done.returncode == 0, done.stderr
    assert b"num_q" in done.stdout
    with open("/dev/zero", "rb") as zeros:  # never ends: only the cap stops the read
        done = subprocess.run([sys.executable, "-m", "pooljudge", *command], stdin=zeros,
                              capture_output=True, text=True, cwd=tmp_path, timeout=120,
                              preexec_fn=_limited,
                              env={**os.environ, "POOLJUDGE_MAX_LINE_BYTES": str(SMALL_CAP),
                                   "PYTHONPATH": str(Path(__file__).parents[2])})
    _expect_one_line(done, "<stdin>", f":1: line longer than {SMALL_CAP} bytes")
