"""Evaluate runs against qrels: the Python API behind ``pooljudge eval``.

Every qrels topic is evaluated (a topic the run skipped scores 0 and counts in the mean); run
topics missing from the qrels are ignored and counted. The summary row has topic ``all``: the
mean over the evaluated topics, the sum for counts (NumQ, NumRel, NumRet, NumRelRet) and the
geometric mean for GMAP. ``compat`` picks the trec_eval release reproduced: ``"10"`` (default)
or ``"9"`` (9.0.8 / pytrec_eval); :mod:`pooljudge.metrics.compat` lists the differences.

A run file is read and scored in blocks of whole topics, so memory does not grow with the run
(:func:`score_all`); the numbers are those of reading it whole.

With ``prels`` (sampled judgments, :func:`pooljudge.formats.trec.read_prels`) the estimators of
:mod:`pooljudge.metrics.estimators` (xinfAP, infNDCG, statAP, statPrec@k, statNDCG) can be asked
for, and
``se`` adds each estimate's standard error and the interval of its mean
(:mod:`pooljudge.metrics.uncertainty`); runs are then read whole. Asking for an estimator without
prels is
a UsageError.

What the functions accept (qrels, runs, measure names) is made uniform by
:mod:`pooljudge.metrics.eval_inputs`; a run's result is a
:class:`pooljudge.metrics.results.RunResult`.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

import numpy as np
from pooljudge.metrics.compat import DEFAULT_COMPAT, Compat, check_compat
from pooljudge.metrics.estimators import check_prels
from pooljudge.metrics.eval_inputs import (
    PrelsInput,
    QrelsInput,
    RunsInput,
    load_qrels,
    parse_all,
    run_sources,
)
from pooljudge.metrics.join import Labelled, Ranking, join, label, merge
from pooljudge.metrics.prels import Prels, bind_prels, load_prels
from pooljudge.metrics.qrels_lookup import Qrels
from pooljudge.metrics.registry import Measure
from pooljudge.metrics.results import RunResult

from pooljudge.errors import InputError
from pooljudge.formats.columnar import BLOCK_BYTES, NotStreamable, RunBlocks
from pooljudge.formats.trec import RunColumns, read_run_columns
from pooljudge.ground.defaults import DEFAULT_MEASURES
from pooljudge.ground.heap import release_freed_memory, reusing_freed_memory

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["evaluate", "score", "score_all", "tidy"]

ALL_TOPICS = "all"
BATCH_ROWS = 1 << 19  # ranked documents measured at once when a run is read in blocks


def score(
    qrels: Qrels, name: str, run: RunColumns | Labelled, measures: Sequence[Measure], *,
    judged_only: bool = False, compat: Compat = DEFAULT_COMPAT, prels: Prels | None = None,
    se: bool | str = False, seed: int = 0,
) -> RunResult:
    """Join one run with the qrels once and compute every measure over all topics; with ``se``
    also the estimators' standard errors and intervals (bootstrap seeded with ``seed``).

    Raises InputError for a ``compat`` other than "9" or "10".
    """
    ranking = join(qrels, run, judged_only=judged_only, compat=check_compat(compat), prels=prels)
    values = {m: m.spec.compute(ranking, m) for m in measures}
    summary = {m: _summarise(m, v) for m, v in values.items()}
    errors: dict[Measure, np.ndarray] = {}
    intervals: dict[Measure, tuple[float, float, float]] = {}
    if se and prels is not None:
        from pooljudge.metrics.uncertainty import mean_interval, standard_errors

        errors = standard_errors(ranking, measures, seed=seed,
                                 method=se if isinstance(se, str) else None)
        intervals = {m: mean_interval(values[m]) for m in errors}
    return RunResult(
        name=name,
        topics=qrels.topics.to_pylist(),
        values=values,
        summary=summary,
        returned=ranking.returned,
        run_only_topics=ranking.run_only_topics,
        errors=errors,
        intervals=intervals,
    )


def evaluate(
    qrels: QrelsInput,
    runs: RunsInput,
    measures: Iterable[str | Measure] = DEFAULT_MEASURES,
    *,
    per_topic: bool = True,
    judged_only: bool = False,
    compat: Compat = DEFAULT_COMPAT,
    prels: PrelsInput | None = None,
    se: bool | str = False,
) -> pd.DataFrame:
    """Score runs against qrels; a tidy frame with columns ``run, topic, measure, value``.

    ``qrels``: a path or a DataFrame (topic, doc, label). ``runs``: a path, a list of paths, or a
    mapping name -> DataFrame (topic, doc, score) or path. ``measures``: names such as ``P@10``
    or trec_eval aliases. Rows with topic ``all`` hold the summary (see the module docstring);
    ``per_topic=False`` keeps only those. ``judged_only`` drops unjudged documents first
    (trec_eval -J). ``compat``: "10" (trec_eval 10.0, default) or "9" (9.0.8 / pytrec_eval).
    ``prels``: sampled judgments (a path or a frame ``topic, doc, label, stratum, inclusion``),
    needed by the estimators; ``se`` adds columns ``se``, ``ci_low``, ``ci_high`` (per topic the
    estimate's SE; on ``all`` rows the SE of the mean and its 95% t interval); ``se`` may name
    the method, "linearised" or "bootstrap" (:func:`pooljudge.metrics.uncertainty.standard_errors`).
    Raises InputError for bad input, an unknown measure or compat; UsageError for an estimator
    without ``prels``.
    """
    results = score_all(qrels, runs, parse_all(measures), judged_only=judged_only,
                        compat=compat, prels=prels, se=se)[1]
    return tidy(results, per_topic=per_topic)


def score_all(
    qrels: QrelsInput, runs: RunsInput, measures: Sequence[Measure], *,
    judged_only: bool = False, runs_seen: Callable[[RunResult], None] | None = None,
    compat: Compat = DEFAULT_COMPAT, block_bytes: int | None = BLOCK_BYTES,
    note: Callable[[str], None] | None = None, prels: PrelsInput | None = None,
    se: bool | str = False,
) -> tuple[Qrels, list[RunResult]]:
    """The prepared qrels and every run's result; ``runs_seen(result)`` follows each run.

    A run file is read in blocks of whole topics of about ``block_bytes``
    (:mod:`pooljudge.formats._run_blocks`) and scored block by block, in memory that does not grow
    with the run; ``block_bytes=None`` reads each file whole. A file whose topics are not grouped is
    read whole, and ``note`` (by default a line on stderr) says so. Results are identical
    either way. The qrels are read in a worker thread while the first block is parsed (pyarrow
    releases the GIL). A bad qrels file is reported before a bad run, as if read first; a bad
    ``compat`` before reading anything. With ``prels`` (module docstring) runs are read whole.
    A file read whole is read by the worker one run ahead
    (:func:`~pooljudge.metrics.eval_inputs.read_ahead`),
    and the prels while it reads the qrels.
    """
    compat = check_compat(compat)
    check_prels(measures, prels is not None)
    options: dict = {"judged_only": judged_only, "compat": compat}
    if prels is not None:
        block_bytes = None
    heap = reusing_freed_memory() if block_bytes is not None else contextlib.nullcontext()
    with heap, ThreadPoolExecutor(max_workers=1) as executor:
        pending = executor.submit(_load_qrels_then_release, qrels)
        results = []
        try:
            whole = block_bytes is None  # every path read whole, one run ahead
            items = run_sources(runs, executor if whole else None)
            if prels is not None:  # read while the worker reads the qrels, then the first run
                options.update(prels=bind_prels(load_prels(prels), pending.result()), se=se)
            for name, run in items:  # run arrays (a frame, or a file read whole) or a path
                if isinstance(run, RunColumns):
                    result = score(pending.result(), name, run, measures, **options)
                else:  # a path: block_bytes is set (with None every path was read ahead)
                    size = BLOCK_BYTES if block_bytes is None else block_bytes
                    result = _score_file(pending, name, run, measures, size, note or _note,
                                         **options)
                if runs_seen is not None:
                    runs_seen(result)
                results.append(result)
        except InputError:
            pending.result()  # raises the qrels' own error first
            raise
        return pending.result(), results


def _load_qrels_then_release(qrels: QrelsInput) -> Qrels:
    """:func:`load_qrels` (prepared qrels pass through), then the memory its transient arrays
    took is returned."""
    if isinstance(qrels, Qrels):
        return qrels
    prepared = load_qrels(qrels)
    release_freed_memory()
    return prepared


def _score_file(qrels: Future[Qrels], name: str, path: str | os.PathLike[str],
                measures: Sequence[Measure], block_bytes: int, note: Callable[[str], None], *,
                judged_only: bool, compat: Compat) -> RunResult:
    """:func:`score` of a run file read block by block, or read whole when it cannot be.

    The reading thread also labels each block (:func:`~pooljudge.metrics.join.label`), once the
    qrels
    are read; this thread ranks and measures.
    """
    try:
        with RunBlocks(path, block_bytes=block_bytes,
                       prepare=lambda block: label(qrels.result(), block)) as blocks:
            return _score_blocks(qrels.result(), name, blocks, measures,
                                 judged_only=judged_only, compat=compat)
    except NotStreamable as reason:
        result = score(qrels.result(), name, read_run_columns(path), measures,
                       judged_only=judged_only, compat=compat)
        if reason.ungrouped is not None:
            note(f"{path}: the run's topics are not grouped (topic {reason.ungrouped} comes back "
                 "after other topics): read whole, in memory that grows with the file")
        return result


def _score_blocks(qrels: Qrels, name: str, blocks: Iterable[Labelled],
                  measures: Sequence[Measure], *, judged_only: bool, compat: Compat
                  ) -> RunResult:
    """:func:`score` over labelled blocks of whole topics (each topic in one block).

    Each block is ranked alone (:func:`~pooljudge.metrics.join.join`); the rankings of consecutive
    blocks
    are merged into batches of at least :data:`BATCH_ROWS` ranked documents (and of the qrels'
    size: a measure may cost that much per call), and each batch is measured over all qrels
    topics, keeping its own topics' values; the last batch also gives the topics in no block
    their values, those of an empty ranking. So every topic gets exactly the value of a join of
    the whole run.
    """
    values: dict[Measure, np.ndarray] = {}
    measured = np.zeros(qrels.n_topics, dtype=bool)
    returned = np.zeros(qrels.n_topics, dtype=np.int64)
    batch: list[tuple[Ranking, np.ndarray]] = []
    run_only = size = 0
    for block in blocks:
        if size >= max(BATCH_ROWS, len(qrels.labels)):  # not the last batch: a block follows
            run_only += _measure_batch(batch, measures, values, returned, measured)
            batch, size = [], 0
        batch.append((join(qrels, block, judged_only=judged_only, compat=compat), block.topics))
        size += len(batch[-1][0].labels)
    if not batch:  # no block at all: every topic has an empty ranking
        batch = [(join(qrels, _no_rows(), compat=compat), np.zeros(0, dtype=np.int64))]
    run_only += _measure_batch(batch, measures, values, returned, measured, last=True)
    return RunResult(name=name, topics=qrels.topics.to_pylist(), values=values,
                     summary={m: _summarise(m, v) for m, v in values.items()},
                     returned=returned, run_only_topics=run_only)


def _measure_batch(batch: Sequence[tuple[Ranking, np.ndarray]], measures: Sequence[Measure],
                   values: dict[Measure, np.ndarray], returned: np.ndarray,
                   measured: np.ndarray, *, last: bool = False) -> int:
    """Store the values (and ranking lengths) of the batch's topics, or with ``last`` of every
    topic not measured yet; the batch's run-only topics."""
    ranking = merge([r for r, _ in batch])
    topics = np.flatnonzero(~measured) if last else np.concatenate([t for _, t in batch])
    for measure in measures:  # float64 whatever a batch gives (bincount of nothing is int64)
        computed = measure.spec.compute(ranking, measure)
        values.setdefault(measure, np.zeros(ranking.n_topics))[topics] = computed[topics]
    returned[topics] = ranking.returned[topics]
    measured[topics] = True
    return ranking.run_only_topics


def _no_rows() -> Labelled:
    import pyarrow as pa

    nothing = np.zeros(0, dtype=np.int64)
    return Labelled(nothing, nothing, np.zeros(0), pa.nulls(0, pa.string()), nothing, 0)


def _note(message: str) -> None:
    print(f"pooljudge: note: {message}", file=sys.stderr)


def tidy(results: Sequence[RunResult], *, per_topic: bool) -> pd.DataFrame:
    """Results as rows (run, topic, measure, value): per run, its topics then ``all``. When a
    result has standard errors (``se``), also ``se, ci_low, ci_high`` (:func:`error_columns`)."""
    import pandas as pd

    frames = []
    from pooljudge.metrics.uncertainty import error_columns

    with_errors = any(result.errors for result in results)
    for result in results:
        names = [str(m) for m in result.values]
        extra = error_columns(result, per_topic) if with_errors else {}
        if per_topic:
            values = np.column_stack(list(result.values.values()))
            frames.append(pd.DataFrame({
                "run": result.name,
                "topic": np.repeat(np.asarray(result.topics, dtype=object), len(names)),
                "measure": np.tile(np.asarray(names, dtype=object), len(result.topics)),
                "value": values.ravel(),
                **{k: v[:-len(names)] for k, v in extra.items()},
            }))
        frames.append(pd.DataFrame({
            "run": result.name, "topic": ALL_TOPICS, "measure": names,
            "value": np.fromiter(result.summary.values(), dtype=np.float64),
            **{k: v[-len(names):] for k, v in extra.items()},
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
