"""``pooljudge eval``: the tsv contract (golden), formats, warnings and every bad-input case."""

from __future__ import annotations

import gzip
import json

import pytest

from pooljudge.cli import main

QRELS = """\
1 0 d1 2
1 0 d2 0
1 0 d3 1
1 0 d9 -1
2 0 e1 1
"""
RUN = """\
# a comment line
1 Q0 d2 1 3.0 tag
1 Q0 d1 2 2.0 tag
1 Q0 dx 3 2.0 tag
1 Q0 d3 4 1.0 tag
3 Q0 zz 1 1.0 tag
"""

# Topic 1 ranking: d2 (0), then the 2.0 tie broken by doc id descending: dx (unjudged), d1 (2),
# then d3 (1). R = 2. P@2 = 0/2; AP = (1/3 + 2/4) / 2; RR = 1/3; Judged@2 = 1/2.
# Topic 2 is missing from the run: every value 0. Topic 3 is only in the run: ignored.
# NumRet (4 returned for topic 1, 0 for topic 2) and short@2 (topic 2 returned fewer than 2)
# follow every run's measures.
GOLDEN = f"""\
run\ttopic\tmeasure\tvalue
run1\t1\tP@2\t0.0
run1\t1\tAP\t{(1 / 3 + 2 / 4) / 2!r}
run1\t1\tRR\t{1 / 3!r}
run1\t1\tJudged@2\t0.5
run1\t1\tNumRet\t4.0
run1\t1\tshort@2\t0.0
run1\t2\tP@2\t0.0
run1\t2\tAP\t0.0
run1\t2\tRR\t0.0
run1\t2\tJudged@2\t0.0
run1\t2\tNumRet\t0.0
run1\t2\tshort@2\t1.0
run1\tall\tP@2\t0.0
run1\tall\tAP\t{(1 / 3 + 2 / 4) / 4!r}
run1\tall\tRR\t{1 / 6!r}
run1\tall\tJudged@2\t0.25
run1\tall\tNumRet\t4.0
run1\tall\tshort@2\t1.0
"""


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    folder = tmp_path / "runs"
    folder.mkdir()
    run = folder / "run1.gz"
    run.write_bytes(gzip.compress(RUN.encode()))
    return qrels, run


def test_tsv_golden(files, tmp_path, capsys):
    qrels, run = files
    out = tmp_path / "out.tsv"
    status = main(["eval", str(qrels), str(run), "-m", "P@2 AP", "-m", "recip_rank",
                   "-m", "Judged@2", "--per-topic", "--format", "tsv", "-o", str(out)])
    assert status == 0
    assert out.read_text() == GOLDEN
    err = capsys.readouterr().err
    assert "1 topic(s) only in the run" in err
    assert "1 qrels topic(s) missing from the run" in err
    assert "fewer than 25 are too few" in err
    assert "fewer than 2 documents" not in err


def test_means_only_without_per_topic(files, capsys):
    qrels, run = files
    assert main(["eval", str(qrels), str(run), "-m", "P@2", "--format", "tsv"]) == 0
    assert capsys.readouterr().out == ("run\ttopic\tmeasure\tvalue\nrun1\tall\tP@2\t0.0\n"
                                       "run1\tall\tNumRet\t4.0\nrun1\tall\tshort@2\t1.0\n")


def test_short_rankings_are_reported(files, capsys):
    qrels, run = files
    assert main(["eval", str(qrels), str(run), "-m", "P@10", "--format", "tsv"]) == 0
    assert "run1: fewer than 10 documents returned for 1 topic(s)" in capsys.readouterr().err


def test_table_shows_means_and_unjudged_share(files, capsys):
    qrels, run = files
    assert main(["eval", str(qrels), str(run)]) == 0
    out = capsys.readouterr().out
    header, row = out.splitlines()[:2]
    assert header.split() == ["run", "topic", "P@10", "nDCG@10", "AP", "RR", "R@100",
                              "Judged@10", "NumRet", "short@10", "short@100", "unjudged@10"]
    assert row.split()[:2] == ["run1", "all"]
    assert row.split()[-1] == "0.0500"  # topic 1: 1 unjudged / 10; topic 2: 0 -> mean 0.05


