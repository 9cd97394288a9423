"""How much each run returned: ``NumRet`` and ``short@k``, shown in every evaluation table.

Under a fixed-k convention, unfilled positions earn nothing, so a run that returns few results
(a filter, a failing retriever) looks merely bad. Two counts keep that visible beside the scores:

- ``NumRet``: documents returned, per topic, summed over the topics in the summary (trec_eval's
  ``num_ret``, the registry's measure; after ``-J``, the judged ones);
- ``short@k``: per topic 1 when the run returned fewer than k documents (a topic missing from
  the run returned 0), summed in the summary: the number of topics short of k. One per cutoff
  k of the measures asked for (``P@10`` and ``R@100`` give ``short@10`` and ``short@100``).

``short@k`` is not a measure of the registry: :func:`with_counts` adds it to a scored
:class:`~pooljudge.metrics.evaluate.RunResult` under a :class:`Count` key, read like a measure by
:func:`pooljudge.metrics.evaluate.tidy` and the command line's tables.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from pooljudge.metrics.eval_inputs import parse_all
from pooljudge.metrics.registry import Measure
from pooljudge.metrics.results import RunResult

__all__ = ["NUM_RET", "Count", "count_names", "cutoffs", "num_ret", "short_name",
           "short_warning", "with_counts"]

NUM_RET = "NumRet"


@dataclasses.dataclass(frozen=True)
class Count:
    """A count shown beside the measures (``short@10``); ``str`` gives its name."""

    name: str

    def __str__(self) -> str:
        return self.name


def short_name(k: int) -> str:
    """The column of topics returning fewer than ``k`` documents: ``short@k``."""
    return f"short@{k}"


def cutoffs(measures: Iterable[Measure]) -> list[int]:
    """The distinct integer cutoffs of ``measures`` (``P@10``, ``R@100``...), ascending."""
    return sorted({int(m.cutoff) for m in measures if isinstance(m.cutoff, int)})


def num_ret(measures: Sequence[Measure]) -> list[Measure]:
    """``measures`` with the registry's NumRet after them, unless already there."""
    extra = parse_all([NUM_RET])
    return [*measures, *(m for m in extra if m not in measures)]


def count_names(measures: Sequence[Measure]) -> list[str]:
    """The count columns for ``measures``: NumRet (unless asked for), then short@k per cutoff."""
    shown = {str(m) for m in measures}
    names = [] if NUM_RET in shown else [NUM_RET]
    return names + [short_name(k) for k in cutoffs(measures)]


def with_counts(result: RunResult, ks: Iterable[int]) -> RunResult:
    """``result`` with a ``short@k`` value per topic (1.0 when fewer than k documents were
    returned, else 0.0) and its summary (the number of such topics) for each ``k``."""
    # keyed by the measures and, for display only, the Count columns
    values: dict[Any, np.ndarray] = dict(result.values)
    summary: dict[Any, float] = dict(result.summary)
    for k in ks:
        short = (np.asarray(result.returned) < k).astype(np.float64)
        values[Count(short_name(k))] = short
        summary[Count(short_name(k))] = float(short.sum())
    return dataclasses.replace(result, values=values, summary=summary)


def short_warning(result: RunResult, measures: Iterable[Measure]) -> str | None:
    """``run: fewer than k documents returned for n topic(s)``, k the largest cutoff of the
    ``measures`` asked for (not of columns added for display) and n the topics where the run
    returned something but fewer than k (topics it skipped are warned about separately); None
    without a cutoff or without such a topic. ``eval`` and ``report`` give the same line."""
    ks = cutoffs(measures)
    if not ks:
        return None
    short = int(((result.returned > 0) & (result.returned < ks[-1])).sum())
    if not short:
        return None
    return f"{result.name}: fewer than {ks[-1]} documents returned for {short} topic(s)"
