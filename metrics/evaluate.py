"""Evaluate runs against qrels: the Python API behind ``pooljudge eval``.

Every qrels topic is evaluated (a topic the run skipped scores 0 and counts in the mean); run
topics missing from the qrels are ignored and counted. The summary row has topic ``all``: the
mean over the evaluated topics, the sum for counts (NumQ, NumRel, NumRet, NumRelRet) and the
geometric mean for GMAP. ``compat`` picks the trec_eval release reproduced: ``"10"`` (default)
or ``"9"`` (9.0.8 / pytrec_eval); :mod:`metrics.compat` lists the differences.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from metrics.compat import DEFAULT_COMPAT, Compat, check_compat
from metrics.join import Qrels, join, prepare_qrels
from metrics.registry import Measure, parse
from pooljudge.errors import InputError
from pooljudge.trec import (
    RunColumns,
    qrels_columns,
    read_qrels_columns,
    read_run_columns,
    run_columns,
    run_name,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "DEFAULT_MEASURES", "RunResult", "evaluate", "load_qrels", "load_runs", "score", "score_all",
    "tidy",
]

DEFAULT_MEASURES: tuple[str, ...] = ("P@10", "nDCG@10", "AP", "RR", "R@100", "Judged@10")
ALL_TOPICS = "all"

QrelsInput = "str | os.PathLike[str] | pd.DataFrame"
RunsInput = (
    "str | os.PathLike[str] | Sequence[str | os.PathLike[str]]"
    "| Mapping[str, pd.DataFrame | str | os.PathLike[str]]"
)


@dataclass(frozen=True)
class RunResult:
    """One run's scores: per measure, an array over ``topics``, and the summary value."""

    name: str
    topics: list[str]
    values: dict[Measure, np.ndarray]
    summary: dict[Measure, float]
    returned: np.ndarray
    run_only_topics: int


def load_qrels(qrels: QrelsInput) -> Qrels:
    """Read (a path) or encode (a DataFrame with topic, doc, label) and prepare the qrels."""
    if isinstance(qrels, (str, os.PathLike)):
        return prepare_qrels(read_qrels_columns(qrels))
    return prepare_qrels(qrels_columns(qrels))


def load_runs(runs: RunsInput) -> Iterator[tuple[str, RunColumns]]:
    """(name, checked run arrays) for each run, read lazily one at a time.

    A path's name is its file name without folder and ``.gz``; a mapping's keys are the names.
    Raises InputError when two runs would share a name.
    """
    if isinstance(runs, (str, os.PathLike)):
        runs = [runs]
    items: Iterable[tuple[str, object]] = (
        runs.items() if isinstance(runs, Mapping) else ((run_name(p), p) for p in runs)
    )
    seen: set[str] = set()
    for name, run in items:
        if name in seen:
            raise InputError(f"two runs are named {name!r}; give them distinct names")
        seen.add(name)
        if not isinstance(run, (str, os.PathLike)):
            yield name, run_columns(run, name=name)
            continue
        yield name, read_run_columns(run)


def parse_all(measures: Iterable[str | Measure]) -> list[Measure]:
    """Parse measure names (Measure objects pass through); duplicates are dropped."""
    parsed = [m if isinstance(m, Measure) else parse(m) for m in measures]
    if not parsed:
        raise InputError("no measure given")
    return list(dict.fromkeys(parsed))


def score(
    qrels: Qrels, name: str, run: RunColumns, measures: Sequence[Measure], *,
    judged_only: bool = False, compat: Compat = DEFAULT_COMPAT,
) -> RunResult:
    """Join one run with the qrels once and compute every measure over all topics.

    Raises InputError for a ``compat`` other than "9" or "10".
    """
    ranking = join(qrels, run, judged_only=judged_only, compat=check_compat(compat))
    values = {m: m.spec.compute(ranking, m) for m in measures}
    summary = {m: _summarise(m, v) for m, v in values.items()}
    return RunResult(
        name=name,
        topics=qrels.topics.to_pylist(),
        values=values,
        summary=summary,
        returned=ranking.returned,
        run_only_topics=ranking.run_only_topics,
    )


