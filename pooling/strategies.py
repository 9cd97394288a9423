"""Judging strategies: one registry of names, help texts and defaults; one grammar; one factory.

This module is light (no numpy, no pandas): command-line help and name checks read it without
loading any implementation. The implementations live in :mod:`pooling.static_orders`
(``STATIC_ORDERS``) and :mod:`pooling.adaptive` (``ADAPTIVE_WALKS``), keyed by the same names and
taking exactly the declared parameters as keyword-only arguments, without defaults of their own;
:func:`make_policy` imports them when a policy is made.

A strategy is written ``name`` or ``name(key=value, ...)``, e.g. ``rrf``, ``rrf(k=20)``,
``rbp-sum(p=0.9)``, ``thompson(alpha=0.5,beta=2)``; ``take@N`` is short for ``take(n=N)``.
``str(parse_strategy(s))`` is canonical (parameters sorted, ``take@N``) and
``parse_strategy(str(spec)) == spec``. Parameters left out take the declared defaults; the random
seed of adaptive policies is given to :func:`make_policy`, not in the name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from pooling.policy import JudgingPolicy
    from pooling.pool import Pool

__all__ = [
    "DEFAULT_STRATEGY",
    "REGISTRY",
    "STRATEGIES",
    "Strategy",
    "StrategySpec",
    "is_adaptive",
    "make_policy",
    "parse_strategy",
    "strategy_defaults",
]


@dataclass(frozen=True)
class Strategy:
    """A judging strategy as declared: ``static`` orders are fixed before any judgment,
    ``adaptive`` ones learn from the judgments. An integer default means the parameter must be
    an integer."""

    name: str
    kind: Literal["static", "adaptive"]
    help: str
    defaults: Mapping[str, float | int] = field(default_factory=lambda: MappingProxyType({}))
    aliases: tuple[str, ...] = ()

    @property
    def signature(self) -> str:
        """The name with its parameters and their defaults, e.g. ``rrf(k=60)``."""
        if not self.defaults:
            return self.name
        return f"{self.name}({','.join(f'{k}={v:g}' for k, v in self.defaults.items())})"


def _declare(*strategies: Strategy) -> Mapping[str, Strategy]:
    return MappingProxyType({s.name: s for s in strategies})


def _params(**defaults: float | int) -> Mapping[str, float | int]:
    return MappingProxyType(defaults)


REGISTRY: Mapping[str, Strategy] = _declare(
    Strategy("rrf", "static", "reciprocal rank fusion: sum over runs of 1 / (k + rank)",
             _params(k=60.0)),
    Strategy("combsum", "static", "sum over runs of the min-max normalised score (per run and "
             "topic, over the run's top k; 1 when all are equal)"),
    Strategy("combmnz", "static", "combsum times the number of runs that retrieved the document"),
    Strategy("borda", "static", "sum over runs of depth - rank + 1 points (0 when not retrieved)"),
    Strategy("rbp-sum", "static", "sum over runs of the rank-biased precision weight "
             "(1 - p) p^(rank - 1)", _params(p=0.8), aliases=("rbp",)),
    Strategy("rbp-max", "static", "the largest rank-biased precision weight over runs",
             _params(p=0.8)),
    Strategy("take", "static", "take@N round robin: round b takes ranks b*N+1 .. (b+1)*N of "
             "every run in run-name order; a document is placed at its first appearance",
             _params(n=1)),
    Strategy("docid", "static", "document id ascending: the baseline that ignores the runs"),
    Strategy("mtf", "adaptive", "Move-To-Front: stay on a run while it finds relevant "
             "documents (Cormack et al. 1998)", aliases=("move-to-front",)),
    Strategy("maxmean", "adaptive", "bandit: the run of highest posterior mean of relevance, "
             "Beta(alpha, beta) prior (Losada et al. 2016)", _params(alpha=1.0, beta=1.0),
             aliases=("mm",)),
    Strategy("thompson", "adaptive", "bandit: Thompson sampling over the runs, Beta(alpha, "
             "beta) prior (Losada et al. 2017)", _params(alpha=1.0, beta=1.0), aliases=("ts",)),
)
DEFAULT_STRATEGY = "rrf"
# name -> {parameter: default}: a view of REGISTRY.
STRATEGIES: dict[str, dict[str, float | int]] = {
    name: dict(s.defaults) for name, s in REGISTRY.items()}
_ALIASES = {alias: s.name for s in REGISTRY.values() for alias in s.aliases}
_SPEC = re.compile(r"^\s*([a-z][a-z0-9-]*)\s*(?:@\s*(\d+)|\((.*)\))?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class StrategySpec:
    """A strategy name with its explicitly given parameters (sorted by key)."""

    name: str
    params: tuple[tuple[str, float | int], ...] = ()

    def __str__(self) -> str:
        values = dict(self.params)
        if self.name == "take" and set(values) == {"n"}:
            return f"take@{values['n']}"
        if not self.params:
            return self.name
        return f"{self.name}({','.join(f'{k}={v!r}' for k, v in self.params)})"

    def kwargs(self) -> dict[str, float | int]:
        """Every parameter of the strategy: defaults overridden by the given ones."""
        return strategy_defaults(self.name, dict(self.params))


def strategy_defaults(name: str, params: Mapping[str, float | int]) -> dict[str, float | int]:
    """``params`` completed with the declared defaults of strategy ``name`` (a REGISTRY key)."""
    return {**REGISTRY[name].defaults, **params}


def parse_strategy(text: str) -> StrategySpec:
    """Parse ``name``, ``name(key=value,...)`` or ``take@N``; raises ValueError naming the fault."""
    match = _SPEC.match(text)
    if not match:
        raise ValueError(f"cannot parse strategy {text!r}")
    name = _ALIASES.get(match[1].lower(), match[1].lower())
    if name not in REGISTRY:
        raise ValueError(f"unknown strategy {match[1]!r}; known: {', '.join(REGISTRY)}")
    defaults = REGISTRY[name].defaults
    if match[2] is not None:
        if name != "take":
            raise ValueError(f"only take accepts @N, not {match[1]!r}")
        return StrategySpec(name, (("n", _value("n", match[2], defaults["n"])),))
    params: dict[str, float | int] = {}
    for item in filter(None, (part.strip() for part in (match[3] or "").split(","))):
        key, sep, raw = (s.strip() for s in item.partition("="))
        if not sep or key not in defaults:
            raise ValueError(f"{name} has no parameter {key!r}; it takes "
                             f"{', '.join(defaults) or 'none'}")
        params[key] = _value(key, raw, defaults[key])
    return StrategySpec(name, tuple(sorted(params.items())))


def _value(key: str, raw: str, default: float | int) -> float | int:
    try:
        return int(raw) if isinstance(default, int) else float(raw)
    except ValueError:
        kind = "an integer" if isinstance(default, int) else "a number"
        raise ValueError(f"parameter {key} must be {kind}, got {raw!r}") from None


def is_adaptive(spec: StrategySpec) -> bool:
    """Whether the strategy learns from judgments (and so cannot fix a budget in advance)."""
    declared = REGISTRY.get(spec.name)
    return declared is not None and declared.kind == "adaptive"


def make_policy(
    spec: StrategySpec | str, pool: Pool, *, seed: int = 0, rel: int = 1
) -> JudgingPolicy:
    """The judging policy for ``spec`` over ``pool``. Raises ValueError for bad parameters."""
    if isinstance(spec, str):
        spec = parse_strategy(spec)
    if not is_adaptive(spec):
        from pooling.policy import StaticPolicy
        from pooling.static_orders import static_order

        order = static_order(pool, spec.name, **spec.kwargs())
        return StaticPolicy(str(spec), pool, order, rel=rel)
    from pooling.adaptive import AdaptivePolicy

    policy = AdaptivePolicy(spec.name, pool, seed=seed, rel=rel, **spec.kwargs())
    policy.name = str(spec)
    return policy
