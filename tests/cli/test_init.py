"""``pooljudge init``, and ``annotators`` and ``campaigns`` on the campaign it makes; a pool
naming an unknown topic or document, or a bad scale, is refused before the database is
opened."""

from __future__ import annotations

import pytest
from pooljudge.annotate.store import authenticate, open_engine, session_scope

from tests.support.cli_campaign import POOL, _init


def test_init_annotators_and_campaigns(cli, files, capsys):
    assert _init(cli, "--overlap", "2", "--scale", "0-2") == 0
    assert "2 topics, 3 documents, 4 pairs, overlap 2" in capsys.readouterr().out
    assert cli("annotators", "add", "alice", "--campaign", "demo", "--url", "http://x:1/") == 0
    link = capsys.readouterr().out.strip()
    assert link.startswith("http://x:1/?token=")
    engine = open_engine(f"sqlite:///{files / 'p.db'}")
    with session_scope(engine) as session:
        assert authenticate(session, token=link.split("token=")[1]).name == "alice"
    engine.dispose()
    assert cli("annotators", "add", "boss", "--campaign", "demo", "--admin") == 0
    capsys.readouterr()
    assert cli("annotators", "list", "--campaign", "demo", "--format", "tsv") == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0].split("\t")[:3] == ["name", "role", "human"]
    assert [line.split("\t")[:2] for line in listed[1:]] == [["alice", "annotator"],
                                                             ["boss", "admin"]]
    assert cli("annotators", "remove", "alice", "--campaign", "demo") == 0
    assert cli("campaigns", "list", "--format", "tsv") == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].split("\t")[:5] == ["demo", "2", "4", "2", "1"]
    assert cli("campaigns", "show", "demo") == 0
    assert "judgments_needed: 8" in capsys.readouterr().out


@pytest.mark.parametrize(("pool", "message"), [
    (POOL + "302\tFT9\t3\t3\tA\n", "pool.tsv:6: unknown document FT9"),
    (POOL.replace("302\tFT2", "303\tFT2"), "pool.tsv:4: unknown topic 303"),
], ids=["document", "topic"])
def test_init_refuses_unknown_pool_members(cli, files, capsys, pool, message):
    (files / "pool.tsv").write_text(pool, encoding="utf-8")
    assert _init(cli) == 2
    assert capsys.readouterr().err.strip() == f"pooljudge: error: {message}"
    assert not (files / "p.db").exists()  # refused before the database is opened


def test_init_refuses_bad_scale(cli, capsys):
    assert _init(cli, "--scale", "3-1") == 2
    assert capsys.readouterr().err == ("pooljudge: error: --scale: 3-1: a graded scale needs "
                                       "lo < hi, got 3-1\n")