def evaluate(
    qrels: QrelsInput,
    runs: RunsInput,
    measures: Iterable[str | Measure] = DEFAULT_MEASURES,
    *,
    per_topic: bool = True,
    judged_only: bool = False,
    compat: Compat = DEFAULT_COMPAT,
) -> pd.DataFrame:
    """Score runs against qrels; a tidy frame with columns ``run, topic, measure, value``.

    ``qrels``: a path or a DataFrame (topic, doc, label). ``runs``: a path, a list of paths, or a
    mapping name -> DataFrame (topic, doc, score) or path. ``measures``: names such as ``P@10``
    or trec_eval aliases. Rows with topic ``all`` hold the summary (see the module docstring);
    ``per_topic=False`` keeps only those. ``judged_only`` drops unjudged documents first
    (trec_eval -J). ``compat``: "10" (trec_eval 10.0, default) or "9" (9.0.8 / pytrec_eval).
    Raises InputError for bad input, an unknown measure or compat.
    """
    results = score_all(qrels, runs, parse_all(measures), judged_only=judged_only,
                        compat=compat)[1]
    return tidy(results, per_topic=per_topic)


def score_all(
    qrels: QrelsInput, runs: RunsInput, measures: Sequence[Measure], *,
    judged_only: bool = False, runs_seen: Callable[[RunResult], None] | None = None,
    compat: Compat = DEFAULT_COMPAT,
) -> tuple[Qrels, list[RunResult]]:
    """The prepared qrels and every run's result; ``runs_seen(result)`` follows each run.

    The qrels are read in a worker thread while the first run file is parsed (pyarrow releases
    the GIL). A bad qrels file is reported before a bad run, as if read first; a bad ``compat``
    before reading anything.
    """
    compat = check_compat(compat)
    with ThreadPoolExecutor(max_workers=1) as executor:
        pending = executor.submit(load_qrels, qrels)
        results = []
        try:
            for name, run in load_runs(runs):
                result = score(pending.result(), name, run, measures, judged_only=judged_only,
                               compat=compat)
                if runs_seen is not None:
                    runs_seen(result)
                results.append(result)
        except InputError:
            pending.result()  # raises the qrels' own error first
            raise
        return pending.result(), results


def tidy(results: Sequence[RunResult], *, per_topic: bool) -> pd.DataFrame:
    """Results as rows (run, topic, measure, value): per run, its topics then ``all``."""
    import pandas as pd

    frames = []
    for result in results:
        names = [str(m) for m in result.values]
        if per_topic:
            values = np.column_stack(list(result.values.values()))
            frames.append(pd.DataFrame({
                "run": result.name,
                "topic": np.repeat(np.asarray(result.topics, dtype=object), len(names)),
                "measure": np.tile(np.asarray(names, dtype=object), len(result.topics)),
                "value": values.ravel(),
            }))
        frames.append(pd.DataFrame({
            "run": result.name, "topic": ALL_TOPICS, "measure": names,
            "value": np.fromiter(result.summary.values(), dtype=np.float64),
        }))
    if not frames:
        return pd.DataFrame({"run": [], "topic": [], "measure": [], "value": []})
    return pd.concat(frames, ignore_index=True)


def _summarise(measure: Measure, values: np.ndarray) -> float:
    """Mean over topics; sum for counts; geometric mean for GMAP (values are floored > 0).

    A topic without a value (NaN, e.g. RecallDepth for a ranking that never reaches the recall)
    is left out of the summary; with no value at all the summary is NaN.
    """
    values = values[~np.isnan(values)]
    if len(values) == 0:
        return float("nan")
    kind = measure.spec.summary
    if kind == "sum":
        return float(values.sum())
    if kind == "gmean":
        return float(np.exp(np.mean(np.log(values))))
    return float(values.mean())
