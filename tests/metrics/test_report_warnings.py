"""The report's warnings say what their numbers are: the pool-bias line names the depth-k pool
its values come from (the bias table's) and gives the means table's value beside them; the
short-ranking line is eval's."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.report import bias_view, collect, means_table

from pooljudge.cli import main
from pooljudge.formats.trec import write_qrels, write_run


def _biased():
    """alpha finds relevant documents nobody else retrieves: leaving it out hurts its AP."""
    rng = np.random.default_rng(3)
    qrels, runs = [], {"alpha": [], "beta": [], "gamma": []}
    for t in range(1, 7):
        qrels += [(str(t), f"u{t}-{d}", 1) for d in range(4)]
        qrels += [(str(t), f"c{d}", int(d % 3 == 0)) for d in range(12)]
        runs["alpha"] += [(str(t), f"u{t}-{d}", 10.0 - d) for d in range(4)]
        for name in runs:
            runs[name] += [(str(t), f"c{d}", float(rng.integers(0, 5))) for d in range(12)]
    # gamma returns only 3 documents for topic 1
    runs["gamma"] = [r for r in runs["gamma"] if r[0] != "1"] + [("1", f"c{d}", 1.0)
                                                                 for d in range(3)]
    frame = pd.DataFrame(qrels, columns=["topic", "doc", "label"])
    return frame, {n: pd.DataFrame(r, columns=["topic", "doc", "score"]) for n, r in runs.items()}


def test_the_bias_warning_gives_the_bias_table_numbers_and_the_means_table_value():
    qrels, runs = _biased()
    data = collect(qrels, runs, ["AP", "P@10"], pool_depth=3)
    view, means = bias_view(data.bias), means_table(data)
    lines = [w for w in data.warnings if "without its own pool contribution" in w]
    assert lines, data.warnings
    for line in lines:
        found = re.fullmatch(r"(\S+): (\S+) on the qrels restricted to the depth-3 pool falls "
                             r"from ([0-9.]+) to ([0-9.]+) without its own pool contribution; "
                             r"on all the qrels \(means table\) ([0-9.]+)", line)
        assert found, line
        run, measure = found[1], found[2]
        assert float(found[3]) == pytest.approx(view.loc[run, f"{measure} with"], abs=5e-5)
        assert float(found[4]) == pytest.approx(view.loc[run, f"{measure} without"], abs=5e-5)
        assert float(found[5]) == pytest.approx(means.loc[run, measure], abs=5e-5)


def test_the_report_repeats_eval_s_short_ranking_warning(tmp_path, capsys):
    qrels, runs = _biased()
    write_qrels(qrels, tmp_path / "qrels")
    paths = []
    for name, frame in runs.items():
        write_run(frame.assign(run=name), tmp_path / name)
        paths.append(str(tmp_path / name))
    assert main(["eval", str(tmp_path / "qrels"), *paths, "-m", "P@10"]) == 0
    eval_lines = [line.split("warning: ", 1)[1] for line in capsys.readouterr().err.splitlines()
                  if "documents returned for" in line]
    assert eval_lines == ["gamma: fewer than 10 documents returned for 1 topic(s)"]
    data = collect(qrels, runs, ["P@10"])
    assert "gamma: fewer than 10 documents returned for 1 topic(s)" in data.warnings
    assert main(["report", str(tmp_path / "qrels"), *paths, "-m", "P@10", "-o",
                 str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    for line in eval_lines:
        assert line in page


@pytest.mark.parametrize(("measure", "warned"), [("P@2", False), ("P@10", True)])
def test_eval_warns_about_short_rankings_for_the_cutoffs_asked_only(tmp_path, capsys, measure,
                                                                    warned):
    """The table's added unjudged@10 column does not make ``-m P@2`` warn about k = 10."""
    qrels, runs = _biased()
    write_qrels(qrels, tmp_path / "qrels")
    write_run(runs["gamma"].assign(run="gamma"), tmp_path / "gamma")
    assert main(["eval", str(tmp_path / "qrels"), str(tmp_path / "gamma"), "-m", measure]) == 0
    captured = capsys.readouterr()
    assert "unjudged" in captured.out  # the coverage column is there in both cases
    assert ("documents returned for" in captured.err) is warned
