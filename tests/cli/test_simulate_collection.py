"""``pooljudge simulate collection``: files that ``simulate review`` replays; bad options are
one line."""
from __future__ import annotations

import json

import pytest

from pooljudge.cli import main


def test_a_generated_collection_is_replayed(tmp_path, capsys):
    out = tmp_path / "gen"
    assert main(["simulate", "collection", str(out), "--documents", "2000", "--relevant",
                 "2,1%,5%", "--seed", "4"]) == 0
    err = capsys.readouterr().err
    assert "2000 documents, 3 topics with 2, 20, 100 relevant" in err
    assert "prevalence 0.100%, 1.000%, 5.000%" in err
    assert main(["simulate", "review", str(out / "qrels"), "--docs", str(out / "docs.jsonl"),
                 "--topics", str(out / "topics.jsonl"), "--stopping", "knee", "target",
                 "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert sorted({(t["topic"], t["relevant"]) for t in result["topics"]}) == [
        ("1", 2), ("2", 20), ("3", 100)]


def test_the_same_seed_writes_the_same_bytes(tmp_path, capsys):
    for name in ("a", "b"):
        assert main(["simulate", "collection", str(tmp_path / name), "--documents", "300",
                     "--relevant", "3,30"]) == 0
    for file in ("qrels", "docs.jsonl", "topics.jsonl"):
        assert (tmp_path / "a" / file).read_bytes() == (tmp_path / "b" / file).read_bytes()


@pytest.mark.parametrize(("options", "message"), [
    (["--documents", "10", "--relevant", "11"], "--relevant: '11' must give 1..10"),
    (["--documents", "10", "--relevant", "x"], "--relevant: 'x' is neither"),
    (["--documents", "10", "--relevant", "1,,2"], "--relevant"),
    (["--documents", "0", "--relevant", "1"], "--documents"),
    (["--documents", "10", "--relevant", "1", "--noise", "2"], "--noise"),
])
def test_bad_options_are_one_line_and_write_nothing(tmp_path, capsys, options, message):
    out = tmp_path / "gen"
    status = main(["simulate", "collection", str(out), *options])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("pooljudge: error: ") and message in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()


def test_an_out_that_is_a_file_is_one_line(tmp_path, capsys):
    taken = tmp_path / "taken"
    taken.write_text("mine\n")
    status = main(["simulate", "collection", str(taken), "--documents", "10", "--relevant", "1"])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith(f"pooljudge: error: {taken}")
    assert len(err.strip().splitlines()) == 1 and taken.read_text() == "mine\n"
