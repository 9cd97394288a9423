"""Static orders against hand-computed fusion scores, and the strategy-name grammar."""

from __future__ import annotations

import numpy as np
import pytest
from pooljudge.pooling import build_pool, make_policy, parse_strategy
from pooljudge.pooling.static_orders import static_order
from pooljudge.pooling.strategies import REGISTRY, StrategySpec

from pooljudge.errors import InputError

# Topic 1. Run A: d1 (10), d2 (8), d3 (0). Run B: d3 (5), d1 (3), d4 (1). Depth 3.
# Min-max normalised: A d1 1, d2 .8, d3 0; B d3 1, d1 .5, d4 0.
A = [("1", "d1", 10.0), ("1", "d2", 8.0), ("1", "d3", 0.0)]
B = [("1", "d3", 5.0), ("1", "d1", 3.0), ("1", "d4", 1.0)]
DOCS = ["d1", "d2", "d3", "d4"]


@pytest.fixture
def pool(kit):
    return build_pool({"B": kit.run_frame(B), "A": kit.run_frame(A)}, 3)


@pytest.mark.parametrize(("name", "params", "fused"), [
    ("rrf", {"k": 60}, [1 / 61 + 1 / 62, 1 / 62, 1 / 63 + 1 / 61, 1 / 63]),
    ("rrf", {"k": 0}, [1 + 1 / 2, 1 / 2, 1 / 3 + 1, 1 / 3]),
    ("combsum", {}, [1.5, 0.8, 1.0, 0.0]),
    ("combmnz", {}, [3.0, 0.8, 2.0, 0.0]),
    ("borda", {}, [3 + 2, 2, 1 + 3, 1]),
    ("rbp-sum", {"p": 0.5}, [0.5 + 0.25, 0.25, 0.125 + 0.5, 0.125]),
    ("rbp-max", {"p": 0.5}, [0.5, 0.25, 0.5, 0.125]),
], ids=lambda v: str(v))
def test_fused_scores_match_hand_computation(pool, name, params, fused):
    assert list(pool.pairs["doc"]) == DOCS
    np.testing.assert_allclose(-REGISTRY[name].load()(pool, **params), fused, rtol=1e-12)


@pytest.mark.parametrize(("spec", "expected"), [
    ("rrf", ["d1", "d3", "d2", "d4"]),
    ("combsum", ["d1", "d3", "d2", "d4"]),
    ("borda", ["d1", "d3", "d2", "d4"]),
    ("rbp-max(p=0.5)", ["d1", "d3", "d2", "d4"]),  # d1, d3 tie at 0.5 and best rank 1: doc id
    ("take@1", ["d1", "d3", "d2", "d4"]),  # round 1: A d1, B d3; round 2: A d2, B d1 (taken)
    ("take@2", ["d1", "d2", "d3", "d4"]),  # round 1: A d1 d2, B d3 d1; round 2: A -, B d4
    ("docid", ["d1", "d2", "d3", "d4"]),
])
def test_orders_follow_fused_scores_with_documented_ties(pool, spec, expected):
    order = make_policy(spec, pool).plan()
    assert list(pool.pairs["doc"].to_numpy()[np.argsort(order)]) == expected


def test_fusion_ties_fall_back_to_best_rank_then_doc_id(kit):
    # Both runs give x and y the same RRF score; y has the better best rank (1 vs 2).
    pool = build_pool({"A": kit.run_frame(kit.ranked_run("1", ["y", "x"])),
                       "B": kit.run_frame(kit.ranked_run("1", ["x", "y", "w"]))}, 3)
    order = static_order(pool, "rrf")
    assert dict(zip(pool.pairs["doc"], order, strict=True)) == {"x": 1, "y": 2, "w": 3}


def test_orders_are_per_topic(kit):
    pool = build_pool({"A": kit.run_frame(kit.ranked_run("2", ["b", "a"])
                                          + kit.ranked_run("1", ["c"]))}, 5)
    assert list(static_order(pool, "rrf")) == [1, 2, 1]  # (1, c), (2, a), (2, b)


@pytest.mark.parametrize("text", ["rrf(k=-1)", "rbp-sum(p=1)", "rbp-max(p=0)", "take@0"])
def test_bad_parameters_are_refused(pool, text):
    with pytest.raises(InputError):
        make_policy(text, pool)


@pytest.mark.parametrize(("text", "canonical"), [
    ("rrf", "rrf"), ("RRF(k=20)", "rrf(k=20.0)"), ("take@3", "take@3"), ("take(n=3)", "take@3"),
    ("rbp", "rbp-sum"), ("rbp-max( p = 0.9 )", "rbp-max(p=0.9)"), ("ts", "thompson"),
    ("thompson(beta=2,alpha=0.5)", "thompson(alpha=0.5,beta=2.0)"), ("mm", "maxmean"),
])
def test_strategy_names_parse_to_canonical_form_and_back(text, canonical):
    spec = parse_strategy(text)
    assert str(spec) == canonical
    assert parse_strategy(str(spec)) == spec


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_registered_strategy_round_trips(name):
    spec = StrategySpec(name, tuple(sorted(REGISTRY[name].defaults.items())))
    assert parse_strategy(str(spec)) == spec


@pytest.mark.parametrize(("text", "message"), [
    ("nope", "unknown strategy"), ("rrf(p=1)", "no parameter"), ("rrf@3", "only take"),
    ("take(n=1.5)", "integer"), ("rrf(k=abc)", "number"), ("rrf(k)", "name=value"),
    ("rrf(", "cannot parse"), ("take(n=2)@3", "cannot parse"), ("take@x", "cannot parse"),
    ("rrf(k=1,k=2)", "given twice"), ("rrf(k=-1)", "rrf needs k >= 0, got -1.0"),
    ("maxmean(alpha=0)", "maxmean needs alpha > 0"), ("rbp(p=1)", "rbp-sum needs 0 < p < 1"),
])
def test_bad_strategy_names_say_what_is_wrong(text, message):
    with pytest.raises(InputError, match=message):
        parse_strategy(text)
