"""Pooling: TREC runs in, an ordered judgment pool out (pure: numpy/pandas, no database).

Names are imported from their submodules on first use, so the light strategy registry
(:mod:`pooljudge.pooling.strategies`) and the campaign judging orders
(:mod:`pooljudge.pooling.orders`) load without
numpy or pandas. Bad input (a name, a parameter, a depth, a run) raises
:class:`pooljudge.errors.InputError`.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pooljudge.pooling.adaptive import AdaptivePolicy
    from pooljudge.pooling.factory import make_policy
    from pooljudge.pooling.policy import JudgingPolicy, StaticPolicy, global_sequence
    from pooljudge.pooling.pool import Pool, apply_budget, build_pool, topic_order
    from pooljudge.pooling.simulate import Curve, simulate, summary
    from pooljudge.pooling.stats import run_contributions, run_overlap, topic_sizes
    from pooljudge.pooling.strategies import REGISTRY, StrategySpec, parse_strategy

# Public name -> the submodule that defines it.
_EXPORTS: dict[str, str] = {
    "AdaptivePolicy": "adaptive",
    "JudgingPolicy": "policy", "StaticPolicy": "policy", "global_sequence": "policy",
    "Pool": "pool", "apply_budget": "pool", "build_pool": "pool", "topic_order": "pool",
    "Curve": "simulate", "simulate": "simulate", "summary": "simulate",
    "run_contributions": "stats", "run_overlap": "stats", "topic_sizes": "stats",
    "REGISTRY": "strategies", "StrategySpec": "strategies", "make_policy": "factory",
    "parse_strategy": "strategies",
}

__all__ = [
    "REGISTRY",
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


def __getattr__(name: str) -> Any:
    """Import a public name from its submodule the first time it is asked for."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Package(types.ModuleType):
    """Keeps ``pooljudge.pooling.simulate`` the function: importing the submodule of the same name
    binds
    it on the package, which would otherwise hide the function from ``from pooling import``."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, types.ModuleType) and name in _EXPORTS:
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
