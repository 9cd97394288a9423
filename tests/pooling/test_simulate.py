"""Simulated judging: curve arithmetic on a hand case, and the robust03 reference figures."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from pooljudge.pooling import build_pool, simulate, summary
from pooljudge.pooling.simulate import Curve, found_share, needed_share

from pooljudge.formats.trec import read_qrels, read_run_columns, run_name


def test_hand_case_in_document_id_order(kit):
    # Ten documents d0..d9 in one topic; d1, d4, d8, d9 relevant (label 2, 1, 1, 3); d5 is -1.
    docs = [f"d{i}" for i in range(10)]
    pool = build_pool({"A": kit.run_frame(kit.ranked_run("1", docs))}, 10)
    truth = pd.DataFrame({"topic": "1", "doc": ["d1", "d4", "d8", "d9", "d5", "d0"],
                          "label": [2, 1, 1, 3, -1, 0]})
    (curve,) = simulate(pool, truth, ["docid"])
    np.testing.assert_array_equal(curve.found, [0, 1, 1, 1, 2, 2, 2, 2, 3, 4])
    assert curve.total_relevant == 4
    assert [found_share(curve, s) for s in (0.1, 0.2, 0.5, 0.9, 1.0)] == [0, .25, .5, .75, 1]
    assert needed_share(curve, 0.9) == 1.0  # 4 of 4 needed: 0.9 * 4 = 3.6 -> 4
    assert needed_share(curve, 0.75) == 0.9
    (strict,) = simulate(pool, truth, ["docid"], rel=2)
    assert strict.total_relevant == 2 and needed_share(strict, 0.5) == 0.2


def test_budget_shares_are_spread_over_topics_by_pool_size(kit):
    # Topic 1 has 2 documents, topic 2 has 8: 50 % of the pool is 1 + 4 judgments.
    pool = build_pool({"A": kit.run_frame(kit.ranked_run("1", ["x", "y"])
                                          + kit.ranked_run("2", [f"z{i}" for i in range(8)]))}, 10)
    truth = pool.pairs[["topic", "doc"]].assign(label=1)
    (curve,) = simulate(pool, truth, ["rrf"])
    assert found_share(curve, 0.5) == 0.5 and found_share(curve, 0.2) == 0.2


def test_no_relevant_document_gives_nan(kit):
    pool = build_pool({"A": kit.run_frame(kit.ranked_run("1", ["x", "y"]))}, 10)
    (curve,) = simulate(pool, pd.DataFrame({"topic": [], "doc": [], "label": []}), ["rrf"])
    assert math.isnan(found_share(curve, 0.2)) and math.isnan(needed_share(curve))


def test_summary_has_one_row_per_strategy():
    curve = Curve("x", np.array([1, 1, 2, 2]), 2)
    table = summary([curve], shares=(0.25, 0.5), target=0.9)
    assert table.to_dict("records") == [
        {"strategy": "x", "found@25%": 0.5, "found@50%": 0.5, "needed@90%": 0.75}]


@pytest.mark.slow
def test_robust03_reference_figures(shared_data):
    folder = shared_data / "robust03"
    runs = {run_name(p): read_run_columns(p) for p in sorted((folder / "runs").glob("*.gz"))}
    assert len(runs) == 17
    pool = build_pool(runs, 100)
    truth = read_qrels(folder / "qrels.txt")
    curves = simulate(pool, truth, ["docid", "rrf", "maxmean", "mtf"])
    at20 = {c.strategy: found_share(c, 0.2) for c in curves}
    # Reference figures (docs/guides/pool.md): doc-id order about 17 %, RRF 52 %, MaxMean 63 %.
    assert 0.12 <= at20["docid"] <= 0.22
    assert 0.47 <= at20["rrf"] <= 0.57
    assert 0.58 <= at20["maxmean"] <= 0.68
    assert at20["docid"] < at20["rrf"] < at20["mtf"] < at20["maxmean"]
    needed = {c.strategy: needed_share(c) for c in curves}
    assert needed["maxmean"] < needed["rrf"] < needed["docid"] <= 0.95
