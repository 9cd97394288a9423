"""``pooljudge`` itself: one table of commands, one module per command, ``--help`` grouped by
stage (pool · judge · qrels · evaluate · trust · logs)."""

from __future__ import annotations

import importlib
import re

import pytest

from pooljudge.cli import COMMAND_TABLE, COMMANDS, STAGES, build_parser, main


def _registered_by(module: str) -> list[str]:
    """The top-level commands that ``module``'s ``register`` adds."""
    added: list[str] = []

    class Collect:
        def add_parser(self, name, **kwargs):
            added.append(name)
            return build_parser.__globals__["_Parser"](prog=name)

    importlib.import_module(f"pooljudge.cli.{module}").register(Collect())
    return added


@pytest.mark.parametrize(("command", "module"), sorted(COMMANDS.items()))
def test_one_command_one_module(command, module):
    assert _registered_by(module) == [command]
    assert module == f"{command.replace('-', '_')}_cmd" or module in {"stages_cmd"}


def test_every_command_has_a_known_stage():
    assert {stage for _, _, stage in COMMAND_TABLE} == set(STAGES)
    assert list(STAGES) == ["pool", "judge", "qrels", "evaluate", "trust", "logs"]


def test_help_lists_every_command_once_under_its_stage(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["--help"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: pooljudge [-h] [--version] COMMAND ...")
    heads = [(m.start(), m.group(1)) for m in re.finditer(r"^  (\w+): ", text, flags=re.M)]
    assert [stage for _, stage in heads] == list(STAGES)
    ends = [start for start, _ in heads[1:]] + [len(text)]
    for (start, stage), end in zip(heads, ends, strict=True):
        listed = re.findall(r"^    (\S+)\s", text[start:end], flags=re.M)
        assert listed == [name for name, _, s in COMMAND_TABLE if s == stage]


def test_an_unknown_command_is_one_line_exit_2(capsys):
    assert main(["nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pooljudge: error: COMMAND: invalid choice: 'nope'")
    assert err.count("\n") == 1
