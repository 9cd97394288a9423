"""``--topic-groups`` coverage warnings, the same in every command that takes the option
(eval, report, compare, compare-stages; one function, ``group_coverage``): qrels topics in no
group, and grouped topics absent from the qrels."""

from __future__ import annotations

import html

import pytest

from pooljudge.cli import main
from tests.cli.test_compare_stages import _folder

UNGROUPED = "1 evaluated topic(s) belong to no group, e.g. q3"
ABSENT = "1 grouped topic(s) were not evaluated (not in the qrels), e.g. q9"


def _argv(command: str, folder) -> list[str]:
    qrels, groups = str(folder / "qrels"), str(folder / "groups")
    runs = [str(folder / "runs" / "ret"), str(folder / "runs" / "rerank")]
    return {
        "eval": ["eval", qrels, *runs, "-m", "P@3"],
        "report": ["report", qrels, *runs, "-m", "P@3", "-o", str(folder / "r.html")],
        "compare": ["compare", qrels, *runs, "-m", "P@3", "--resamples", "50"],
        "compare-stages": ["compare-stages", qrels, "--manifest", str(folder / "manifest.tsv"),
                           "-k", "3", "--resamples", "50"],
    }[command] + ["--topic-groups", groups]


@pytest.mark.parametrize("command", ["eval", "report", "compare", "compare-stages"])
def test_every_grouping_command_warns_about_ungrouped_and_absent_topics(tmp_path, capsys,
                                                                        command):
    folder = _folder(tmp_path)
    (folder / "groups").write_text("q1 a\nq2 b\nq9 b\n")  # q3 in no group; q9 not in the qrels
    assert main(_argv(command, folder)) == 0
    said = _said(command, folder, capsys)
    assert UNGROUPED in said and ABSENT in said


@pytest.mark.parametrize("command", ["eval", "report", "compare", "compare-stages"])
def test_groups_covering_the_qrels_topics_give_no_coverage_warning(tmp_path, capsys, command):
    folder = _folder(tmp_path)
    (folder / "groups").write_text("q1 a\nq2 b\nq3 b\n")
    assert main(_argv(command, folder)) == 0
    said = _said(command, folder, capsys)
    assert "belong to no group" not in said and "were not evaluated" not in said
    assert command != "report" or "Warnings" in said  # the page's warnings were read


def _said(command: str, folder, capsys) -> str:
    """The warnings: standard error, or for report its page (where its warnings go)."""
    err = capsys.readouterr().err
    if command == "report":
        return html.unescape((folder / "r.html").read_text(encoding="utf-8"))
    return err
