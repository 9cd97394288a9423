"""``pooljudge eval``'s means table built without pandas (pooljudge.cli.eval_table) prints the
very text of the pandas pivot it replaced, whatever the values, names and widths."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from pooljudge.metrics.eval_inputs import parse_all
from pooljudge.metrics.evaluate import tidy
from pooljudge.metrics.results import RunResult
from pooljudge.metrics.returned import cutoffs, num_ret, with_counts

from pooljudge.cli.eval_cmd import TABLE_COVERAGE, _render, _shown, _table, _with_errors
from tests.support.fresh import python_output

MEASURES = ["P@10", "AP", "RR", "nDCG@5", "R@100"]
value = st.one_of(st.floats(-5, 5), st.just(float("nan")), st.sampled_from([0.0, -0.0, 1.0]),
                  st.floats(1e6, 1e12))
name = st.text(alphabet="ab1 é名-\t", min_size=1, max_size=6)


@st.composite
def results(draw):
    """Runs scored on the same topics: random values per measure, counts as integers."""
    measures = parse_all(draw(st.lists(st.sampled_from(MEASURES), min_size=1, max_size=4,
                                       unique=True)))
    computed = list(dict.fromkeys([*num_ret(measures), *parse_all([TABLE_COVERAGE])]))
    topics = draw(st.lists(st.text(alphabet="1a_all", min_size=1, max_size=4), min_size=1,
                           max_size=4, unique=True))
    runs = []
    for run in draw(st.lists(name, min_size=1, max_size=3, unique=True)):
        values = {}
        for measure in computed:
            if str(measure) == "NumRet":
                values[measure] = np.asarray(draw(st.lists(
                    st.integers(0, 10**7), min_size=len(topics), max_size=len(topics))), float)
            else:
                values[measure] = np.asarray(draw(st.lists(
                    value, min_size=len(topics), max_size=len(topics))), dtype=np.float64)
        summary = {m: float(draw(value)) if str(m) != "NumRet" else float(v.sum())
                   for m, v in values.items()}
        returned = values[computed[len(measures)]].astype(np.int64)
        result = RunResult(run, topics, values, summary, returned, 0)
        runs.append(with_counts(result, cutoffs(measures)))
    return measures, runs


@settings(max_examples=300, deadline=None)
@given(results(), st.booleans())
def test_the_table_is_the_pandas_pivots_text(drawn, per_topic):
    measures, runs = drawn
    shown = _shown(measures)
    try:
        expected = _table(tidy(runs, per_topic=per_topic), shown)
    except (KeyError, ValueError) as error:  # the pandas path fails: so must the new one
        expected = type(error)
    try:
        got = _render(runs, "table", shown, per_topic)
    except (KeyError, ValueError) as error:
        got = type(error)
    assert got == expected


def test_the_default_table_does_not_import_pandas(tmp_path):
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 2 t\n1 Q0 b 2 2 t\n2 Q0 c 1 -0.5 t\n")
    code = ("import sys; from pooljudge.cli import main; "
            f"main(['eval', {str(tmp_path / 'q.txt')!r}, {str(tmp_path / 'r.txt')!r}, "
            "'-m', 'P@1 AP', '--per-topic']); print('pandas' in sys.modules)")
    lines = python_output(code).splitlines()
    assert lines[0].split() == ["run", "topic", "P@1", "AP", "NumRet", "short@1",
                                "unjudged@10"]
    assert lines[1].split() == ["r.txt", "1", "0.0000", "0.5000", "2", "0", "0.0000"]
    assert lines[-1] == "False"


ESTIMATORS = ["statAP", "statP@10", "xinfAP", "statNDCG@10"]


@st.composite
def with_errors(draw):
    """Runs with estimators (an SE per topic and an interval of the mean) beside measures
    without one, on the same topics."""
    measures = parse_all(draw(st.lists(st.sampled_from([*ESTIMATORS, *MEASURES]), min_size=1,
                                       max_size=5, unique=True)))
    if not any(str(m) in ESTIMATORS for m in measures):
        measures = [*measures, *parse_all(["statAP"])]
    topics = draw(st.lists(st.text(alphabet="1a_", min_size=1, max_size=3), min_size=1,
                           max_size=3, unique=True))
    runs = []
    for run in draw(st.lists(name, min_size=1, max_size=3, unique=True)):
        values = {m: np.asarray(draw(st.lists(value, min_size=len(topics),
                                              max_size=len(topics))), dtype=np.float64)
                  for m in measures}
        summary = {m: float(draw(value)) for m in measures}
        estimators = [m for m in measures if str(m) in ESTIMATORS]
        errors = {m: np.abs(values[m]) for m in estimators}
        intervals = {m: tuple(float(draw(value)) for _ in range(3)) for m in estimators}
        runs.append(RunResult(run, topics, values, summary, np.zeros(len(topics), np.int64), 0,
                              errors, intervals))
    return measures, runs


@settings(max_examples=300, deadline=None)
@given(with_errors(), st.booleans())
def test_the_se_table_is_the_pandas_text(drawn, per_topic):
    """``--se``'s table (built without pandas) is the text the pandas frame printed."""
    measures, runs = drawn
    shown = [str(m) for m in measures]
    expected = _with_errors(tidy(runs, per_topic=per_topic), shown)
    assert _render(runs, "table", shown, per_topic) == expected
