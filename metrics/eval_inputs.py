"""What :func:`pooljudge.metrics.evaluate.evaluate` accepts, made uniform: qrels (a path or a frame)
prepared for the join, runs (a path, paths, a frame or a mapping name -> frame or path) named
and read one at a time, and measure names (pooljudge's, trec_eval's, ``NAME.PARAMS``) parsed.
"""

from __future__ import annotations

import os
import sys
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future
from itertools import islice
from typing import TYPE_CHECKING, TypeAlias

from pooljudge.metrics.qrels_lookup import Qrels, prepare_qrels
from pooljudge.metrics.registry import Measure, parse

from pooljudge.errors import InputError
from pooljudge.formats.trec import (
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
    "PrelsInput", "QrelsInput", "RunsInput", "load_qrels", "load_runs", "named_runs", "parse_all",
    "read_ahead", "run_sources",
]

QrelsInput: TypeAlias = "str | os.PathLike[str] | pd.DataFrame"
PrelsInput: TypeAlias = "str | os.PathLike[str] | pd.DataFrame"
RunsInput: TypeAlias = (
    "str | os.PathLike[str] | Sequence[str | os.PathLike[str]]"
    "| Mapping[str, pd.DataFrame | str | os.PathLike[str]]"
)


def load_qrels(qrels: QrelsInput) -> Qrels:
    """Read (a path) or encode (a DataFrame with topic, doc, label) and prepare the qrels
    (prepared qrels pass through)."""
    if isinstance(qrels, Qrels):
        return qrels
    if isinstance(qrels, (str, os.PathLike)):
        return prepare_qrels(read_qrels_columns(qrels))
    return prepare_qrels(qrels_columns(qrels))


def load_runs(runs: RunsInput) -> Iterator[tuple[str, RunColumns]]:
    """(name, checked run arrays) for each run, read lazily one at a time.

    A path's name is its file name without folder and ``.gz``; a mapping's keys are the names.
    Raises InputError when two runs would share a name.
    """
    for name, run in run_sources(runs):
        yield name, (read_run_columns(run) if isinstance(run, (str, os.PathLike)) else run)


def run_sources(runs: RunsInput, executor: Executor | None = None
                ) -> Iterator[tuple[str, RunColumns | str | os.PathLike[str]]]:
    """(name, run) for each run, normalised once: a frame encoded as run arrays, a path left for
    the caller to read (in blocks, say); with ``executor`` every path is read whole, one run
    ahead (:func:`read_ahead`). A frame is encoded when the caller reaches it, so its
    InputError comes after the runs before it."""
    items = named_runs(runs)
    if executor is not None:
        items = read_ahead(executor, items)
    for name, run in items:
        if isinstance(run, (RunColumns, str, os.PathLike)):
            yield name, run
        else:
            yield name, run_columns(run, name=name)


def read_ahead(executor: Executor, items: Iterable[tuple[str, object]]
               ) -> Iterator[tuple[str, object]]:
    """``items`` (from :func:`named_runs`) with each path replaced by its run read whole
    (:func:`read_run_columns`) by ``executor``, one run ahead: the next file is read while the
    caller scores this one (pyarrow and gzip release the GIL). The first read starts at once;
    a run's InputError is raised when the caller reaches that run."""
    items = iter(items)
    ahead = deque(_submitted(executor, item) for item in islice(items, 1))
    return _read_in_turn(executor, items, ahead)


def _read_in_turn(executor: Executor, items: Iterator[tuple[str, object]],
                  ahead: deque[tuple[str, object]]) -> Iterator[tuple[str, object]]:
    for item in items:
        ahead.append(_submitted(executor, item))
        yield _result(ahead.popleft())
    while ahead:
        yield _result(ahead.popleft())


def _submitted(executor: Executor, item: tuple[str, object]) -> tuple[str, object]:
    name, run = item
    return name, (executor.submit(read_run_columns, run) if isinstance(run, (str, os.PathLike))
                  else run)


def _result(item: tuple[str, object]) -> tuple[str, object]:
    name, run = item
    return name, (run.result() if isinstance(run, Future) else run)


def named_runs(runs: RunsInput) -> Iterator[tuple[str, object]]:
    """(name, path or frame) for each run; InputError when two runs would share a name. A
    single frame (a PyTerrier ranking, say) is one run named ``run``."""
    if isinstance(runs, (str, os.PathLike)):
        runs = [runs]
    elif _is_frame(runs):
        runs = {"run": runs}
    items: Iterable[tuple[str, object]] = (
        runs.items() if isinstance(runs, Mapping) else ((run_name(p), p) for p in runs)
    )
    seen: set[str] = set()
    for name, run in items:
        if name in seen:
            raise InputError(f"two runs are named {name!r}; give them distinct names")
        seen.add(name)
        yield name, run


def _is_frame(value: object) -> bool:
    """Whether ``value`` is a pandas DataFrame (pandas not imported to find out)."""
    frame_type = getattr(sys.modules.get("pandas"), "DataFrame", None)
    return frame_type is not None and isinstance(value, frame_type)


def parse_all(measures: Iterable[str | Measure]) -> list[Measure]:
    """Parse measure names (Measure objects pass through); duplicates are dropped.

    A name may also be a parameterised trec_eval spelling, which stands for several measures
    (``P.5,10`` is P@5 and P@10; ``ndcg_cut.10,20``, ``iprec_at_recall..25,.5``...; see
    :mod:`pooljudge.metrics.trec_names`).
    """
    parsed = [m for given in measures for m in _parse_one(given)]
    if not parsed:
        raise InputError("no measure given")
    return list(dict.fromkeys(parsed))


def _parse_one(given: str | Measure) -> list[Measure]:
    """One name as its measures: a pooljudge or trec_eval name, or a trec_eval ``NAME.PARAMS``."""
    if isinstance(given, Measure):
        return [given]
    try:
        return [parse(given)]
    except InputError:
        if "." not in given:
            raise
        from pooljudge.metrics.trec_names import expand

        try:
            entries = expand(given.strip())
        except InputError:
            raise InputError(_unknown_spelling(given)) from None
    numbers = [entry.measure for entry in entries if isinstance(entry.measure, Measure)]
    if not numbers:
        raise InputError(f"{given!r} is printed as text, by `pooljudge trec_eval` only")
    return numbers


def _unknown_spelling(given: str) -> str:
    """The registry's message for ``given`` (it names near measures)."""
    try:
        parse(given)
    except InputError as exc:
        return str(exc)
    return f"unknown measure {given!r}"  # pragma: no cover - parse failed a moment ago
