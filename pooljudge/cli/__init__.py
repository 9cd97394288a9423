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

# Command modules, in the order their commands appear in --help.
COMMAND_MODULES: tuple[str, ...] = ("eval_cmd", "pool_cmd", "campaign_cmd", "judgments_cmd",
                                      "simulate_cmd", "agree_cmd", "export_cmd", "serve_cmd",
                                      "demo_cmd", "bias_cmd", "correlate_cmd", "compare_cmd",
                                      "report_cmd")


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors on exit status 2 and the program name in front."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="pooljudge", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"pooljudge {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(f"pooljudge.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
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
