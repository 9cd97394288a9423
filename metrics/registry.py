"""The measure registry and the name grammar (ir_measures' names, trec_eval's as aliases).

A measure name is ``Name``, ``Name@cutoff``, ``Name(param=value,...)`` or both, e.g. ``P@10``,
``P(rel=2)@10``, ``SetF(beta=0.5)``, ``IPrec@0.3``. :func:`parse` turns a name (or a trec_eval
alias such as ``P_10``, ``ndcg_cut_10`` or ``map``) into a :class:`Measure`, a hashable value
whose ``str`` is the canonical name again: ``parse(str(m)) == m``. Parameters equal to their
default are dropped, the others are printed in the order the spec declares them.

Adding a measure (e.g. ``RBP(p=0.8)`` in a new module ``metrics/rbp.py``)::

    from metrics.registry import Param, Spec, register, register_alias

    def rbp(ranking: Ranking, measure: Measure) -> np.ndarray:
        '''RBP = (1 - p) * sum_i rel_i * p^(i-1); 0 when nothing was retrieved.'''
        ...  # one value per topic, vectorised over ranking's arrays

    register(Spec("RBP", rbp, "rank-biased precision",
                  params=(Param("p", float, 0.8, lambda v: 0 < v < 1), Param("rel", int, 1)),
                  cutoff="optional"))
    register_alias(r"rbp_(?P<p>[0-9.]+)", lambda g: make("RBP", p=g["p"]), example="rbp_0.8")

then add the module's name to ``MEASURE_MODULES`` in ``metrics/__init__.py`` so that it is
imported (and registers) with the package. A compute function receives the joined
:class:`metrics.join.Ranking` and the parsed measure, and returns a float array with one value
per qrels topic; ``Spec.summary`` says how the topic values combine (mean, sum or geometric).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pooljudge.errors import InputError

if TYPE_CHECKING:
    import numpy as np

    from metrics.join import Ranking

__all__ = [
    "Measure", "Param", "Spec", "make", "names", "parse", "register", "register_alias", "spec_of",
]

Summary = Literal["mean", "sum", "gmean"]
_NAME = re.compile(
    r"^(?P<name>[A-Za-z][A-Za-z0-9_]*)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>.+))?$"
)


@dataclass(frozen=True)
class Param:
    """A measure parameter: name, type, default and a validity check on the value."""

    name: str
    kind: type
    default: Any
    valid: Callable[[Any], bool] = lambda value: True
    rule: str = ""


def _positive(value: float) -> bool:
    return value >= 1


@dataclass(frozen=True)
class Spec:
    """A registered measure: its name, compute function, parameters, cutoff and summary."""

    name: str
    compute: Callable[[Ranking, Measure], np.ndarray]
    description: str
    params: tuple[Param, ...] = ()
    cutoff: Literal["none", "optional", "required"] = "none"
    cutoff_kind: type = int
    cutoff_valid: Callable[[Any], bool] = _positive
    summary: Summary = "mean"


@dataclass(frozen=True)
class Measure:
    """A measure with its parameters; build with :func:`parse` or :func:`make`."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    cutoff: int | float | None = None

    def __str__(self) -> str:
        text = self.name
        if self.params:
            text += "(" + ",".join(f"{k}={_format(v)}" for k, v in self.params) + ")"
        if self.cutoff is not None:
            text += f"@{_format(self.cutoff)}"
        return text

    def __getitem__(self, key: str) -> Any:
        """A parameter's value, its default when it was not given."""
        given = dict(self.params)
        if key in given:
            return given[key]
        for param in spec_of(self).params:
            if param.name == key:
                return param.default
        raise KeyError(f"{self.name} has no parameter {key!r}")

    @property
    def spec(self) -> Spec:
        return spec_of(self)


_SPECS: dict[str, Spec] = {}
_ALIASES: list[tuple[re.Pattern[str], Callable[[re.Match[str]], Measure]]] = []
_EXAMPLES: list[str] = []


