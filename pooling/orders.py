"""Campaign judging orders: the order in which a campaign's queue hands out its pooled pairs.

A static order (:data:`JUDGING_ORDERS`) fixes the queue when the campaign is created. An
adaptive order is an adaptive strategy of :data:`pooljudge.pooling.strategies.REGISTRY`
(:data:`ADAPTIVE_ORDERS`, a view of it), written in the strategy grammar, e.g.
``maxmean(alpha=2,beta=1)``: its policy is asked at claim time and needs each run's ranking of
the pool; the seed is the campaign's. Light: no numpy, no pandas.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from pooljudge.pooling.strategies import StrategySpec, is_adaptive, parse_strategy, strategies

from pooljudge.errors import InputError

__all__ = ["ADAPTIVE_ORDERS", "JUDGING_ORDERS", "adaptive_spec", "canonical_order"]

JUDGING_ORDERS: Mapping[str, str] = MappingProxyType({
    "pool": "the pool file's order within each topic; topics interleaved so each advances in "
            "proportion to its size (pair i of a topic of n pairs at (i / n, topic))",
    "topic": "topic by topic, the pool file's order within each topic",
    "random": "a seeded random permutation of all pairs",
})
# name -> help text of every adaptive strategy of the registry.
ADAPTIVE_ORDERS: Mapping[str, str] = MappingProxyType(
    {s.name: s.help for s in strategies("adaptive")})


def adaptive_spec(order: str) -> StrategySpec | None:
    """The pooling strategy of an adaptive order (``mtf``, ``maxmean(alpha=2)``...), None for a
    static order or any other text."""
    if order in JUDGING_ORDERS:
        return None
    try:
        spec = parse_strategy(order)
    except InputError:
        return None
    return spec if is_adaptive(spec) else None


def canonical_order(order: str) -> str:
    """``order`` as stored: a static order's name, or an adaptive strategy in the registry's
    canonical form (aliases resolved, parameters sorted). Raises InputError naming the choices."""
    if order in JUDGING_ORDERS:
        return order
    try:
        spec = parse_strategy(order)
    except InputError as exc:
        adaptive = False
        reason = "" if exc.message.startswith("unknown strategy") else f" ({exc.message})"
    else:
        adaptive = is_adaptive(spec)
        reason = "" if adaptive else " (a pooling order: pool with it, then use 'pool')"
    if not adaptive:
        choices = ", ".join([*JUDGING_ORDERS, *ADAPTIVE_ORDERS])
        raise InputError(f"unknown judging order {order!r}{reason}; choose from {choices}")
    return str(spec)
