"""The measures as text, from the registry: ``pooljudge eval --list-measures [NAME]`` prints it
and the manual's generated reference page (Reference > Measures) shows the same entries, so
neither can drift from the code.

An entry::

    nDCG[@k] — normalised discounted cumulative gain
      cutoff: optional (an integer)
      gains = {} (a map {int:float,...}): the gain of each listed label; ...
      summary over topics: mean
      trec_eval names: ndcg, ndcg_cut_10

The trec_eval names are the registered aliases' examples that parse to the measure.
"""

from __future__ import annotations

from pooljudge.metrics import registry
from pooljudge.metrics.registry import Spec

from pooljudge.errors import InputError

__all__ = ["catalogue", "describe", "measure_name"]

_SUMMARY = {"mean": "mean", "sum": "sum", "gmean": "geometric mean"}


def _signature(spec: Spec) -> str:
    """``P@k``, ``nDCG[@k]``, ``Bpref``: the name with its cutoff."""
    return spec.name + {"none": "", "optional": "[@k]", "required": "@k"}[spec.cutoff]


def _kind(kind: object) -> str:
    return "an integer" if kind is int else "a number" if kind is float else str(
        getattr(kind, "__name__", kind))


def _aliases() -> dict[str, list[str]]:
    """Measure name -> the trec_eval example names that parse to it."""
    found: dict[str, list[str]] = {}
    for example in registry.alias_examples():
        found.setdefault(registry.parse(example).name, []).append(example)
    return found


def describe(name: str, aliases: dict[str, list[str]] | None = None) -> str:
    """The entry of one registered measure (``name`` exactly as registered)."""
    spec = registry.spec_of(registry.Measure(name))
    lines = [f"{_signature(spec)} — {spec.description}"]
    if spec.cutoff != "none":
        lines.append(f"  cutoff: {spec.cutoff} ({_kind(spec.cutoff_kind)})")
    for param in spec.params:
        default = str(registry.Measure(name, ((param.name, param.default),)))
        written = default[len(name) + 1:-1] if "(" in default else f"{param.name}="
        lines.append(f"  {written.replace('=', ' = ', 1)} ({_kind(param.kind)}): "
                     f"{param.description}")
    lines.append(f"  summary over topics: {_SUMMARY[spec.summary]}")
    known = (aliases if aliases is not None else _aliases()).get(name)
    if known:
        lines.append(f"  trec_eval names: {', '.join(known)}")
    return "\n".join(lines)


def measure_name(text: str) -> str:
    """The registered name ``text`` stands for: a name, a measure (``P@10``) or an alias
    (``P_10``). InputError, with near names, for anything else."""
    if text.strip() in registry.names():
        return text.strip()
    return registry.parse(text).name


def catalogue(name: str | None = None) -> str:
    """Every measure's entry, blank-line separated, or only ``name``'s (see measure_name)."""
    aliases = _aliases()
    if name is not None:
        try:
            return describe(measure_name(name), aliases)
        except InputError as exc:
            raise InputError(f"--list-measures: {exc}") from None
    return "\n\n".join(describe(each, aliases) for each in registry.names())