def register(spec: Spec) -> Spec:
    """Add a measure to the registry (its name must be new)."""
    if spec.name in _SPECS:
        raise ValueError(f"measure {spec.name} is already registered")
    _SPECS[spec.name] = spec
    return spec


def register_alias(
    pattern: str, build: Callable[[re.Match[str]], Measure], *, example: str
) -> None:
    """Accept names matching ``pattern`` (whole string) as ``build(match)``, e.g. trec_eval's.

    ``example`` (e.g. ``P_10``) is offered as a suggestion when an unknown name is close to it.
    """
    _ALIASES.append((re.compile(f"^(?:{pattern})$"), build))
    _EXAMPLES.append(example)


def spec_of(measure: Measure) -> Spec:
    return _SPECS[measure.name]


def make(name: str, cutoff: int | float | None = None, **params: Any) -> Measure:
    """A validated, canonical measure. Raises InputError for a bad parameter or cutoff."""
    spec = _SPECS.get(name)
    if spec is None:
        raise InputError(_unknown(name))
    if cutoff is None and spec.cutoff == "required":
        raise InputError(f"measure {name} needs a cutoff, e.g. {name}@10")
    if cutoff is not None:
        if spec.cutoff == "none":
            raise InputError(f"measure {name} takes no cutoff")
        cutoff = _convert(name, "cutoff", spec.cutoff_kind, cutoff)
        if not spec.cutoff_valid(cutoff):
            raise InputError(f"measure {name}: cutoff {cutoff} is out of range")
    declared = {p.name: p for p in spec.params}
    unknown = sorted(set(params) - set(declared))
    if unknown:
        raise InputError(f"measure {name} has no parameter {', '.join(unknown)} "
                         f"(it takes: {', '.join(declared) or 'none'})")
    canonical = []
    for param in spec.params:
        if param.name not in params:
            continue
        value = _convert(name, param.name, param.kind, params[param.name])
        if not param.valid(value):
            raise InputError(f"measure {name}: {param.name}={value} is invalid ({param.rule})")
        if value != param.default:
            canonical.append((param.name, value))
    return Measure(name, tuple(canonical), cutoff)


def parse(text: str) -> Measure:
    """Parse ``P@10``, ``P(rel=2)@10``, ``SetF(beta=0.5)`` or a trec_eval alias like ``P_10``.

    Raises InputError for a malformed or unknown name; the message lists near names.
    """
    text = text.strip()
    match = _NAME.match(text)
    if match and match["name"] in _SPECS:
        params = _split_params(text, match["params"])
        cutoff = match["cutoff"]
        return make(match["name"], cutoff, **params)
    for pattern, build in _ALIASES:
        alias = pattern.match(text)
        if alias:
            return build(alias)
    raise InputError(_unknown(text))


def names() -> list[str]:
    """The registered measure names, sorted."""
    return sorted(_SPECS)


def _split_params(text: str, raw: str | None) -> dict[str, str]:
    params: dict[str, str] = {}
    if not raw:
        return params
    for item in raw.split(","):
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise InputError(f"measure {text}: parameters are written name=value, got {item!r}")
        params[key.strip()] = value.strip()
    return params


def _convert(name: str, what: str, kind: type, value: Any) -> Any:
    try:
        if kind is int:
            number = float(value)
            if not number.is_integer():
                raise ValueError
            return int(number)
        return kind(value)
    except (TypeError, ValueError):
        raise InputError(f"measure {name}: {what} must be {kind.__name__}, got {value!r}") from None


def _format(value: Any) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def _unknown(text: str) -> str:
    candidates = [*_SPECS, *_EXAMPLES]
    base = _NAME.match(text)
    near = difflib.get_close_matches(base["name"] if base else text, candidates, n=5, cutoff=0.5)
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    return f"unknown measure {text!r}{hint} (known: {', '.join(names())})"
