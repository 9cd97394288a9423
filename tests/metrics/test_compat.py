"""trec_eval 10 (default) versus 9 semantics, one difference at a time, through the Python API
and ``--compat`` on every command that scores runs; and run lines with fields after the tag."""

from __future__ import annotations

import importlib
import math
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from pooljudge.metrics import evaluate
from pooljudge.metrics.compat import COMPATS, check_compat
from pooljudge.metrics.ranked import needed_relevant

from pooljudge.cli import main
from pooljudge.cli.options import add_compat_option
from pooljudge.errors import InputError
from pooljudge.formats.trec import read_run, read_run_columns
from pooljudge.kernels.ranking import byte_order_codes, rank_positions, rank_rows


def _value(qrels, run, measure: str, compat: str | None) -> float:
    options = {} if compat is None else {"compat": compat}
    frame = evaluate(pd.DataFrame(qrels, columns=["topic", "doc", "label"]),
                     {"r": pd.DataFrame(run, columns=["topic", "doc", "score"])}, [measure],
                     per_topic=False, **options)
    return float(frame["value"].iat[0])


@pytest.mark.parametrize(("given", "expected"), [("9", "9"), ("10", "10"), (9, "9"), (10, "10")])
def test_compat_accepts_both_releases(given, expected):
    assert check_compat(given) == expected


@pytest.mark.parametrize("given", ["11", "9.0.8", "", None, True, 9.0, "ten"])
def test_compat_rejects_anything_else_before_reading_input(given):
    with pytest.raises(InputError, match="compat must be one of 9, 10"):
        evaluate("/no/such/qrels", "/no/such/run", ["AP"], compat=given)


# "a" scores higher than "z" in double precision; in single precision they tie and the doc id
# (descending) puts "z" first.
NEAR_TIE = [("1", "a", 40.922120174019), ("1", "z", 40.922120174018)]
BEYOND_FLOAT32 = [("1", "a", 2e39), ("1", "z", 1e39)]  # both +inf as float32


@pytest.mark.parametrize("run", [NEAR_TIE, BEYOND_FLOAT32], ids=["near-tie", "beyond-float32"])
@pytest.mark.parametrize(("compat", "expected"), [(None, 1.0), ("10", 1.0), ("9", 0.0)])
def test_scores_compare_in_double_precision_unless_compat_9(run, compat, expected):
    qrels = [("1", "a", 1), ("1", "z", 0)]
    assert _value(qrels, run, "P@1", compat) == expected


@pytest.mark.parametrize("compat", COMPATS)
def test_signed_zeros_tie_in_both_precisions(compat):
    run = [("1", "a", -0.0), ("1", "b", 0.0), ("1", "c", -0.0)]
    assert _value([("1", "c", 1)], run, "P@1", compat) == 1.0  # doc id descending: c, b, a


