"""Every public pooling function refuses bad input with the project's InputError, naming the
fault, so that callers need no translation of their own."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest
from pooljudge.pooling import AdaptivePolicy, Pool, apply_budget, build_pool, make_policy, simulate
from pooljudge.pooling.orders import canonical_order
from pooljudge.pooling.static_orders import static_order
from pooljudge.pooling.strategies import REGISTRY, parse_strategy

from pooljudge.errors import InputError

RUN = pd.DataFrame({"topic": ["1", "1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
TRUTH = pd.DataFrame({"topic": ["1"], "doc": ["a"], "label": [1]})

CASES: dict[str, tuple[Callable[[Pool], object], str]] = {
    "build_pool depth": (lambda pool: build_pool({"r": RUN}, 0), "depth must be at least 1"),
    "build_pool no runs": (lambda pool: build_pool({}, 5), "no runs to pool"),
    "build_pool twin names": (lambda pool: build_pool([("r", RUN), ("r", RUN)], 5),
                              "two runs are named 'r'"),
    "apply_budget budget": (lambda pool: apply_budget(pool, np.ones(2), budget=0),
                            "budget must be at least 1"),
    "apply_budget floor": (lambda pool: apply_budget(pool, np.ones(2), floor=-1),
                           "floor must not be negative"),
    "static_order adaptive name": (lambda pool: static_order(pool, "mtf"),
                                   "unknown static order 'mtf'"),
    "static_order range": (lambda pool: static_order(pool, "rrf", k=-1), "rrf needs k >= 0"),
    "static_order unknown parameter": (lambda pool: static_order(pool, "rrf", p=1),
                                       "rrf has no parameter 'p'; it takes k"),
    "AdaptivePolicy static name": (lambda pool: AdaptivePolicy("rrf", pool),
                                   "unknown adaptive order 'rrf'"),
    "AdaptivePolicy seed": (lambda pool: AdaptivePolicy("mtf", pool, seed=-1),
                            "seed must not be negative"),
    "AdaptivePolicy range": (lambda pool: AdaptivePolicy("thompson", pool, beta=0),
                             "thompson needs beta > 0"),
    "make_policy name": (lambda pool: make_policy("nope", pool), "unknown strategy 'nope'"),
    "make_policy range": (lambda pool: make_policy("take@0", pool), "take needs n >= 1"),
    "parse_strategy type": (lambda pool: parse_strategy("rrf(k=x)"), "must be a number"),
    "parse_strategy syntax": (lambda pool: parse_strategy("rrf(k"), "cannot parse strategy"),
    "simulate": (lambda pool: simulate(pool, TRUTH, ["rbp-max(p=2)"]),
                 "rbp-max needs 0 < p < 1"),
    "canonical_order": (lambda pool: canonical_order("combsum"),
                        "a pooling order: pool with it"),
    "Strategy.arguments": (lambda pool: REGISTRY["maxmean"].arguments({"gamma": 1.0}),
                           "maxmean has no parameter 'gamma'"),
}


@pytest.fixture(scope="module")
def pool() -> Pool:
    return build_pool({"r": RUN}, 5)


@pytest.mark.parametrize(("call", "message"), CASES.values(), ids=CASES)
def test_bad_input_raises_the_project_input_error(pool, call, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(")) as raised:
        call(pool)
    assert not isinstance(raised.value, ValueError)


def test_a_source_is_named_first_as_the_command_line_shows_it():
    with pytest.raises(InputError) as raised:
        parse_strategy("rrf(k=-1)", source="--strategy")
    assert str(raised.value) == "--strategy: rrf needs k >= 0, got -1.0"
