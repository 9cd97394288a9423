"""Pooling: TREC runs in, an ordered judgment pool out (pure: numpy/pandas, no database)."""

from pooling.adaptive import AdaptivePolicy
from pooling.policy import JudgingPolicy, StaticPolicy, global_sequence
from pooling.pool import Pool, apply_budget, build_pool, topic_order
from pooling.simulate import Curve, simulate, summary
from pooling.stats import run_contributions, run_overlap, topic_sizes
from pooling.strategies import STRATEGIES, StrategySpec, make_policy, parse_strategy

__all__ = [
    "STRATEGIES",
    "AdaptivePolicy",
    "Curve",
    "JudgingPolicy",
    "Pool",
    "StaticPolicy",
    "StrategySpec",
    "apply_budget",
    "build_pool",
    "global_sequence",
    "make_policy",
    "parse_strategy",
    "run_contributions",
    "run_overlap",
    "simulate",
    "summary",
    "topic_order",
    "topic_sizes",
]
