"""The command table: every command is registered by the module it names, starts without
importing the others, and is documented in the manual's guides (sqlite-utils' documentation
test; the generated reference pages are checked by tests/test_docs.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pooljudge.cli import COMMANDS, build_parser, main
from tests.support.fresh import python_output

GUIDES = "\n".join(page.read_text(encoding="utf-8") for page in
                   sorted((Path(__file__).resolve().parents[2] / "docs").rglob("*.md")))


def _registered(parser) -> set[str]:
    (subparsers,) = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    return set(subparsers.choices)


def test_full_parser_registers_exactly_the_command_table() -> None:
    assert _registered(build_parser()) == set(COMMANDS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_command_builds_alone_from_its_module(command: str) -> None:
    assert command in _registered(build_parser(command))


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_command_is_documented_in_the_guides(command: str) -> None:
    assert f"pooljudge {command}" in GUIDES


def test_python_dash_m_runs_the_same_command_line() -> None:
    done = subprocess.run([sys.executable, "-m", "pooljudge", "--version"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.startswith("pooljudge ")


def test_eval_starts_without_importing_the_annotation_app() -> None:
    code = ("import sys; from pooljudge.cli import build_parser; build_parser('eval'); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('streamlit', 'sqlalchemy', 'sqlmodel') or m.startswith('pooljudge.annotate')))")
    done = python_output(code)
    assert done.strip() == "[]"


def test_unknown_command_is_a_usage_error() -> None:
    done = subprocess.run([sys.executable, "-m", "pooljudge", "no-such-command"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "invalid choice" in done.stderr


@pytest.mark.parametrize(("argv", "status"), [
    (["--help"], 0), (["--version"], 0), (["eval", "--help"], 0), ([], 2), (["nope"], 2),
    (["eval", "q.txt", "run", "--compat", "8"], 2), (["pool", "run", "--depth", "0"], 2),
])
def test_main_returns_the_status_of_argparse_exits_too(argv, status, capsys):
    """``main`` is callable as a library function: --help, --version and usage errors give a
    status instead of raising SystemExit."""
    assert main(argv) == status
    capsys.readouterr()
