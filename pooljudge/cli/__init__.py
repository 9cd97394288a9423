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
from pooljudge.errors import PoolJudgeError, printable
from pooljudge.formats.files import STDOUT_NAME

DESCRIPTION = (
    "pooljudge: pool TREC runs, judge them in the browser, measure agreement, export qrels "
    "and evaluate runs with trec_eval-exact numbers and unjudged rates."
)

# The one table of commands: (name, the module that registers it, its stage), in the order of
# --help. COMMANDS, the stages of --help and the reference pages are derived from it.
COMMAND_TABLE: tuple[tuple[str, str, str], ...] = (
    ("pool", "pool_cmd", "pool"),
    ("simulate", "simulate_cmd", "pool"),
    ("compare-policies", "compare_policies_cmd", "pool"),
    ("init", "init_cmd", "judge"),
    ("annotators", "annotators_cmd", "judge"),
    ("campaigns", "campaigns_cmd", "judge"),
    ("serve", "serve_cmd", "judge"),
    ("demo", "demo_cmd", "judge"),
    ("judgments", "judgments_cmd", "judge"),
    ("autojudge", "autojudge_cmd", "judge"),
    ("nuggets", "nuggets_cmd", "judge"),
    ("agree", "agree_cmd", "qrels"),
    ("export", "export_cmd", "qrels"),
    ("adjudication", "adjudication_cmd", "qrels"),
    ("eval", "eval_cmd", "evaluate"),
    ("trec_eval", "trec_eval_cmd", "evaluate"),
    ("compare", "compare_cmd", "evaluate"),
    ("compare-stages", "stages_cmd", "evaluate"),
    ("report", "report_cmd", "evaluate"),
    ("bias", "bias_cmd", "trust"),
    ("correlate", "correlate_cmd", "trust"),
    ("calibrate", "calibrate_cmd", "trust"),
    ("logs", "logs_cmd", "logs"),
)
STAGES: dict[str, str] = {
    "pool": "pool runs, or compare orders and designs",
    "judge": "judging campaigns, people and automatic judges",
    "qrels": "agreement, qrels and adjudication",
    "evaluate": "measure and compare runs",
    "trust": "how far to trust the judgments and the numbers",
    "logs": "production logs",
}
# Command name -> the module that registers it, in the order commands appear in --help.
COMMANDS: dict[str, str] = {name: module for name, module, _ in COMMAND_TABLE}
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
        self.exit(2, f"pooljudge: error: {printable(message.strip())}\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; with a known ``command`` only its module is imported (fast start-up)."""
    import textwrap

    parser = _Parser(prog="pooljudge", usage="pooljudge [-h] [--version] COMMAND ...",
                     description="\n".join(textwrap.wrap(DESCRIPTION, _help_width())),
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"pooljudge {__version__}")
    subparsers = parser.add_subparsers(metavar="COMMAND", parser_class=_Parser, prog="pooljudge",
                                       help=argparse.SUPPRESS)
    subparsers.required = True
    modules = (COMMANDS[command],) if command in COMMANDS else COMMAND_MODULES
    for name in modules:
        importlib.import_module(f"pooljudge.cli.{name}").register(subparsers)
    helps = {action.dest: action.help or "" for action in subparsers._choices_actions}
    parser.epilog = commands_by_stage(helps, _help_width())
    return parser


def _help_width() -> int:
    """The width argparse wraps to (the terminal's, less its margin), at most 100."""
    import shutil

    return max(40, min(100, shutil.get_terminal_size().columns - 2))


def commands_by_stage(helps: dict[str, str], width: int = 100) -> str:
    """The epilog of ``pooljudge --help``: the commands of :data:`COMMAND_TABLE` under their
    stage, each with its one-line help (commands absent from ``helps`` are left out)."""
    import textwrap

    column = max(len(name) for name, _, _ in COMMAND_TABLE) + 4
    lines = ["commands, by stage (pooljudge COMMAND --help for each):"]
    for stage, title in STAGES.items():
        names = [name for name, _, s in COMMAND_TABLE if s == stage and name in helps]
        if not names:
            continue
        lines.append(f"\n  {stage}: {title}")
        for name in names:
            lines += textwrap.wrap(helps[name], width, initial_indent=f"    {name:<{column}}",
                                   subsequent_indent=" " * (column + 4))
    return "\n".join(lines)


# Spellings of before 0.1.0: (command, how to recognise the old form, the new spelling).
def _old_spelling(argv: Sequence[str]) -> str | None:
    """The pointer to the new spelling when ``argv`` is an old one, else None."""
    command = _command_of(argv)
    if command is None:
        return None
    rest = list(argv)[list(argv).index(command) + 1:]
    first = rest[0] if rest else ""
    if command == "pool" and "simulate" in rest and not os.path.exists("simulate") and \
            next((a for a in rest if not a.startswith("-")), None) == "simulate":
        new = "simulate designs" if "--sample" in rest else "simulate orders"
        return f"'pool simulate' is now 'pooljudge {new} QRELS RUN...'"
    if command == "simulate" and first.startswith("-") and first not in ("-h", "--help"):
        return "'simulate --campaign ...' is now 'pooljudge simulate annotators --campaign ...'"
    if command == "calibrate" and first.startswith("-") and first not in ("-h", "--help"):
        return "'calibrate --campaign ...' is now 'pooljudge calibrate measure --campaign ...'"
    return None


def _command_of(argv: Sequence[str]) -> str | None:
    """The first argument that is not an option: the command name, if any."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every error a user can cause is one ``pooljudge: error:`` line, exit 2.

    Standard output is flushed here, so a full disk or a closed pipe is reported (or, for a
    pipe closed by the reader, ignored) before the interpreter's own flush at exit.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    old = _old_spelling(argv)
    if old is not None:
        return _fail(old, 2, stdout_failed=False)
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
    print(f"pooljudge: error: {printable(message)}", file=sys.stderr)
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
