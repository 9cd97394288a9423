"""Every command's ``--help``: plain text (no reST markup), and a help text for every option."""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest

from pooljudge.cli import build_parser


def _walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(command path, parser) for the parser and every sub-command below it."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, (*path, name))


PARSERS = dict(_walk(build_parser()))


def _options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions
            if not isinstance(a, argparse._SubParsersAction | argparse._HelpAction)]


def test_the_walk_reaches_every_command_and_action():
    commands = {path[0] for path in PARSERS if path}
    assert {"init", "annotators", "campaigns", "judgments", "agree", "export",
            "adjudication", "simulate", "pool", "eval", "serve"} <= commands
    assert ("annotators", "add") in PARSERS and ("judgments", "import") in PARSERS


@pytest.mark.parametrize("path", list(PARSERS), ids=lambda p: " ".join(p) or "pooljudge")
def test_help_is_plain_text_and_every_option_is_explained(path):
    parser = PARSERS[path]
    with contextlib.redirect_stdout(io.StringIO()) as out, pytest.raises(SystemExit):
        parser.parse_args(["--help"])
    text = out.getvalue()
    texts = [text, parser.description or "", parser.epilog or ""]
    texts += [a.help or "" for a in parser._actions]
    for piece in texts:
        assert "``" not in piece, f"reST markup in the help of {' '.join(path)!r}: {piece!r}"
    unexplained = [a.dest for a in _options(parser)
                   if not (a.help and a.help.strip()) or a.help == argparse.SUPPRESS]
    assert unexplained == [], f"{' '.join(path) or 'pooljudge'}: options without help"