@pytest.mark.parametrize("precision", ["single", "double"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ranking_orders_match_a_plain_sort(precision, seed):
    rng = np.random.default_rng(seed)
    n = 3000
    topics = rng.integers(0, 7, n)
    base = rng.choice([0.0, -0.0, 1.5, 40.922120174018, 1e39, -3.25e-7], n)
    scores = base + rng.choice([0.0, 0.0, 1e-12, 2e-15], n) * base  # ties only in float32
    docs = [f"d{rng.integers(0, 10**6)}" for _ in range(n)]
    with np.errstate(over="ignore"):  # beyond float32's range: +-inf
        compared = scores.astype(np.float32) if precision == "single" else scores
    keys = [(t, -float(s), _descending(d)) for t, s, d in zip(topics, compared, docs,
                                                            strict=True)]
    expected = sorted(range(n), key=lambda i: keys[i])
    order = rank_rows(topics, scores, pa.array(docs), precision=precision)
    assert [keys[i] for i in order] == [keys[i] for i in expected]
    doc_codes = byte_order_codes(pc.dictionary_encode(pa.array(docs)))
    positions = rank_positions(topics, doc_codes, scores, precision=precision)
    assert [keys[i] for i in positions] == [keys[i] for i in expected]


def _descending(doc: str) -> tuple[int, ...]:
    return (*(-b for b in doc.encode()), 1)  # a prefix sorts after its extensions


def _lround(value: float) -> int:
    """C's lround for a non-negative double: exact decimal value, half away from zero."""
    return int(Decimal(value).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def test_iprec_cutoffs_round_like_each_release():
    levels = [i / 100 for i in range(101)] + [float(f"0.{i:02d}5") for i in range(100)]
    num_rel = np.arange(0, 1001)
    for level in levels:
        assert needed_relevant(level, num_rel, "10").tolist() == [
            _lround(level * float(r)) for r in num_rel]
        assert needed_relevant(level, num_rel, "9").tolist() == [
            int(level * float(r) + 0.9) for r in num_rel]


@pytest.mark.parametrize(("compat", "expected"), [("10", 1.0), ("9", 0.4)])
def test_iprec_at_recall_follows_the_release(compat, expected):
    # R = 6; recall 0.2 needs lround(1.2) = 1 relevant document (10) or (long)(2.1) = 2 (9).
    qrels = [("1", f"r{i}", 1) for i in range(6)]
    run = [("1", d, 10.0 - rank) for rank, d in enumerate(["r0", "n1", "n2", "n3", "r1"])]
    assert _value(qrels, run, "IPrec@0.2", compat) == pytest.approx(expected, abs=1e-15)
    eleven = [_value(qrels, run, f"IPrec@{i / 10}", compat) for i in range(11)]
    assert _value(qrels, run, "iprec_at_recall_0.20", compat) == eleven[2]
    assert _value(qrels, run, "IPrec11", compat) == pytest.approx(sum(eleven) / 11, abs=1e-15)


@pytest.mark.parametrize(("compat", "unjudged"), [("10", 2 / 3), ("9", 1 / 3)])
def test_a_negative_label_is_unjudged_for_trec_eval_10_only(compat, unjudged):
    qrels = [("1", "a", -1), ("1", "b", 0)]
    run = [("1", "a", 3.0), ("1", "b", 2.0), ("1", "c", 1.0)]
    assert _value(qrels, run, "Unjudged@3", compat) == pytest.approx(unjudged, abs=1e-15)
    assert _value(qrels, run, "unj_3", compat) == pytest.approx(unjudged, abs=1e-15)
    assert _value(qrels, run, "Judged@3", compat) == pytest.approx(2 / 3, abs=1e-15)


# --compat on every command that scores runs: its value reaches every join.
COMMANDS = {
    "eval": lambda q, r, tmp: ["eval", q, *r, "--format", "tsv", "-o", str(tmp / "out")],
    "report": lambda q, r, tmp: ["report", q, *r, "-o", str(tmp / "out.html")],
    "compare": lambda q, r, tmp: ["compare", q, *r, "--resamples", "10", "-o", str(tmp / "out")],
    "bias": lambda q, r, tmp: ["bias", q, *r, "--depth", "2", "-o", str(tmp / "out")],
}


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 {d} {label}\n" for t in "12"
                             for d, label in (("a", 1), ("z", 0), ("m", -1))))
    runs = []
    for name, top in (("run1", "a"), ("run2", "z")):
        path = tmp_path / name
        path.write_text("".join(f"{t} Q0 {d} {i} {s!r} {name}\n" for t in "12" for i, (d, s) in
                                enumerate([(top, 40.922120174019), ("m", 40.922120174018)], 1)))
        runs.append(str(path))
    return str(qrels), runs


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize(("argv", "expected"), [([], "10"), (["--compat", "10"], "10"),
                                                (["--compat", "9"], "9")])
def test_compat_option_reaches_every_join(command, argv, expected, files, tmp_path, monkeypatch):
    seen = []
    module = importlib.import_module("pooljudge.metrics.evaluate")  # the package re-exports
    real = module.join

    def spy(*args, **kwargs):
        seen.append(kwargs["compat"])
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "join", spy)
    qrels, runs = files
    assert main([*COMMANDS[command](qrels, runs, tmp_path), *argv]) == 0
    assert seen and set(seen) == {expected}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("value", ["11", "9.0.8", "x"])