def test_json_and_judged_only(files, capsys):
    qrels, run = files
    assert main(["eval", str(qrels), str(run), "-m", "P@2", "--judged-only",
                 "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    # condensed ranking of topic 1: d2 (0), d1 (2), d3 (1): P@2 = 1/2; topic 2: 0.
    assert records == [{"run": "run1", "topic": "all", "measure": "P@2", "value": 0.25},
                       {"run": "run1", "topic": "all", "measure": "NumRet", "value": 3.0},
                       {"run": "run1", "topic": "all", "measure": "short@2", "value": 1.0}]


RUN_OK = "1 Q0 d1 1 1.0 t\n"
BAD_RUNS = [
    ("columns", "1 Q0 d1 1 1.0 t\n1 Q0 d2 2 0.5\n", 2, "expected 6 whitespace-separated fields"),
    ("score", "1 Q0 d1 1 1.0 t\n\n1 Q0 d2 2 high t\n", 3, "score is not a number: 'high'"),
    ("nan", "1 Q0 d1 1 nan t\n", 1, "score is not a finite number"),
    ("twice", "1 Q0 d1 1 1.0 t\n1 Q0 d2 2 0.5 t\n1 Q0 d1 3 0.2 t\n", 3,
     "document listed twice for topic 1: d1"),
    ("utf8", "1 Q0 d1 1 1.0 t\n1 Q0 d\xff 2 0.5 t\n", 2, "not valid UTF-8"),
]
BAD_QRELS = [
    ("label", "1 0 d1 1\n1 0 d2 yes\n", 2, "label is not an integer: 'yes'"),
    ("float-label", "1 0 d1 1.5\n", 1, "label is not an integer"),
    ("twice", "1 0 d1 1\n2 0 d1 1\n# note\n1 0 d1 0\n", 4, "document judged twice for topic 1: d1"),
    ("columns", "1 0 d1\n", 1, "expected 4 whitespace-separated fields"),
]


def _run_bad(tmp_path, capsys, qrels_text, run_text, *, encoding="latin-1"):
    qrels, run, out = tmp_path / "q.txt", tmp_path / "r.txt", tmp_path / "out.tsv"
    qrels.write_bytes(qrels_text.encode(encoding))
    run.write_bytes(run_text.encode(encoding))
    status = main(["eval", str(qrels), str(run), "--format", "tsv", "-o", str(out)])
    err = capsys.readouterr().err
    assert status == 2
    assert "Traceback" not in err
    assert not out.exists()
    assert set(tmp_path.iterdir()) == {qrels, run}  # no output, no temporary file left
    return qrels, run, err


@pytest.mark.parametrize(("text", "line", "message"), [c[1:] for c in BAD_RUNS],
                         ids=[c[0] for c in BAD_RUNS])
def test_bad_run(tmp_path, capsys, text, line, message):
    _, run, err = _run_bad(tmp_path, capsys, "1 0 d1 1\n", text)
    assert err.startswith(f"pooljudge: error: {run}:{line}: {message}")


@pytest.mark.parametrize(("text", "line", "message"), [c[1:] for c in BAD_QRELS],
                         ids=[c[0] for c in BAD_QRELS])
def test_bad_qrels(tmp_path, capsys, text, line, message):
    qrels, _, err = _run_bad(tmp_path, capsys, text, RUN_OK)
    assert err.startswith(f"pooljudge: error: {qrels}:{line}: {message}")


@pytest.mark.parametrize(("text", "message"), [("", "file is empty"), ("  \n\n", "file is empty"),
                                              ("# only a comment\n", "file has no data lines")])
def test_empty_run(tmp_path, capsys, text, message):
    _, run, err = _run_bad(tmp_path, capsys, "1 0 d1 1\n", text)
    assert err.startswith(f"pooljudge: error: {run}: {message}")


def test_missing_and_corrupt_files(tmp_path, capsys):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n")
    out = tmp_path / "out.tsv"
    assert main(["eval", str(qrels), str(tmp_path / "nope"), "-o", str(out)]) == 2
    assert capsys.readouterr().err == f"pooljudge: error: {tmp_path / 'nope'}: no such file\n"
    broken = tmp_path / "r.gz"
    broken.write_bytes(gzip.compress(RUN_OK.encode())[:-8])
    assert main(["eval", str(qrels), str(broken), "-o", str(out)]) == 2
    assert capsys.readouterr().err.startswith(f"pooljudge: error: {broken}: corrupt gzip data")
    assert not out.exists()


@pytest.mark.parametrize("measure", ["Pz@10", "P", "P(rel=0)@10", "IPrec@1.5", "nDCG(rel=2)"])
def test_bad_measure_is_a_usage_error(files, tmp_path, capsys, measure):
    qrels, run = files
    out = tmp_path / "out.tsv"
    assert main(["eval", str(qrels), str(run), "-m", measure, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pooljudge: error: -m/--measure: ") and "Traceback" not in err
    assert not out.exists()


def test_unknown_measure_lists_near_names(files, capsys):
    qrels, run = files
    assert main(["eval", str(qrels), str(run), "-m", "ndcg_cutt_10"]) == 2
    assert "did you mean ndcg_cut_10" in capsys.readouterr().err


def test_runs_with_the_same_name_are_refused(files, tmp_path, capsys):
    qrels, run = files
    other = tmp_path / "run1"
    other.write_text(RUN)
    assert main(["eval", str(qrels), str(run), str(other)]) == 2
    assert "two runs are named 'run1'" in capsys.readouterr().err
