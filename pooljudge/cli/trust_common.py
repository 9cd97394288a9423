"""Helpers shared by ``bias``, ``correlate``, ``compare``, ``report`` (and eval's topic groups):
measure and ``--compat`` options, reading runs once, and table / tsv / json output of a
DataFrame."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pooljudge.errors import InputError, UsageError
from pooljudge.fileio import atomic_writer, progress

if TYPE_CHECKING:  # importing pandas costs ~0.5 s, and eval (which shares --compat) needs none
    import pandas as pd

    from pooljudge.trec import RunColumns

__all__ = ["add_compat_option", "add_format_option", "add_measure_option", "emit", "group_text",
           "measures_from", "read_runs", "records", "render", "warn"]


MEASURE_HELP = ("measure name such as AP, P@10, nDCG@10, RBP(p=0.8); repeat the option or "
                "separate names by blanks")
Defaults = Sequence[str] | Callable[[], Sequence[str]]


class _MeasureAction(argparse._AppendAction):
    """``-m/--measure``, whose help names defaults that may be looked up only when it is shown
    (the help of another command then does not load the module declaring them)."""

    def __init__(self, *args, defaults: Defaults, **kwargs) -> None:
        self.defaults = defaults
        super().__init__(*args, **kwargs)

    @property
    def help(self) -> str:
        return f"{MEASURE_HELP} (default: {' '.join(_resolve(self.defaults))})"

    @help.setter
    def help(self, value: str | None) -> None:
        """The help is computed; argparse's own assignment is ignored."""


def _resolve(defaults: Defaults) -> tuple[str, ...]:
    return tuple(defaults() if callable(defaults) else defaults)


def add_measure_option(parser: argparse.ArgumentParser, default: Defaults) -> None:
    """``-m/--measure`` (repeatable, or blank-separated names), defaulting to ``default``: names,
    or a function returning them, called when the defaults are needed (help, or no -m)."""
    parser.add_argument("-m", "--measure", action=_MeasureAction, metavar="MEASURE",
                        dest="measures", defaults=default)
    parser.set_defaults(default_measures=default)


def add_compat_option(parser: argparse.ArgumentParser) -> None:
    """``--compat 9|10``: the trec_eval release whose numbers are reproduced (``args.compat``,
    default "10"; see :mod:`metrics.compat`)."""
    # metrics.compat.COMPATS, written out: importing metrics here would load numpy at start-up
    parser.add_argument("--compat", choices=("9", "10"), default="10",
                        help="10 (default): trec_eval 10.0 numbers; 9: trec_eval 9.0.8 / "
                             "pytrec_eval (single-precision scores, (long)(x*R + 0.9) "
                             "interpolated-precision cutoffs, unj_k without negative labels)")


def add_format_option(parser: argparse.ArgumentParser) -> None:
    """``--format table|tsv|json`` and ``-o/--output FILE``."""
    parser.add_argument("--format", choices=("table", "tsv", "json"), default="table",
                        help="table (default, for reading), tsv (header + full precision) or json")
    parser.add_argument("-o", "--output", default="-", metavar="FILE",
                        help="write here instead of standard output (atomically)")


def measures_from(args: argparse.Namespace) -> list[str]:
    """The canonical names of the measures asked for; UsageError for an unknown one."""
    from metrics.evaluate import parse_all

    given = args.measures or _resolve(args.default_measures)
    names = [n for text in given for n in text.split()]
    try:
        return [str(m) for m in parse_all(names)]
    except InputError as exc:
        raise UsageError(f"-m/--measure: {exc}") from None


def read_runs(paths: Sequence[str]) -> dict[str, RunColumns]:
    """Read and check every run file once (name = file name without folder and ``.gz``)."""
    from metrics.evaluate import load_runs

    return dict(progress(load_runs(list(paths)), total=len(paths), desc="runs", unit="run"))


def render(frame: pd.DataFrame, fmt: str) -> str:
    """``table``: aligned, 4 decimals; ``tsv``: header and full float precision; ``json``: a list
    of records (NaN becomes null)."""
    if fmt == "tsv":
        lines = ["\t".join(map(str, frame.columns))]
        lines += ["\t".join(_tsv_cell(v) for v in row)
                  for row in frame.itertuples(index=False, name=None)]
        return "\n".join(lines) + "\n"
    if fmt == "json":
        return json.dumps(records(frame), indent=1, ensure_ascii=False) + "\n"
    if frame.empty:
        return "(none)\n"
    return frame.to_string(index=False, float_format=_short, na_rep="–") + "\n"


def records(frame: pd.DataFrame) -> list[dict]:
    """The rows as JSON-ready dicts: numpy scalars become Python ones, NaN becomes None."""
    return [{str(k): _json_value(v) for k, v in zip(frame.columns, row, strict=True)}
            for row in frame.itertuples(index=False, name=None)]


def group_text(command: str, results: Sequence, groups: pd.DataFrame, fmt: str) -> str:
    """Means per topic group of scored runs (``run group measure topics value``), rendered;
    warnings about ungrouped or unevaluated topics go to standard error."""
    from metrics.evaluate import tidy
    from metrics.groups import group_means

    table, warnings = group_means(tidy(results, per_topic=True), groups)
    for message in warnings:
        warn(command, message)
    return render(table, fmt)


def emit(text: str, output: str) -> None:
    """Write ``text`` to ``output`` (``-`` = standard output) atomically."""
    with atomic_writer(output) as handle:
        handle.write(text)


def warn(command: str, message: str) -> None:
    print(f"pooljudge {command}: warning: {message}", file=sys.stderr)


def _short(value: float) -> str:
    """4 decimals; tiny non-zero values (p-values) in scientific notation instead of 0.0000."""
    return f"{value:.2e}" if value != 0 and abs(value) < 5e-4 else f"{value:.4f}"


def _tsv_cell(value: object) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    if hasattr(value, "item"):
        return _tsv_cell(value.item())
    return str(value)


def _json_value(value: object) -> object:
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value
