r"""The measure registry (ir_measures' names, trec_eval's as aliases).

A measure name follows :mod:`pooljudge.ground.grammar`: ``Name``, ``Name@cutoff``,
``Name(param=value,...)`` or both, e.g. ``P@10``, ``P(rel=2)@10``, ``SetF(beta=0.5)``,
``IPrec@0.3``. A value may be braced: a map
``nDCG(gains={1:3,2:9})@10`` (:class:`MapOf`) or a sequence ``IPrec11(levels={0.25,0.5})``
(:class:`SequenceOf`), canonical as sorted tuples so that a measure stays hashable.
:func:`parse` turns a name (or a trec_eval alias such as ``P_10``, ``ndcg_cut_10`` or ``map``)
into a :class:`Measure`, a hashable value whose ``str`` is the canonical name again:
``parse(str(m)) == m``. Parameters equal to their default are dropped, the others are printed in
the order the spec declares them.

Adding a measure (e.g. trec_eval's ``dcg`` as ``DCG@k`` in a new module ``metrics/dcg.py``)::

    from pooljudge.metrics.gains import GAINS_PARAM
    from pooljudge.metrics.registry import Spec, make, register, register_alias

    def dcg(ranking: Ranking, measure: Measure) -> np.ndarray:
        '''DCG@k = sum_{i<=k} gain_i / log2(i + 1); 0 when nothing was retrieved.'''
        ...  # one value per topic, vectorised over ranking's arrays

    register(Spec("DCG", dcg, "discounted cumulative gain", params=(GAINS_PARAM,),
                  cutoff="optional"))
    register_alias(r"dcg_cut_(?P<k>\d+)", lambda g: make("DCG", g["k"]), example="dcg_cut_10")

then add the module's name to ``MEASURE_MODULES`` in ``metrics/__init__.py`` so that it is
imported (and registers) with the package. A compute function receives the joined
:class:`pooljudge.metrics.join.Ranking` and the parsed measure, and returns a float array with one
value
per qrels topic; ``Spec.summary`` says how the topic values combine (mean, sum or geometric).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pooljudge.errors import InputError
from pooljudge.ground.grammar import NameSyntaxError, format_name, parse_name

if TYPE_CHECKING:
    import numpy as np
    from pooljudge.metrics.join import Ranking

__all__ = [
    "MapOf", "Measure", "Param", "SequenceOf", "Spec", "alias_examples", "make", "names", "parse",
    "register", "register_alias", "spec_of",
]

Summary = Literal["mean", "sum", "gmean"]


@dataclass(frozen=True)
class Param:
    """A measure parameter: name, type, default, a validity check on the value (with the rule
    it checks, said in errors) and a one-line description (the reference and
    ``pooljudge eval --list-measures`` print it)."""

    name: str
    kind: type | MapOf | SequenceOf
    default: Any
    valid: Callable[[Any], bool] = lambda value: True
    rule: str = ""
    description: str = ""


def _positive(value: float) -> bool:
    return value >= 1


def _number(kind: type, text: Any) -> Any:
    """``text`` as ``kind`` (int or float); an int must be integral, a float finite."""
    if isinstance(text, bool):
        raise ValueError(text)
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(text)
    if kind is int:
        if not number.is_integer():
            raise ValueError(text)
        return int(number)
    return number


def _braced(text: str) -> list[str]:
    """The comma-separated items of ``{a,b,...}`` (``{}`` has none)."""
    text = text.strip()
    if not (text.startswith("{") and text.endswith("}")):
        raise ValueError(text)
    inner = text[1:-1].strip()
    return [item.strip() for item in inner.split(",")] if inner else []


@dataclass(frozen=True)
class MapOf:
    """Param kind: a map ``{key:value,...}``, canonical as a tuple of (key, value) pairs sorted
    by key. Accepts the braced text, a mapping or an iterable of pairs; a key given twice is an
    error. ``key``/``value`` are int or float."""

    key: type = int
    value: type = float

    @property
    def __name__(self) -> str:  # named in error messages like int or float
        return f"a map {{{self.key.__name__}:{self.value.__name__},...}}"

    def __call__(self, given: Any) -> tuple[tuple[Any, Any], ...]:
        pairs: Sequence[Sequence[Any]]
        if isinstance(given, str):
            pairs = [item.split(":") for item in _braced(given)]
            if any(len(pair) != 2 for pair in pairs):
                raise ValueError(given)
        elif isinstance(given, Mapping):
            pairs = list(given.items())
        else:
            pairs = [tuple(pair) for pair in given]
        converted = [(_number(self.key, k), _number(self.value, v)) for k, v in pairs]
        if len({k for k, _ in converted}) != len(converted):
            raise ValueError(given)
        return tuple(sorted(converted))


@dataclass(frozen=True)
class SequenceOf:
    """Param kind: a sequence ``{a,b,...}`` of numbers, canonical as a sorted tuple (repeats kept).
    Accepts the braced text or an iterable of numbers."""

    item: type = float

    @property
    def __name__(self) -> str:
        return f"a sequence {{{self.item.__name__},...}}"

    def __call__(self, given: Any) -> tuple[Any, ...]:
        items = _braced(given) if isinstance(given, str) else list(given)
        return tuple(sorted(_number(self.item, item) for item in items))


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
        cutoff = None if self.cutoff is None else _format(self.cutoff)
        return format_name(self.name, ((k, _format(v)) for k, v in self.params), cutoff)

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

    @property
    def k(self) -> int:
        """The cutoff as a rank, for a measure whose cutoff is required (ValueError when it was
        given none)."""
        return int(self.required_cutoff)

    @property
    def required_cutoff(self) -> int | float:
        """The cutoff of a measure whose cutoff is required (ValueError when it was given none)."""
        if self.cutoff is None:
            raise ValueError(f"measure {self} has no cutoff")
        return self.cutoff


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


def make(name: str, cutoff: int | float | str | None = None, **params: Any) -> Measure:
    """A validated, canonical measure (``cutoff`` may be given as text, converted like a
    parameter). Raises InputError for a bad parameter or cutoff."""
    spec = _SPECS.get(name)
    if spec is None:
        raise InputError(_unknown(name))
    if cutoff is None and spec.cutoff == "required":
        raise InputError(f"measure {name} needs a cutoff, e.g. {name}@10")
    converted: int | float | None = None
    if cutoff is not None:
        if spec.cutoff == "none":
            raise InputError(f"measure {name} takes no cutoff")
        converted = _convert(name, "cutoff", spec.cutoff_kind, cutoff)
        if not spec.cutoff_valid(converted):
            raise InputError(f"measure {name}: cutoff {converted} is out of range")
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
            raise InputError(f"measure {name}: {param.name}={_format(value)} is invalid "
                             f"({param.rule})")
        if value != param.default:
            canonical.append((param.name, value))
    return Measure(name, tuple(canonical), converted)


def parse(text: str) -> Measure:
    """Parse ``P@10``, ``P(rel=2)@10``, ``SetF(beta=0.5)`` or a trec_eval alias like ``P_10``.

    Raises InputError for a malformed or unknown name; the message lists near names.
    """
    text = text.strip()
    try:
        parsed = parse_name(text, what="measure")
    except NameSyntaxError as exc:
        if exc.name in _SPECS:  # a measure's parameters at fault, not an alias
            raise
    else:
        if parsed.name in _SPECS:
            return make(parsed.name, parsed.cutoff, **dict(parsed.params))
    for pattern, build in _ALIASES:
        alias = pattern.match(text)
        if alias:
            return build(alias)
    raise InputError(_unknown(text))


def names() -> list[str]:
    """The registered measure names, sorted."""
    return sorted(_SPECS)


def alias_examples() -> tuple[str, ...]:
    """One example name per registered alias pattern (e.g. ``P_10``), in registration order."""
    return tuple(_EXAMPLES)


def _convert(name: str, what: str, kind: Any, value: Any) -> Any:
    try:
        if kind is int:
            return _number(int, value)
        return kind(value)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"measure {name}: {what} must be {kind.__name__}, got {value!r}") from None


def _format(value: Any) -> str:
    """A value as the grammar writes it: floats round-trip (``repr``), tuples are braced, with
    integral floats inside braces written as integers (``{1:3,2:4.5}``)."""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, tuple):
        items = (f"{_brief(item[0])}:{_brief(item[1])}" if isinstance(item, tuple)
                 else _brief(item) for item in value)
        return "{" + ",".join(items) + "}"
    return str(value)


def _brief(number: Any) -> str:
    if isinstance(number, float) and number.is_integer() and abs(number) < 2**53:
        return str(int(number))
    return repr(number)


def _unknown(text: str) -> str:
    candidates = [*_SPECS, *_EXAMPLES]
    try:
        base = parse_name(text).name
    except NameSyntaxError as exc:
        base = exc.name or text
    import difflib  # only for a misspelt name

    near = difflib.get_close_matches(base, candidates, n=5, cutoff=0.5)
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    return f"unknown measure {text!r}{hint} (known: {', '.join(names())})"
