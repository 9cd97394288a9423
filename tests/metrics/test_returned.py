"""NumRet and short@k: how much each run returned, beside its scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
from pooljudge.metrics.eval_inputs import load_qrels, parse_all
from pooljudge.metrics.evaluate import score, tidy
from pooljudge.metrics.returned import count_names, cutoffs, num_ret, with_counts

from pooljudge.formats.trec import run_columns


def test_cutoffs_and_names_follow_the_measures():
    measures = parse_all(["P@10", "AP", "nDCG@10", "R@100", "RBP(p=0.5)"])
    assert cutoffs(measures) == [10, 100]
    assert count_names(measures) == ["NumRet", "short@10", "short@100"]
    assert count_names(parse_all(["NumRet", "AP"])) == []  # asked for; AP has no cutoff
    assert [str(m) for m in num_ret(parse_all(["AP"]))] == ["AP", "NumRet"]
    assert [str(m) for m in num_ret(parse_all(["NumRet", "AP"]))] == ["NumRet", "AP"]


def test_short_counts_topics_below_each_cutoff_including_missing_ones():
    qrels = load_qrels(pd.DataFrame({"topic": ["1", "2", "3"], "doc": ["a", "b", "c"],
                                     "label": [1, 1, 1]}))
    run = pd.DataFrame({"topic": ["1"] * 3 + ["2"] * 2 + ["9"],
                        "doc": ["a", "x", "y", "b", "z", "q"], "score": 1.0})
    result = with_counts(score(qrels, "r", run_columns(run), num_ret(parse_all(["P@2"]))),
                         [2, 3])
    frame = tidy([result], per_topic=True).set_index(["topic", "measure"])["value"]
    assert frame[("all", "NumRet")] == 5.0  # topic 9 is not in the qrels: not counted
    np.testing.assert_array_equal([frame[(t, "short@2")] for t in "123"], [0.0, 0.0, 1.0])
    np.testing.assert_array_equal([frame[(t, "short@3")] for t in "123"], [0.0, 1.0, 1.0])
    assert frame[("all", "short@2")] == 1.0 and frame[("all", "short@3")] == 2.0
