"""The manual's reference pages, generated from the code (docs/_gen/reference.py writes them
with mkdocs-gen-files at build time; tests/test_docs.py checks them): every command's --help,
every measure (the text of ``pooljudge eval --list-measures``), every pooling strategy, and the
Python API (mkdocstrings directives)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator

# Modules of the Python API page, each a section rendered by mkdocstrings from its docstrings.
API_MODULES = (
    "pooljudge.metrics", "pooljudge.metrics.evaluate", "pooljudge.metrics.registry",
    "pooljudge.metrics.catalogue", "pooljudge.metrics.trec_names", "pooljudge.metrics.units",
    "pooljudge.metrics.logs", "pooljudge.metrics.latency",
    "pooljudge.metrics.design_simulation", "pooljudge.metrics.report_groups",
    "pooljudge.pooling", "pooljudge.pooling.strategies", "pooljudge.pooling.sampling",
    "pooljudge.pooling.stopping", "pooljudge.pooling.replay",
    "pooljudge.formats.trec", "pooljudge.formats.units", "pooljudge.formats.logs",
    "pooljudge.ground.grammar", "pooljudge.errors",
)


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def command_parsers() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """(``pooljudge COMMAND [SUB]``, its parser) for every command and sub-command, in the
    order of --help."""
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal: one width for the page
    from pooljudge.cli import build_parser

    def walk(prefix: str, parser: argparse.ArgumentParser):
        yield prefix, parser
        for name, sub in _subcommands(parser).items():
            yield from walk(f"{prefix} {name}", sub)

    for name, sub in _subcommands(build_parser()).items():
        yield from walk(f"pooljudge {name}", sub)


def commands_page() -> str:
    parts = ["# Commands\n",
             "Every command's `--help`, generated from the command line's parsers when this "
             "manual is built. `pooljudge --help` lists the commands; the guides explain them.\n"]
    for title, parser in command_parsers():
        parts.append(f"## `{title}`\n\n```text\n{parser.format_help().rstrip()}\n```\n")
    return "\n".join(parts)


def measures_page() -> str:
    import pooljudge.metrics  # noqa: F401  (registers every measure)
    from pooljudge.metrics import registry
    from pooljudge.metrics.catalogue import _aliases, describe

    aliases = _aliases()
    parts = ["# Measures\n",
             "Every measure of the registry with its cutoff, its parameters (written "
             "`Name(param=value)@k`, e.g. `P(rel=2)@10`, `nDCG(gains={1:3,2:9})@10`), how its "
             "topic values are summarised and the trec_eval names that stand for it. "
             "Generated from the registry; `pooljudge eval --list-measures [NAME]` prints the "
             "same entries. Definitions and edge cases: [Measures, defined]"
             "(../guides/measures.md).\n"]
    for name in registry.names():
        parts.append(f"## {name}\n\n```text\n{describe(name, aliases)}\n```\n")
    return "\n".join(parts)


def strategies_page() -> str:
    from pooljudge.pooling.strategies import REGISTRY

    parts = ["# Pooling strategies\n",
             "The judging orders of `pooljudge pool --strategy NAME` (grammar `name`, "
             "`name(key=value,...)` or `take@N`), generated from the strategy registry. "
             "Static orders are fixed before any judgment; adaptive ones learn from the "
             "judgments. How they compare: [Pool runs](../guides/pool.md).\n"]
    for strategy in REGISTRY.values():
        lines = [f"## {strategy.name}\n", f"*{strategy.kind}* — {strategy.help}.\n"]
        for param in strategy.params:
            lines.append(f"- `{param.name}` = `{param.default}`: {param.description} "
                         f"({param.rule})")
        if strategy.aliases:
            lines.append(f"- aliases: {', '.join(f'`{a}`' for a in strategy.aliases)}")
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)


def api_page() -> str:
    parts = ["# Python API\n",
             "The modules a program uses, rendered from their docstrings by mkdocstrings. "
             "Import them as `from pooljudge import metrics`, "
             "`from pooljudge.pooling.sampling import sample_pool`, and so on.\n"]
    parts += [f"::: {module}\n" for module in API_MODULES]
    return "\n".join(parts)


def pages() -> dict[str, str]:
    """Path under docs/ -> Markdown text."""
    return {"reference/commands.md": commands_page(), "reference/measures.md": measures_page(),
            "reference/strategies.md": strategies_page(), "reference/api.md": api_page()}
