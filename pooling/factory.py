"""The judging policy for a strategy name: :data:`pooljudge.pooling.strategies.REGISTRY` declares
the strategies, :mod:`pooljudge.pooling.static_orders` and :mod:`pooljudge.pooling.adaptive`
implement them, and :func:`make_policy` picks one (kept out of the registry so the
implementations can read the registry without a cycle)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pooljudge.pooling.strategies import StrategySpec, is_adaptive, parse_strategy

if TYPE_CHECKING:
    from pooljudge.pooling.policy import JudgingPolicy
    from pooljudge.pooling.pool import Pool

__all__ = ["make_policy"]


def make_policy(
    spec: StrategySpec | str, pool: Pool, *, seed: int = 0, rel: int = 1
) -> JudgingPolicy:
    """The judging policy for ``spec`` over ``pool``. Raises InputError for a bad name,
    parameter or seed."""
    if isinstance(spec, str):
        spec = parse_strategy(spec)
    if not is_adaptive(spec):
        from pooljudge.pooling.policy import StaticPolicy
        from pooljudge.pooling.static_orders import static_order

        order = static_order(pool, spec.name, **dict(spec.params))
        return StaticPolicy(str(spec), pool, order, rel=rel)
    from pooljudge.pooling.adaptive import AdaptivePolicy

    policy = AdaptivePolicy(spec.name, pool, seed=seed, rel=rel, **dict(spec.params))
    policy.name = str(spec)
    return policy
