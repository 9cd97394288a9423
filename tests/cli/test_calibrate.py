"""``pooljudge calibrate measure|sample|suggest``: a group of three actions; the bare
``calibrate --campaign ...`` of before 0.1.0 answers with a pointer to ``calibrate measure``.
The actions' behaviour: tests/cli/test_calibrate_autojudge.py and
tests/cli/test_calibrate_suggest.py."""

from __future__ import annotations

import pytest

from pooljudge.cli import main


@pytest.mark.parametrize("argv", [
    ["calibrate", "--campaign", "c", "--automatic", "llm"],
    ["calibrate", "--runs", "r1", "--campaign", "c"],
])
def test_the_old_spelling_points_to_calibrate_measure(capsys, argv):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err == ("pooljudge: error: 'calibrate --campaign ...' is now "
                   "'pooljudge calibrate measure --campaign ...'\n")


def test_help_lists_the_three_actions(capsys):
    assert main(["calibrate", "--help"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: pooljudge calibrate [-h] ACTION ...")
    for action in ("measure", "sample", "suggest"):
        assert f"\n    {action} " in text


def test_calibrate_needs_an_action(capsys):
    assert main(["calibrate"]) == 2
    assert "required: ACTION" in capsys.readouterr().err
