"""The light declarations (strategy and consensus-policy names, help texts, defaults) agree with
the implementations loaded lazily, load nothing heavy themselves, and feed the command line."""

from __future__ import annotations

import importlib
import inspect
import sys

import pytest
from pooljudge.annotate.consensus import DECIDERS
from pooljudge.annotate.consensus_policies import (
    DEFAULT_POLICY,
    DEFAULT_TIES,
    POLICIES,
    POLICY_NAMES,
    TIES,
    Policy,
)
from pooljudge.pooling.orders import ADAPTIVE_ORDERS, JUDGING_ORDERS
from pooljudge.pooling.strategies import DEFAULT_STRATEGY, REGISTRY, parse_strategy

from pooljudge import pooling
from pooljudge.cli.simulate_pools import DEFAULT_SIMULATE
from tests.support.fresh import python_output

IMPLEMENTATIONS = {"static": "pooljudge.pooling.static_orders",
                   "adaptive": "pooljudge.pooling.adaptive"}
NOT_ORDERS = {"order_within_topics", "static_order"}
LIGHT_MODULES = ("pooljudge.pooling", "pooljudge.pooling.strategies", "pooljudge.pooling.orders",
                 "pooljudge.ground.grammar",
                 "pooljudge.annotate.consensus_policies", "pooljudge.annotate.records")


@pytest.mark.parametrize("kind", sorted(IMPLEMENTATIONS))
def test_every_declared_strategy_has_an_implementation_and_no_other(kind: str) -> None:
    """Each declaration names its own function of its kind's module; every public function of
    that module over a pool (static) or arms (adaptive) is declared."""
    module = importlib.import_module(IMPLEMENTATIONS[kind])
    declared = [s.load() for s in REGISTRY.values() if s.kind == kind]
    assert all(f.__module__ == module.__name__ for f in declared)
    assert len(set(declared)) == len(declared)
    kernels = {f for name, f in vars(module).items() if inspect.isfunction(f)
               and f.__module__ == module.__name__ and not name.startswith("_")
               and name not in NOT_ORDERS
               and next(iter(inspect.signature(f).parameters)) in ("pool", "arms")}
    assert kernels == set(declared)


@pytest.mark.parametrize("name", list(REGISTRY))
def test_implementations_take_exactly_the_declared_parameters_without_defaults(name) -> None:
    """Keyword-only, annotated with the declared default's type, and no default of their own:
    defaults are written once, in the registry."""
    strategy = REGISTRY[name]
    function = strategy.load()
    keywords = {p.name: p for p in inspect.signature(function).parameters.values()
                if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert list(keywords) == list(strategy.defaults)
    for key, default in strategy.defaults.items():
        assert keywords[key].default is inspect.Parameter.empty
        assert keywords[key].annotation == type(default).__name__


def test_names_aliases_and_the_defaults_view_agree() -> None:
    aliases = [alias for s in REGISTRY.values() for alias in s.aliases]
    assert len(set(aliases)) == len(aliases) and not set(aliases) & set(REGISTRY)
    assert all(parse_strategy(alias).name == s.name
               for s in REGISTRY.values() for alias in s.aliases)
    assert all(p.valid(p.default) for s in REGISTRY.values() for p in s.params)
    assert all(s.help and s.help == s.help.strip() for s in REGISTRY.values())


@pytest.mark.parametrize("text", [*(s.signature for s in REGISTRY.values()), DEFAULT_STRATEGY,
                                  *DEFAULT_SIMULATE])
def test_strategies_shown_by_the_help_parse_to_their_defaults(text: str) -> None:
    spec = parse_strategy(text)
    if text == REGISTRY[spec.name].signature:
        assert dict(spec.params) == dict(REGISTRY[spec.name].defaults)


def test_the_campaign_adaptive_orders_are_the_adaptive_strategies() -> None:
    assert set(ADAPTIVE_ORDERS) == {n for n, s in REGISTRY.items() if s.kind == "adaptive"}
    assert not set(JUDGING_ORDERS) & {*REGISTRY, *(a for s in REGISTRY.values() for a in s.aliases)}


def test_every_declared_consensus_policy_has_a_decider_and_no_other() -> None:
    assert set(POLICY_NAMES) == set(DECIDERS)
    assert DEFAULT_POLICY in POLICY_NAMES and DEFAULT_TIES in TIES
    assert Policy() == Policy.parse(DEFAULT_POLICY)


@pytest.mark.parametrize("written", POLICIES)
def test_every_policy_shown_by_the_help_parses_and_prints_back(written: str) -> None:
    text = written.replace("NAME", "alice")
    policy = Policy.parse(text)
    assert str(policy) == text and policy.name in POLICY_NAMES


def test_the_light_modules_load_no_array_library() -> None:
    code = (f"import importlib, sys\nfor m in {LIGHT_MODULES!r}: importlib.import_module(m)\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'numpy', 'pandas', 'pyarrow', 'sqlalchemy'}"
            " | {m for m in sys.modules if m.startswith('pooljudge.metrics')}))")
    done = python_output(code)
    assert done.strip() == "[]"


def test_the_pooling_package_exports_every_name_lazily() -> None:
    assert sorted(pooling.__all__) == sorted(pooling._EXPORTS)
    for name in pooling.__all__:
        assert getattr(pooling, name) is getattr(
            sys.modules[f"pooljudge.pooling.{pooling._EXPORTS[name]}"], name)


def test_pooling_simulate_stays_the_function_when_its_module_is_imported_first() -> None:
    code = ("import pooljudge.pooling.simulate\nfrom pooljudge.pooling import simulate\n"
            "from pooljudge import pooling\n"
            "print(callable(simulate), pooljudge.pooling.simulate is simulate, "
            "type(simulate).__name__)")
    done = python_output(code)
    assert done.split() == ["True", "True", "function"]
