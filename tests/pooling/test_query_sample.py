"""Stratified samples of logged queries: exact counts, redistribution, seeds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pooljudge.pooling.query_sample import MISSING_STRATUM, sample_queries

from pooljudge.errors import UsageError


def _queries(sizes: dict[str, int]) -> pd.DataFrame:
    ids, strata = [], []
    for name, size in sizes.items():
        ids += [f"{name}-{i:03d}" for i in range(size)]
        strata += [name] * size
    return pd.DataFrame({"query_id": ids, "stratum": strata})


def _counts(sample: pd.DataFrame) -> dict[str, int]:
    return sample["stratum"].value_counts().to_dict()


@pytest.mark.parametrize("n", [1, 7, 20, 33, 100])
def test_proportional_counts_are_the_largest_remainder_rounding(n):
    sizes = {"billing": 61, "shipping": 29, "returns": 10}
    sample, table, warnings = sample_queries(_queries(sizes), n, seed=3)
    shares = {k: n * v / 100 for k, v in sizes.items()}
    assert len(sample) == n and sample["query_id"].is_unique and warnings == []
    for name, count in _counts(sample).items():
        assert np.floor(shares[name]) <= count <= np.ceil(shares[name])
    assert table.set_index("stratum")["share"].to_dict() == pytest.approx(shares)
    assert table["sampled"].sum() == n


def test_equal_allocation_gives_a_small_stratum_all_it_has_and_redistributes():
    sample, table, warnings = sample_queries(_queries({"a": 50, "b": 40, "c": 2}), 30,
                                             allocation="equal", seed=1)
    assert _counts(sample) == {"a": 14, "b": 14, "c": 2}
    assert len(warnings) == 1 and "stratum 'c' has 2 queries" in warnings[0]
    assert table["sampled"].tolist() == [14, 14, 2]


def test_the_sample_is_within_each_stratum_and_seeded():
    queries = _queries({"a": 30, "b": 30, "c": 30})
    first = sample_queries(queries, 12, allocation="equal", seed=7)[0]
    again = sample_queries(queries.sample(frac=1, random_state=0), 12, allocation="equal",
                           seed=7)[0]
    other = sample_queries(queries, 12, allocation="equal", seed=8)[0]
    pd.testing.assert_frame_equal(first, again)
    assert set(first["query_id"]) != set(other["query_id"])
    assert all(q.startswith(s) for q, s in zip(first["query_id"], first["stratum"],
                                               strict=True))


def test_every_query_is_equally_likely_within_a_stratum():
    queries = _queries({"a": 10, "b": 30})
    taken = pd.concat([sample_queries(queries, 8, seed=s)[0] for s in range(400)])
    rates = taken["query_id"].value_counts().reindex(queries["query_id"], fill_value=0) / 400
    # proportional: 2 of 10 in a, 6 of 30 in b, so every query has probability 0.2
    assert rates.to_numpy() == pytest.approx(np.full(40, 0.2), abs=0.08)


def test_queries_without_a_stratum_form_their_own():
    queries = _queries({"a": 6, "b": 4})
    queries.loc[[0, 7], "stratum"] = None
    sample, table, _ = sample_queries(queries, 10, seed=0)
    assert MISSING_STRATUM in set(table["stratum"]) and len(sample) == 10


def test_asking_for_more_queries_than_logged_is_a_usage_error():
    with pytest.raises(UsageError, match="--n: 11 queries asked for, but the logs hold only 10"):
        sample_queries(_queries({"a": 10}), 11)
    with pytest.raises(UsageError, match="--allocation"):
        sample_queries(_queries({"a": 10}), 1, allocation="neyman")
