"""Every command with an output, against outputs that cannot be written: one stderr line
``pooljudge: error: PATH: reason``, exit status 2, no traceback, the old file untouched. Works as
root (CI runs as root): a directory, a path under a regular file, /proc, /dev/full, a missing
folder, and a read-only bind mount when mounting is permitted."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hostile.conftest import run_inprocess, run_subprocess

# command -> argv builder(good folder, output path, campaign db url)
OUTPUT_COMMANDS: dict[str, Callable[[Path, str, str], list[str]]] = {
    "eval": lambda g, o, d: ["eval", f"{g}/qrels", f"{g}/run_a", "-o", o],
    "pool": lambda g, o, d: ["pool", f"{g}/run_a", f"{g}/run_b", "--depth", "3", "-o", o],
    "simulate --plot": lambda g, o, d: ["simulate", "orders", f"{g}/qrels", f"{g}/run_a",
                                        "--strategy", "rrf", "--plot", o],
    "bias": lambda g, o, d: ["bias", f"{g}/qrels", f"{g}/run_a", f"{g}/run_b", "--depth", "3",
                             "-o", o],
    "compare": lambda g, o, d: ["compare", f"{g}/qrels", f"{g}/run_a", f"{g}/run_b", "-o", o],
    "correlate": lambda g, o, d: ["correlate", f"{g}/qrels", f"{g}/qrels", f"{g}/run_a",
                                  f"{g}/run_b", "-o", o],
    "report": lambda g, o, d: ["report", f"{g}/qrels", f"{g}/run_a", "-o", o],
    "report --topic-groups": lambda g, o, d: ["report", f"{g}/qrels", f"{g}/run_a", f"{g}/run_b",
                                              "--topic-groups", f"{g}/tgroups", "-o", o],
    "compare-stages": lambda g, o, d: ["compare-stages", f"{g}/qrels", "--manifest",
                                       f"{g}/manifest", "-o", o],
    "logs sample": lambda g, o, d: ["logs", "sample", f"{g}/log", "--n", "2", "-o", o],
    "export": lambda g, o, d: ["export", "--campaign", "demo", "--db", d, "-o", o,
                               "--provenance", f"{o}.provenance"],
    "agree": lambda g, o, d: ["agree", "--campaign", "demo", "--db", d, "-o", o],
    "judgments export": lambda g, o, d: ["judgments", "export", "--campaign", "demo", "--db", d,
                                         "-o", o],
}


def _errors(err: str) -> str:
    """Standard error without the warnings the small good inputs cause (few topics)."""
    return "".join(line for line in err.splitlines(keepends=True) if ": warning: " not in line)


def _targets(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "folder").mkdir(exist_ok=True)
    (tmp_path / "file.txt").write_text("a file\n")
    return {
        "directory": str(tmp_path / "folder"),
        "under-a-file": str(tmp_path / "file.txt" / "out.tsv"),
        "missing-folder": str(tmp_path / "no" / "such" / "out.tsv"),
        "proc": "/proc/pooljudge-out.tsv",
        "dev-full": "/dev/full",
    }


TARGETS = ("directory", "under-a-file", "missing-folder", "proc", "dev-full")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("command", OUTPUT_COMMANDS)
def test_an_unwritable_output_is_one_error_line(command, target, good, campaign_db, tmp_path,
                                                capsys):
    path = _targets(tmp_path)[target]
    capsys.readouterr()
    status = run_inprocess(OUTPUT_COMMANDS[command](good, path, campaign_db))
    err = _errors(capsys.readouterr().err)
    assert "Traceback" not in err, err
    assert status == 2, err
    assert err.count("\n") == 1 and err.startswith("pooljudge: error: ") and path in err, err
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt", "folder"]
    assert (tmp_path / "file.txt").read_text() == "a file\n"


PRINTING = {"campaigns list": lambda g, o, d: ["campaigns", "list", "--db", d]}


@pytest.mark.parametrize("command", ["eval", "pool", "judgments export", "compare",
                                     "campaigns list"])
def test_standard_output_on_dev_full_is_one_error_line(command, good, campaign_db, tmp_path):
    """Written through the atomic writer, or printed and flushed at the end by ``main``."""
    argv = {**OUTPUT_COMMANDS, **PRINTING}[command](good, "-", campaign_db)
    with open("/dev/full", "w") as full:
        done = subprocess.run([*_python(), *argv], stdout=full, stderr=subprocess.PIPE,
                              text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 2, done.stderr
    expected = "pooljudge: error: <stdout>: cannot write: No space left on device\n"
    assert _errors(done.stderr) == expected, done.stderr


def _python() -> list[str]:
    import sys

    return [sys.executable, "-m", "pooljudge"]


@pytest.fixture
def read_only_folder(tmp_path):
    """A folder bind-mounted read-only (skipped where mounting is not permitted)."""
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "old.tsv").write_text("old\n")
    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    done = subprocess.run(["mount", "--bind", "-o", "ro", str(folder), str(folder)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"mount not permitted: {done.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)


@pytest.mark.parametrize("command", OUTPUT_COMMANDS)
def test_a_read_only_mount_is_one_error_line(command, good, campaign_db, read_only_folder,
                                             capsys):
    old = read_only_folder / "old.tsv"
    capsys.readouterr()
    status = run_inprocess(OUTPUT_COMMANDS[command](good, str(old), campaign_db))
    err = _errors(capsys.readouterr().err)
    assert status == 2 and err.count("\n") == 1, err
    assert err.startswith("pooljudge: error: ") and str(old) in err, err
    assert "Read-only file system" in err, err
    assert old.read_text() == "old\n"


def test_a_real_process_reports_a_directory_output(good, tmp_path):
    done = run_subprocess(OUTPUT_COMMANDS["eval"](good, str(tmp_path), ""), tmp_path)
    assert done.status == 2
    assert _errors(done.err) == f"pooljudge: error: {tmp_path}: is a directory, not a file\n"


def test_a_reader_closing_the_pipe_early_ends_quietly(tmp_path):
    """``pooljudge eval ... | head -c 1``: exit 0, no traceback, no "Exception ignored"."""
    run = tmp_path / "run"
    run.write_text("".join(f"{t} Q0 d{d} {d} {9 - d} r\n" for t in range(2000) for d in range(3)))
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{t} 0 d1 1\n" for t in range(2000)))
    process = subprocess.Popen([*_python(), "eval", str(qrels), str(run), "--per-topic",
                                "--format", "tsv"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, cwd=tmp_path)
    assert process.stdout.read(1) == b"r"
    process.stdout.close()
    err = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=120) == 0, err
    assert _errors(err) == "", err