def test_bad_compat_is_one_line_usage_error(command, value, files, tmp_path, capsys):
    qrels, runs = files
    assert main([*COMMANDS[command](qrels, runs, tmp_path), "--compat", value]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert "--compat: invalid choice" in err and value in err
    assert not any(p.name.startswith("out") for p in tmp_path.iterdir())


def test_option_choices_are_the_releases():
    import argparse

    parser = argparse.ArgumentParser()
    add_compat_option(parser)
    action = next(a for a in parser._actions if a.dest == "compat")
    assert tuple(action.choices) == COMPATS and action.default == "10"


@pytest.mark.parametrize(("compat", "expected"), [("10", 1.0), ("9", 0.0)])
def test_eval_prints_the_release_s_numbers(compat, expected, files, tmp_path, capsys):
    qrels, runs = files
    assert main(["eval", qrels, runs[0], "-m", "P@1", "--format", "tsv",
                 "--compat", compat]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()[1:]]
    rows = [row for row in rows if row[2] == "P@1"]  # not the NumRet and short@1 rows
    assert [(topic, float(value)) for _, topic, _, value in rows] == [("all", expected)]


# Run lines with fields after the run tag (trec_eval ignores them).
EXTRA = {
    "blanks": "1 Q0 a 1 2.5 tag extra fields\n1 Q0 b 2 1.5 tag\n2 Q0 c 1 0.5 tag x\n",
    "tabs": "1\tQ0\ta\t1\t2.5\ttag\textra\n1\tQ0\tb\t2\t1.5\ttag\n2\tQ0\tc\t1\t0.5\ttag\tx\n",
    "mixed": "1 Q0 a 1 2.5 tag\textra  more\r\n# comment\n1 Q0 b 2 1.5 tag\n2 Q0 c 1 0.5 tag x\n",
}


@pytest.mark.parametrize("text", EXTRA.values(), ids=EXTRA.keys())
def test_fields_after_the_run_tag_are_ignored(text, tmp_path):
    path = tmp_path / "run"
    path.write_text(text)
    frame = read_run(path)
    assert frame.values.tolist() == [["1", "a", 2.5, "tag"], ["1", "b", 1.5, "tag"],
                                     ["2", "c", 0.5, "tag"]]
    columns = read_run_columns(path)
    assert columns.score.tolist() == [2.5, 1.5, 0.5]
    assert columns.doc.to_pylist() == ["a", "b", "c"]


BAD_WITH_EXTRA = [
    ("too-few", "1 Q0 a 1 2.5 tag extra\n1 Q0 b 2 1.5\n", 2,
     "expected 6 whitespace-separated fields, found 5"),
    ("score", "1 Q0 a 1 2.5 tag extra\n1 Q0 b 2 high tag extra\n", 2,
     "score is not a number: 'high'"),
    ("nan", "1 Q0 a 1 2.5 tag extra\n1 Q0 b 2 nan tag extra\n", 2, "score is not a finite number"),
    ("twice", "1 Q0 a 1 2.5 tag extra\n1 Q0 a 2 1.5 tag\n", 2, "document listed twice"),
]


@pytest.mark.parametrize(("text", "line", "message"), [c[1:] for c in BAD_WITH_EXTRA],
                         ids=[c[0] for c in BAD_WITH_EXTRA])
@pytest.mark.parametrize("reader", [read_run, read_run_columns])
def test_other_malformed_run_lines_are_still_errors(reader, text, line, message, tmp_path):
    path = tmp_path / "run"
    path.write_text(text)
    with pytest.raises(InputError, match=f"{path}:{line}: {message}"):
        reader(path)


def test_eval_scores_a_run_with_extra_fields(files, tmp_path, capsys):
    qrels, runs = files
    extra = tmp_path / "extra"
    lines = Path(runs[0]).read_text().splitlines()
    extra.write_text("".join(f"{line} more fields\n" for line in lines))
    outputs = []
    for run in (runs[0], str(extra)):
        assert main(["eval", qrels, run, "--format", "tsv", "-m", "AP P@1"]) == 0
        outputs.append([line.split("\t")[1:] for line in capsys.readouterr().out.splitlines()])
    assert outputs[0] == outputs[1]
    assert not math.isnan(float(outputs[0][1][2]))


def test_qrels_lines_still_need_exactly_four_fields(tmp_path):
    path = tmp_path / "qrels"
    path.write_text("1 0 a 1\n1 0 b 0 extra\n")
    with pytest.raises(InputError, match=f"{path}:2: expected 4 whitespace-separated fields"):
        evaluate(path, {"r": pd.DataFrame({"topic": ["1"], "doc": ["a"], "score": [1.0]})})
