"""Strategy names: one grammar, one registry, one factory for judging policies.

A strategy is written ``name`` or ``name(key=value, ...)``, e.g. ``rrf``, ``rrf(k=20)``,
``rbp-sum(p=0.9)``, ``thompson(alpha=0.5,beta=2)``; ``take@N`` is short for ``take(n=N)``.
``str(parse_strategy(s))`` is canonical (parameters sorted, ``take@N``) and
``parse_strategy(str(spec)) == spec``. Parameters left out take the defaults listed in
STRATEGIES; the random seed of adaptive policies is given to :func:`make_policy`, not in the name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pooling.adaptive import ADAPTIVE_WALKS, AdaptivePolicy
from pooling.policy import JudgingPolicy, StaticPolicy
from pooling.pool import Pool
from pooling.static_orders import STATIC_ORDERS, static_order

__all__ = ["STRATEGIES", "StrategySpec", "is_adaptive", "make_policy", "parse_strategy"]

# name -> {parameter: default}; integer defaults mean the parameter must be an integer.
STRATEGIES: dict[str, dict[str, float | int]] = {
    "rrf": {"k": 60.0},
    "combsum": {},
    "combmnz": {},
    "borda": {},
    "rbp-sum": {"p": 0.8},
    "rbp-max": {"p": 0.8},
    "take": {"n": 1},
    "docid": {},
    "mtf": {},
    "maxmean": {"alpha": 1.0, "beta": 1.0},
    "thompson": {"alpha": 1.0, "beta": 1.0},
}
_ALIASES = {"rbp": "rbp-sum", "mm": "maxmean", "ts": "thompson", "move-to-front": "mtf"}
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
        return {**STRATEGIES[self.name], **dict(self.params)}


def parse_strategy(text: str) -> StrategySpec:
    """Parse ``name``, ``name(key=value,...)`` or ``take@N``; raises ValueError naming the fault."""
    match = _SPEC.match(text)
    if not match:
        raise ValueError(f"cannot parse strategy {text!r}")
    name = _ALIASES.get(match[1].lower(), match[1].lower())
    if name not in STRATEGIES:
        raise ValueError(f"unknown strategy {match[1]!r}; known: {', '.join(STRATEGIES)}")
    if match[2] is not None:
        if name != "take":
            raise ValueError(f"only take accepts @N, not {match[1]!r}")
        return StrategySpec(name, (("n", _value("n", match[2], 1)),))
    params: dict[str, float | int] = {}
    for item in filter(None, (part.strip() for part in (match[3] or "").split(","))):
        key, sep, raw = (s.strip() for s in item.partition("="))
        if not sep or key not in STRATEGIES[name]:
            raise ValueError(f"{name} has no parameter {key!r}; it takes "
                             f"{', '.join(STRATEGIES[name]) or 'none'}")
        params[key] = _value(key, raw, STRATEGIES[name][key])
    return StrategySpec(name, tuple(sorted(params.items())))


def _value(key: str, raw: str, default: float | int) -> float | int:
    try:
        return int(raw) if isinstance(default, int) else float(raw)
    except ValueError:
        kind = "an integer" if isinstance(default, int) else "a number"
        raise ValueError(f"parameter {key} must be {kind}, got {raw!r}") from None


def is_adaptive(spec: StrategySpec) -> bool:
    """Whether the strategy learns from judgments (and so cannot fix a budget in advance)."""
    return spec.name in ADAPTIVE_WALKS


def make_policy(
    spec: StrategySpec | str, pool: Pool, *, seed: int = 0, rel: int = 1
) -> JudgingPolicy:
    """The judging policy for ``spec`` over ``pool``. Raises ValueError for bad parameters."""
    if isinstance(spec, str):
        spec = parse_strategy(spec)
    if spec.name in STATIC_ORDERS:
        order = static_order(pool, spec.name, **spec.kwargs())
        return StaticPolicy(str(spec), pool, order, rel=rel)
    policy = AdaptivePolicy(spec.name, pool, seed=seed, rel=rel, **spec.kwargs())
    policy.name = str(spec)
    return policy
