"""The second-order correction of the delete-one variance (:mod:`pooljudge.metrics.second_order`):
the
two-row deletions against recomputing the estimator, the closed-form centred pair sum against
the n × n matrix, the pair chunks, and the bounds of the corrected variance."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from pooljudge.metrics.linearised import influence
from pooljudge.metrics.pair_deletions import PAIRS
from pooljudge.metrics.registry import parse
from pooljudge.metrics.second_order import (
    delete_one_variance,
    first_order_variance,
    linearised_se,
    pair_surplus,
    pairs_by_topic,
)

from tests.metrics.test_linearised import _at, _case

PAIRED = ["statAP", "statAP(rel=3)", "statNDCG", "statNDCG@10", "infNDCG", "infNDCG@10",
          "xinfAP", "xinfAP(rel=2)"]


@pytest.mark.parametrize("seed", [3, 5])
@pytest.mark.parametrize("name", PAIRED)
def test_two_row_deletion_is_the_estimate_without_both(name, seed):
    """θ̂_(de) equals the estimator recomputed with one unit less on rows d and e, for every
    pair of rows that change it within a topic."""
    r, p = _case(seed)
    m = parse(name)
    rows, _, theta, deleted_two = PAIRS[m.name](r, m)
    np.testing.assert_allclose(theta, m.spec.compute(r, m), rtol=0, atol=1e-12)
    checked = 0
    for d, e in itertools.combinations(rows, 2):
        if p.topic[d] != p.topic[e] or p.topic[d] < 0:
            continue
        weight = p.weight.copy()
        weight[[d, e]] -= 1.0
        expected = m.spec.compute(_at(r, p, weight), m)[p.topic[d]]
        with np.errstate(divide="ignore", invalid="ignore"):
            got = deleted_two(np.array([d]), np.array([e]))[0]
        assert abs(got - expected) < 1e-10, (d, e)
        checked += 1
    assert checked >= 10


def _dense_surplus(p, pairs, z) -> np.ndarray:
    """U_t by its definition: the n × n matrix of every weighted row's pairs (those of two
    changing rows, one an anchor), centred within cells row-wise and column-wise, its strict
    upper triangle summed."""
    rows, anchor, theta, deleted_two = pairs
    weighted = np.flatnonzero(p.judged & (p.inclusion < 1) & (p.weight > 0) & (p.topic >= 0)
                              & (p.sampled[p.cell] > 1))
    changing = set(rows.tolist())
    anchors = set(rows[anchor].tolist())
    out = np.zeros(p.n_topics)
    for t in np.unique(p.topic[weighted]):
        rr = weighted[p.topic[weighted] == t]
        w = (1 - p.inclusion[rr]) * p.weight[rr]
        M = np.zeros((len(rr), len(rr)))
        for a, b in itertools.combinations(range(len(rr)), 2):
            d, e = rr[a], rr[b]
            if d in changing and e in changing and (d in anchors or e in anchors):
                with np.errstate(divide="ignore", invalid="ignore"):
                    two = deleted_two(np.array([d]), np.array([e]))[0]
                M[a, b] = M[b, a] = two - theta[t] + z[d] + z[e]
        for cell in np.unique(p.cell[rr]):
            k = p.cell[rr] == cell
            M[:, k] -= ((M[:, k] * w[k]).sum(axis=1) / w[k].sum())[:, None]
            M[k, :] -= ((M[k, :] * w[k][:, None]).sum(axis=0) / w[k].sum())[None, :]
        a, b = np.triu_indices(len(rr), 1)
        out[t] = (w[a] * w[b] * M[a, b] ** 2).sum()
    return out


@pytest.mark.parametrize("limit", [1, 7, 10_000])
@pytest.mark.parametrize("name", PAIRED)
def test_closed_form_equals_the_centred_matrix(name, limit, monkeypatch):
    """pair_surplus (sums over the changing pairs, the centring in closed form, in chunks of
    ``limit`` pairs) equals the centred matrix summed, topic by topic."""
    import pooljudge.metrics.second_order as second_order

    monkeypatch.setattr(second_order, "PAIRS_PER_CHUNK", limit)
    r, p = _case(4, topics=3, docs=30)
    m = parse(name)
    z = np.where(p.judged & (p.weight > 0), influence(r, m), 0.0)
    pairs = PAIRS[m.name](r, m)
    got = pair_surplus(p, pairs, z)
    np.testing.assert_allclose(got, _dense_surplus(p, pairs, z),
                               rtol=1e-9, atol=1e-15)
    assert got.max() > 0


@pytest.mark.parametrize("limit", [1, 2, 5, 1000])
def test_pairs_by_topic_gives_every_pair_once(limit):
    topic = np.array([0, 0, 0, 2, 5, 5, 5, 5, 7, 7])
    seen = [pair for a, b in pairs_by_topic(topic, limit=limit)
            for pair in zip(a, b, strict=True)]
    expected = [(a, b) for a, b in itertools.combinations(range(len(topic)), 2)
                if topic[a] == topic[b]]
    assert sorted(seen) == expected and len(seen) == len(set(seen))
    anchor = np.array([1, 1, 0, 0, 1, 0, 0, 0, 1, 0], dtype=bool)  # each topic's anchors first
    seen = [pair for a, b in pairs_by_topic(topic, anchor, limit)
            for pair in zip(a, b, strict=True)]
    assert sorted(seen) == [(a, b) for a, b in expected if anchor[a] or anchor[b]]
    assert list(pairs_by_topic(np.array([3]))) == []


@pytest.mark.parametrize("seed", [3, 5, 8])
@pytest.mark.parametrize("name", PAIRED)
def test_corrected_variance_lies_between_first_order_and_delete_one(name, seed):
    """The SE² is the delete-one variance less U_t, kept between the first-order (derivative)
    variance and the delete-one variance (xinfAP's and infNDCG's scaled to the stratified
    jackknife); and below it somewhere."""
    r, _ = _case(seed)
    m = parse(name)
    delete_one, first = delete_one_variance(r, m)[0], first_order_variance(r, m)
    variance = linearised_se(r, m) ** 2
    assert np.all(variance <= delete_one * (1 + 1e-12))
    assert np.all(variance >= np.minimum(first, delete_one) * (1 - 1e-12))
    assert np.any(variance < delete_one * (1 - 1e-6))


@pytest.mark.parametrize("name", ["xinfAP", "infNDCG"])
def test_inferred_influences_are_scaled_to_the_stratified_jackknife(name):
    """xinfAP's and infNDCG's deletions reweight the cell (N_c/(n_c − 1)): their influences
    are scaled by (n_c − 1)/n_c, which makes Hájek's variance the JKn variance
    (1 − f_c)(n_c − 1)/n_c Σ (θ̂_(d) − θ̄_(·))² of each cell (π = f_c = n_c/N_c within a cell,
    as stratified sampling draws)."""
    r, p = _case(6)
    p = dataclasses.replace(p, inclusion=np.where(p.inclusion >= 1, 1.0, p.cell_fraction()),
                            _cache={})
    r = dataclasses.replace(r, prels=p, _cache={})
    m = parse(name)
    z = np.where(p.judged & (p.weight > 0), influence(r, m), 0.0)
    expected = np.zeros(p.n_topics)
    for cell in np.unique(p.cell[p.judged & (p.inclusion < 1)]):
        rows = np.flatnonzero((p.cell == cell) & p.judged & (p.weight > 0))
        n, size = len(rows), p.pooled[cell]
        if n < 2:
            continue
        values = -z[rows]  # θ̂_(d) − θ̂
        expected[p.cell_topic[cell]] += (1 - n / size) * (n - 1) / n * (
            (values - values.mean()) ** 2).sum()
    np.testing.assert_allclose(delete_one_variance(r, m)[0], expected, rtol=1e-9, atol=1e-15)
