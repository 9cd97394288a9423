"""Kendall's tau and tau_AP on hand-made orderings; swaps and rank changes."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.correlate import (
    correlate,
    kendall_tau,
    ordering,
    rank_changes,
    swapped_pairs,
    tau_ap,
)
from scipy import stats

from pooljudge.errors import InputError

REF = ["a", "b", "c", "d"]


@pytest.mark.parametrize(
    ("estimate", "expected"),
    [
        pytest.param(["a", "b", "c", "d"], 1.0, id="identical"),
        pytest.param(["d", "c", "b", "a"], -1.0, id="reversed"),
        # i=2: a below b in truth -> 0/1; i=3: 2/2; i=4: 3/3 -> 2/3 * 2 - 1
        pytest.param(["b", "a", "c", "d"], 1 / 3, id="swap-at-top"),
        # i=2: 1/1; i=3 (d): 2/2; i=4 (c): a, b above, d not -> 2/3 -> 2/3 * 8/3 - 1
        pytest.param(["a", "b", "d", "c"], 7 / 9, id="swap-at-bottom"),
        # i=2 (a): c above, but below a in truth -> 0/1; i=3 (b): c, a above, a correct -> 1/2;
        # i=4 (d): 3/3 -> 2/3 * 3/2 - 1
        pytest.param(["c", "a", "b", "d"], 0.0, id="third-to-top"),
        # i=2: 1/1; i=3 (d): 2/2; i=4 (b): a, c, d above, only a correct -> 1/3
        pytest.param(["a", "c", "d", "b"], 2 / 3 * (1 + 1 + 1 / 3) - 1, id="second-to-bottom"),
    ],
)
def test_tau_ap_hand_computed(estimate, expected):
    assert tau_ap(REF, estimate) == pytest.approx(expected, abs=1e-12)


def test_tau_ap_top_swap_costs_more_than_bottom_swap_while_kendall_is_equal():
    top, bottom = ["b", "a", "c", "d"], ["a", "b", "d", "c"]
    assert tau_ap(REF, top) < tau_ap(REF, bottom)
    truth = pd.Series([4.0, 3.0, 2.0, 1.0], index=REF)
    top_scores = pd.Series([3.0, 4.0, 2.0, 1.0], index=REF)
    bottom_scores = pd.Series([4.0, 3.0, 1.0, 2.0], index=REF)
    assert kendall_tau(truth, top_scores)[0] == pytest.approx(2 / 3)
    assert kendall_tau(truth, bottom_scores)[0] == pytest.approx(2 / 3)


def test_tau_ap_equals_kendall_on_average_over_random_orderings_of_two():
    # With two items tau_AP reduces to Kendall's tau: +1 or -1.
    assert tau_ap(["x", "y"], ["x", "y"]) == 1.0
    assert tau_ap(["x", "y"], ["y", "x"]) == -1.0


def test_tau_ap_against_direct_loop_on_random_permutations():
    rng = np.random.default_rng(7)
    items = [f"r{i}" for i in range(9)]
    for _ in range(50):
        estimate = list(rng.permutation(items))
        total = 0.0
        for i in range(1, len(estimate)):
            total += sum(items.index(estimate[j]) < items.index(estimate[i])
                         for j in range(i)) / i
        assert tau_ap(items, estimate) == pytest.approx(2 / (len(items) - 1) * total - 1)


def test_tau_ap_rejects_different_items_and_is_nan_for_one():
    with pytest.raises(InputError, match="same distinct items"):
        tau_ap(["a", "b"], ["a", "c"])
    with pytest.raises(InputError, match="same distinct items"):
        tau_ap(["a", "a"], ["a", "a"])
    assert np.isnan(tau_ap(["a"], ["a"]))


def test_kendall_matches_scipy_with_ties_and_alignment_by_name():
    a = pd.Series([0.3, 0.1, 0.2, 0.2], index=["w", "x", "y", "z"])
    b = pd.Series([0.5, 0.2, 0.1, 0.4], index=["z", "y", "x", "w"])  # other order of names
    tau, p = kendall_tau(a, b)
    expected = stats.kendalltau([0.3, 0.1, 0.2, 0.2], [0.4, 0.1, 0.2, 0.5])
    assert tau == pytest.approx(expected.statistic)
    assert p == pytest.approx(expected.pvalue)


def test_ordering_breaks_ties_by_name():
    assert ordering(pd.Series([0.2, 0.5, 0.2], index=["b", "c", "a"])) == ["c", "a", "b"]


def test_swapped_pairs_lists_every_discordant_pair():
    estimate = ["c", "a", "b", "d"]
    expected = [(x, y) for x, y in itertools.combinations(REF, 2)
                if estimate.index(x) > estimate.index(y)]
    assert swapped_pairs(REF, estimate) == expected == [("a", "c"), ("b", "c")]


def test_rank_changes_and_correlate_summary():
    means_a = pd.DataFrame({"run": ["s1", "s2", "s3"] * 2, "measure": ["AP"] * 3 + ["P@10"] * 3,
                            "value": [0.3, 0.2, 0.1, 0.5, 0.4, 0.3]})
    means_b = pd.DataFrame({"run": ["s3", "s2", "s1"] * 2, "measure": ["AP"] * 3 + ["P@10"] * 3,
                            "value": [0.25, 0.2, 0.1, 0.3, 0.4, 0.5]})
    summary, changes = correlate(means_a, means_b)
    ap = summary.set_index("measure").loc["AP"]
    # AP under B: s3 0.25, s2 0.2, s1 0.1 -> full reversal.
    assert ap["tau_ap"] == pytest.approx(-1.0)
    assert ap["kendall_tau"] == pytest.approx(-1.0)
    assert ap["swaps"] == 3
    p10 = summary.set_index("measure").loc["P@10"]
    assert p10["tau_ap"] == pytest.approx(1.0) and p10["swaps"] == 0
    ap_changes = changes[changes["measure"] == "AP"].set_index("run")
    assert ap_changes.loc["s1", ["rank_a", "rank_b", "change"]].tolist() == [1, 3, -2]
    assert ap_changes.loc["s3", "change"] == 2
    direct = rank_changes(pd.Series([1.0, 2.0], index=["p", "q"]),
                          pd.Series([2.0, 1.0], index=["p", "q"]))
    assert direct["run"].tolist() == ["q", "p"] and direct["change"].tolist() == [-1, 1]
