"""``pooljudge eval`` without pandas: its tsv/json rows follow ``pooljudge.metrics.evaluate.tidy``
exactly,
and reading qrels and runs concurrently still reports a bad qrels file first."""

from __future__ import annotations

import gzip

import pytest
from pooljudge.metrics.eval_inputs import parse_all
from pooljudge.metrics.evaluate import score_all, tidy

from pooljudge.cli import main
from pooljudge.cli.eval_cmd import _rows
from pooljudge.errors import InputError


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n3 0 d 1\n")
    first, second = tmp_path / "a.txt", tmp_path / "b.txt.gz"
    first.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 2 t\n2 Q0 c 1 5 t\n9 Q0 z 1 1 t\n")
    second.write_bytes(gzip.compress(b"2 Q0 x 1 3 t\n2 Q0 c 2 1 t\n1 Q0 a 1 0 t\n"))
    return qrels, [first, second]


@pytest.mark.parametrize("per_topic", [True, False])
def test_rows_follow_tidy(files, per_topic):
    qrels, runs = files
    _, results = score_all(qrels, runs, parse_all(["P@1", "AP", "NumRet", "GMAP"]))
    frame = tidy(results, per_topic=per_topic)
    expected = list(zip(frame["run"], frame["topic"], frame["measure"],
                        frame["value"].astype(float), strict=True))
    assert list(_rows(results, per_topic)) == expected


def test_a_bad_qrels_file_is_reported_before_a_bad_run(files, tmp_path):
    qrels, runs = files
    qrels.write_text("1 0 a 1\n1 0 a x\n")
    runs[0].write_text("1 Q0 a 1 nan t\n")
    with pytest.raises(InputError, match=r"qrels\.txt:2: label is not an integer"):
        score_all(qrels, runs, parse_all(["P@1"]))


def test_a_bad_run_is_reported_with_good_qrels(files, capsys):
    qrels, runs = files
    runs[0].write_text("1 Q0 a 1 2 t\n1 Q0 a 2 1 t\n")
    assert main(["eval", str(qrels), str(runs[0]), "--format", "tsv"]) == 2
    assert "a.txt:2: document listed twice for topic 1: a" in capsys.readouterr().err
