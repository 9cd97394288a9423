"""Judging strategies: the one registry of names, help texts, defaults and implementations.

Each :class:`Strategy` of :data:`REGISTRY` is the whole declaration of a judging order: its name,
kind, help text, parameters (default and valid range), aliases, and where its implementation
lives (``"module:function"``, imported by :meth:`Strategy.load` when a policy is made). A static
implementation is ``f(pool, **params) -> fused score`` (:mod:`pooljudge.pooling.static_orders`), an
adaptive one a walk ``f(arms, oracle, rng, **params)`` (:mod:`pooljudge.pooling.adaptive`); both
take
exactly the declared parameters as keyword-only arguments, without defaults of their own.
This module is light (no numpy, no pandas): help texts and name checks load no implementation.

A strategy is written in :mod:`pooljudge.ground.grammar`: ``name`` or ``name(key=value,...)``, e.g.
``rrf``, ``rrf(k=20)``, ``rbp-sum(p=0.9)``, ``thompson(alpha=0.5,beta=2)``; ``take@N`` is short
for ``take(n=N)`` (no other strategy takes ``@N``). ``str(parse_strategy(s))`` is canonical
(parameters sorted, ``take@N``) and ``parse_strategy(str(spec)) == spec``. Parameters left out
take the declared defaults; the random seed of adaptive policies is given to
:func:`pooljudge.pooling.factory.make_policy`,
not in the name. Every fault is an InputError naming it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from os import PathLike
from types import MappingProxyType
from typing import Any, Literal

from pooljudge.errors import InputError
from pooljudge.ground.grammar import format_name, parse_name

__all__ = [
    "DEFAULT_STRATEGY",
    "REGISTRY",
    "Param",
    "Strategy",
    "StrategySpec",
    "is_adaptive",
    "parse_strategy",
    "strategies",
]

Kind = Literal["static", "adaptive"]
Number = float | int


@dataclass(frozen=True)
class Param:
    """A strategy parameter: its default (an int default means the value must be an integer),
    its valid range, as a test and the rule it checks (e.g. ``k >= 0``), and a one-line
    description (the manual's strategy reference prints it)."""

    name: str
    default: Number
    valid: Callable[[Number], bool]
    rule: str
    description: str = ""


@dataclass(frozen=True)
class Strategy:
    """A judging strategy as declared: ``static`` orders are fixed before any judgment,
    ``adaptive`` ones learn from the judgments. ``implementation`` is ``"module:function"``."""

    name: str
    kind: Kind
    help: str
    implementation: str
    params: tuple[Param, ...] = ()
    aliases: tuple[str, ...] = ()

    @property
    def defaults(self) -> Mapping[str, Number]:
        """Parameter name -> default, in declaration order."""
        return MappingProxyType({p.name: p.default for p in self.params})

    @property
    def signature(self) -> str:
        """The name with its parameters and their defaults, e.g. ``rrf(k=60)``."""
        return format_name(self.name, ((p.name, f"{p.default:g}") for p in self.params))

    def load(self) -> Callable[..., Any]:
        """The implementation, imported on first use."""
        module, _, function = self.implementation.partition(":")
        return getattr(importlib.import_module(module), function)

    def param(self, key: str, *, source: str | PathLike[str] | None = None) -> Param:
        """The declared parameter ``key``; InputError naming the ones the strategy takes."""
        for param in self.params:
            if param.name == key:
                return param
        raise InputError(f"{self.name} has no parameter {key!r}; it takes "
                         f"{', '.join(self.defaults) or 'none'}", path=source)

    def arguments(self, given: Mapping[str, Number], *,
                  source: str | PathLike[str] | None = None) -> dict[str, Number]:
        """``given`` completed with the defaults; InputError for an unknown or invalid one."""
        for key, value in given.items():
            param = self.param(key, source=source)
            if not param.valid(value):
                raise InputError(f"{self.name} needs {param.rule}, got {value}", path=source)
        return {**self.defaults, **given}


def _declare(*declared: Strategy) -> Mapping[str, Strategy]:
    return MappingProxyType({s.name: s for s in declared})


_STATIC, _ADAPTIVE = "pooljudge.pooling.static_orders:", "pooljudge.pooling.adaptive:"
_P = Param("p", 0.8, lambda p: 0 < p < 1, "0 < p < 1",
           "the persistence: the chance of reading on to the next rank")
_BETA_PRIOR = (Param("alpha", 1.0, lambda a: a > 0, "alpha > 0",
                     "the prior's count of relevant documents per run"),
               Param("beta", 1.0, lambda b: b > 0, "beta > 0",
                     "the prior's count of non-relevant documents per run"))

REGISTRY: Mapping[str, Strategy] = _declare(
    Strategy("rrf", "static", "reciprocal rank fusion: sum over runs of 1 / (k + rank)",
             _STATIC + "rrf", (Param("k", 60.0, lambda k: k >= 0, "k >= 0",
                                         "added to every rank: larger k flattens the fusion"),)),
    Strategy("combsum", "static", "sum over runs of the min-max normalised score (per run and "
             "topic, over the run's top k; 1 when all are equal)", _STATIC + "combsum"),
    Strategy("combmnz", "static", "combsum times the number of runs that retrieved the document",
             _STATIC + "combmnz"),
    Strategy("borda", "static", "sum over runs of depth - rank + 1 points (0 when not retrieved)",
             _STATIC + "borda"),
    Strategy("rbp-sum", "static", "sum over runs of the rank-biased precision weight "
             "(1 - p) p^(rank - 1)", _STATIC + "rbp_sum", (_P,), aliases=("rbp",)),
    Strategy("rbp-max", "static", "the largest rank-biased precision weight over runs",
             _STATIC + "rbp_max", (_P,)),
    Strategy("take", "static", "take@N round robin: round b takes ranks b*N+1 .. (b+1)*N of "
             "every run in run-name order; a document is placed at its first appearance",
             _STATIC + "take", (Param("n", 1, lambda n: n >= 1, "n >= 1",
                                         "ranks taken from each run per round"),)),
    Strategy("docid", "static", "document id ascending: the baseline that ignores the runs",
             _STATIC + "docid"),
    Strategy("mtf", "adaptive", "Move-To-Front: stay on a run while it finds relevant "
             "documents (Cormack et al. 1998)", _ADAPTIVE + "walk_mtf",
             aliases=("move-to-front",)),
    Strategy("maxmean", "adaptive", "bandit: the run of highest posterior mean of relevance, "
             "Beta(alpha, beta) prior (Losada et al. 2016)", _ADAPTIVE + "walk_maxmean",
             _BETA_PRIOR, aliases=("mm",)),
    Strategy("thompson", "adaptive", "bandit: Thompson sampling over the runs, Beta(alpha, "
             "beta) prior (Losada et al. 2017)", _ADAPTIVE + "walk_thompson", _BETA_PRIOR,
             aliases=("ts",)),
)
DEFAULT_STRATEGY = "rrf"
_ALIASES = {alias: s.name for s in REGISTRY.values() for alias in s.aliases}


def strategies(kind: Kind) -> tuple[Strategy, ...]:
    """The declared strategies of one kind, in declaration order."""
    return tuple(s for s in REGISTRY.values() if s.kind == kind)


@dataclass(frozen=True)
class StrategySpec:
    """A strategy name with its explicitly given parameters (sorted by key)."""

    name: str
    params: tuple[tuple[str, Number], ...] = ()

    def __str__(self) -> str:
        values = dict(self.params)
        if self.name == "take" and set(values) == {"n"}:
            return format_name("take", cutoff=str(values["n"]))
        return format_name(self.name, ((k, repr(v)) for k, v in self.params))


def parse_strategy(text: str, *, source: str | PathLike[str] | None = None) -> StrategySpec:
    """Parse ``name``, ``name(key=value,...)`` or ``take@N`` (any case; aliases resolved).

    Raises InputError naming the fault (``source``, e.g. an option, is named first): a text of
    another shape, an unknown name or parameter, a value of the wrong type or out of range.
    """
    parsed = parse_name(text, what="strategy", source=source)
    if parsed.cutoff is not None and (parsed.params or not parsed.cutoff.isdigit()):
        raise InputError(f"cannot parse strategy {text.strip()!r}", path=source)
    name = _ALIASES.get(parsed.name.lower(), parsed.name.lower())
    if name not in REGISTRY:
        raise InputError(f"unknown strategy {parsed.name!r}; known: {', '.join(REGISTRY)}",
                         path=source)
    strategy = REGISTRY[name]
    raw = parsed.params
    if parsed.cutoff is not None:
        if name != "take":
            raise InputError(f"only take accepts @N, not {parsed.name!r}", path=source)
        raw = (("n", parsed.cutoff),)
    params = {key: _value(strategy, key, value, source) for key, value in raw}
    strategy.arguments(params, source=source)
    return StrategySpec(name, tuple(sorted(params.items())))


def _value(strategy: Strategy, key: str, raw: str,
           source: str | PathLike[str] | None) -> Number:
    """``raw`` as the type of the parameter's default; InputError for another text."""
    default = strategy.param(key, source=source).default
    try:
        return int(raw) if isinstance(default, int) else float(raw)
    except ValueError:
        kind = "an integer" if isinstance(default, int) else "a number"
        raise InputError(f"parameter {key} must be {kind}, got {raw!r}", path=source) from None


def is_adaptive(spec: StrategySpec) -> bool:
    """Whether the strategy learns from judgments (and so cannot fix a budget in advance)."""
    declared = REGISTRY.get(spec.name)
    return declared is not None and declared.kind == "adaptive"
