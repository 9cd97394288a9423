"""``pooljudge annotators grant|revoke``: a person's role in another campaign, and the
refusals (one line, exit 2, nothing granted)."""

from __future__ import annotations

import pytest

from tests.support.cli_campaign import _init


def test_grant_and_revoke_a_role_in_another_campaign(cli, files, capsys):
    assert _init(cli) == 0
    assert cli("init", "other", "--topics", "topics.tsv", "--docs", "docs.jsonl", "--pool",
               "pool.tsv") == 0
    assert cli("annotators", "add", "boss", "--campaign", "demo", "--admin") == 0
    assert cli("annotators", "add", "carol", "--campaign", "other") == 0
    capsys.readouterr()
    assert cli("annotators", "grant", "boss", "--of", "demo", "--campaign", "other",
               "--role", "admin") == 0
    assert capsys.readouterr().out == ("boss of demo is now admin of other "
                                       "(with their own login link)\n")
    assert cli("annotators", "list", "--campaign", "other", "--format", "tsv") == 0
    listed = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert listed[0] == ["name", "role", "human", "active", "judgments", "last_judgment",
                         "granted_from"]
    assert [(r[0], r[1], r[-1]) for r in listed[1:]] == [("carol", "annotator", ""),
                                                         ("boss", "admin", "demo")]
    assert cli("annotators", "list", "--campaign", "demo", "--format", "tsv") == 0
    assert [line.split("\t")[-1] for line in capsys.readouterr().out.splitlines()[1:]] == [""]
    assert cli("annotators", "revoke", "boss", "--of", "demo", "--campaign", "other") == 0
    assert capsys.readouterr().out == "boss of demo is no longer admin of other\n"
    assert cli("annotators", "list", "--campaign", "other") == 0
    assert "boss" not in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (("grant", "boss", "--of", "demo", "--campaign", "nowhere", "--role", "admin"),
     "no campaign named 'nowhere'"),
    (("grant", "boss", "--of", "nowhere", "--campaign", "other", "--role", "admin"),
     "no campaign named 'nowhere'"),
    (("grant", "zed", "--of", "demo", "--campaign", "other", "--role", "admin"),
     "no active annotator 'zed' in campaign 'demo'"),
    (("grant", "boss", "--of", "demo", "--campaign", "demo", "--role", "adjudicator"),
     "cannot grant 'boss' a role in 'demo': it is their own campaign (their role there is "
     "the one they were added with)"),
    (("grant", "boss", "--of", "demo", "--campaign", "other", "--role", "annotator"),
     "--role: invalid choice: 'annotator' (choose from "),  # quotes vary with Python
    (("revoke", "boss", "--of", "demo", "--campaign", "other"),
     "'boss' holds no granted role in campaign 'other'"),
], ids=["campaign", "own-campaign-unknown", "person", "own", "role", "revoke-nothing"])
def test_grant_and_revoke_errors_are_one_line(cli, files, capsys, argv, message):
    assert _init(cli) == 0
    assert cli("init", "other", "--topics", "topics.tsv", "--docs", "docs.jsonl", "--pool",
               "pool.tsv") == 0
    assert cli("annotators", "add", "boss", "--campaign", "demo", "--admin") == 0
    capsys.readouterr()
    assert cli("annotators", *argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"pooljudge: error: {message}") and err.count("\n") == 1, err
    assert err.endswith(")\n" if argv[-1] == "annotator" else f"{message}\n")
    assert cli("annotators", "list", "--campaign", "other") == 0
    assert capsys.readouterr().out == "(none)\n"
