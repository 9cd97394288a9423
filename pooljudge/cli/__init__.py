"""The command line: ``pooljudge COMMAND ...``. This package is the only place that wires modules.

Each command lives in a module of this package exposing ``register(subparsers)``; the parser
stores a handler in ``args.handler``. Input and usage errors print one line and exit 2; no
traceback ever reaches the user for bad input.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from pooljudge import __version__
from pooljudge.errors import InputError, PoolJudgeError

DESCRIPTION = (
    "pooljudge: pool TREC runs, judge them in the browser, measure agreement, export qrels "
    "and evaluate runs with trec_eval-exact numbers and unjudged rates."
)

# Command name -> the module that registers it, in the order commands appear in --help.
COMMANDS: dict[str, str] = {
    "eval": "eval_cmd",
    "pool": "pool_cmd",
    "init": "campaign_cmd",
    "annotators": "campaign_cmd",
    "campaigns": "campaign_cmd",
    "judgments": "judgments_cmd",
    "simulate": "simulate_cmd",
    "agree": "agree_cmd",
    "export": "export_cmd",
    "adjudication": "export_cmd",
    "serve": "serve_cmd",
    "demo": "demo_cmd",
    "bias": "bias_cmd",
    "correlate": "correlate_cmd",
    "compare": "compare_cmd",
    "report": "report_cmd",
}
COMMAND_MODULES: tuple[str, ...] = tuple(dict.fromkeys(COMMANDS.values()))


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors on exit status 2 and the program name in front."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


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
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_command_of(argv))
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except InputError as exc:
        print(str(exc), file=sys.stderr)
        return exc.exit_status
    except PoolJudgeError as exc:
        print(f"pooljudge: error: {exc}", file=sys.stderr)
        return exc.exit_status
    except KeyboardInterrupt:
        print("pooljudge: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
