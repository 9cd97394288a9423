"""Start-up imports: ``--help`` of the program and of every command loads no heavy library.

Each case runs a fresh ``python -X importtime -m pooljudge ... --help`` and reads the modules it
imported from the interpreter's own import log (standard error), so nothing imported by the test
itself can hide or add one. The commands come from the CLI's registry, so a new command is
covered as soon as it is registered.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from pooljudge.cli import COMMANDS

# Never at start-up: the data-frame, database, web-app and scientific stacks.
HEAVY = frozenset({"pandas", "sqlalchemy", "sqlmodel", "streamlit", "scipy", "sklearn",
                   "statsmodels", "matplotlib"})
ARRAYS = frozenset({"numpy", "pyarrow"})
def _start(*argv: str) -> tuple[int, set[str], str]:
    """Run ``python -m pooljudge ARGV``: its exit status, the modules it imported, its output."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "pooljudge", *argv],
                          capture_output=True, text=True, check=False, timeout=120)
    rows = [line.split("|") for line in done.stderr.splitlines() if line.startswith("import time:")]
    modules = {row[2].strip() for row in rows if len(row) == 3 and row[1].strip().isdigit()}
    return done.returncode, modules, done.stdout


def _packages(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_help_of_every_command_imports_no_heavy_library(command: str) -> None:
    status, modules, text = _start(command, "--help")
    assert status == 0 and text.startswith("usage:")
    assert _packages(modules) & (HEAVY | ARRAYS | {"metrics"}) == set()


@pytest.mark.parametrize("argv", [["--help"], []], ids=["--help", "no-arguments"])
def test_top_level_help_imports_no_command_implementation(argv: list[str]) -> None:
    """``pooljudge --help`` lists every command but loads none of their implementations: of
    the project's other packages only the light declarations of names and defaults."""
    status, modules, _ = _start(*argv)
    assert status == (0 if argv else 2)
    assert _packages(modules) & (HEAVY | ARRAYS | {"metrics"}) == set()
    assert {m for m in modules if m.startswith(("pooljudge.annotate.", "pooljudge.pooling."))} <= {
        "pooljudge.annotate.links", "pooljudge.annotate.records",
        "pooljudge.annotate.consensus_policies",
        "pooljudge.pooling.orders", "pooljudge.pooling.strategies"}
