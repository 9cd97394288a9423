"""The command line: ``pooljudge COMMAND ...``. This package is the only place that wires modules.

Each command lives in a module of this package exposing ``register(subparsers: Subcommands)``;
the parser stores a handler in ``args.handler``. Input and usage errors print one line and exit
2; no traceback ever reaches the user for bad input. Shared by several commands:
:mod:`~pooljudge.cli.options` (option adders, ``type=`` checkers), :mod:`~pooljudge.cli.inputs`
(runs read from paths, the database of ``--db``), :mod:`~pooljudge.cli.output` (table, TSV and
JSON output, warnings).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, Protocol

from pooljudge import __version__
from pooljudge.errors import PoolJudgeError
from pooljudge.formats.files import STDOUT_NAME

DESCRIPTION = (
    "pooljudge: pool TREC runs, judge them in the browser, measure agreement, export qrels "
    "and evaluate runs with trec_eval-exact numbers and unjudged rates."
)

# Command name -> the module that registers it, in the order commands appear in --help.
COMMANDS: dict[str, str] = {
    "eval": "eval_cmd",
    "trec_eval": "trec_eval_cmd",
    "pool": "pool_cmd",
    "init": "campaign_cmd",
    "annotators": "campaign_cmd",
    "campaigns": "campaign_cmd",
    "judgments": "judgments_cmd",
    "simulate": "simulate_cmd",
    "review-simulate": "simulate_review_cmd",
    "agree": "agree_cmd",
    "export": "export_cmd",
    "adjudication": "export_cmd",
    "serve": "serve_cmd",
    "demo": "demo_cmd",
    "bias": "bias_cmd",
    "correlate": "correlate_cmd",
    "compare": "compare_cmd",
    "compare-stages": "stages_cmd",
    "compare-policies": "compare_policies_cmd",
    "report": "report_cmd",
    "autojudge": "autojudge_cmd",
    "calibrate": "calibrate_cmd",
    "logs": "logs_cmd",
}
COMMAND_MODULES: tuple[str, ...] = tuple(dict.fromkeys(COMMANDS.values()))


class Subcommands(Protocol):
    """What ``register`` receives: the collection of sub-commands ``add_subparsers`` returns
    (argparse's class for it is private)."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        """A new sub-command ``name``; ``kwargs`` are those of ``ArgumentParser``."""
        ...


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors as one line, ``pooljudge: error: --option: reason``, exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        message = message.removeprefix("argument ")  # "argument --x: why" -> "--x: why"
        self.exit(2, f"pooljudge: error: {' '.join(message.split())}\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; with a known ``command`` only its module is imported (fast start-up)."""
    parser = _Parser(prog="pooljudge", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"pooljudge {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True
    modules = (COMMANDS[command],) if command in COMMANDS else COMMAND_MODULES
    for name in modules:
        importlib.import_module(f"pooljudge.cli.{name}").register(subparsers)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The first argument that is not an option: the command name, if any."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every error a user can cause is one ``pooljudge: error:`` line, exit 2.

    Standard output is flushed here, so a full disk or a closed pipe is reported (or, for a
    pipe closed by the reader, ignored) before the interpreter's own flush at exit.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_command_of(argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has printed --help, --version or the usage error
        return exc.code if isinstance(exc.code, int) else 2
    try:
        status = int(args.handler(args) or 0)
        sys.stdout.flush()
        return status
    except PoolJudgeError as exc:
        return _fail(str(exc), exc.exit_status,
                     stdout_failed=getattr(exc, "path", None) == STDOUT_NAME)
    except KeyboardInterrupt:
        print("pooljudge: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _discard_stdout()
        return 0
    except OSError as exc:
        if exc.filename is None and exc.errno not in _STDOUT_ERRNOS:
            raise
        if exc.filename is None:
            return _fail(f"{STDOUT_NAME}: cannot write: {exc.strerror or exc}", 2,
                         stdout_failed=True)
        return _fail(f"{exc.filename}: {exc.strerror or exc}", 2, stdout_failed=False)


# Errors of a write to standard output (an OSError without a file name): full, too big, I/O.
_STDOUT_ERRNOS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EIO, errno.EDQUOT, errno.EBADF})


def _fail(message: str, status: int, *, stdout_failed: bool) -> int:
    """Print the one error line; when standard output itself failed, drop what it still holds."""
    if stdout_failed:
        _discard_stdout()
    print(f"pooljudge: error: {message}", file=sys.stderr)
    return status


def _discard_stdout() -> None:
    """Point file descriptor 1 at /dev/null so the interpreter's final flush cannot fail."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
