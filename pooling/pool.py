"""Depth-k pools: every run's top k (trec_eval ranking order), merged per (topic, document).

A :class:`Pool` has two aligned views, both in a canonical order that does not depend on the
order of the input files or of their lines:

- ``pairs``: one row per pooled (topic, document) with ``topic, doc, best_rank, runs, n_runs``,
  sorted by topic (numeric ids numerically, see :func:`topic_order`) then document id (bytes);
- ``entries``: one row per (run, topic, document) inside a run's top k with ``pair`` (row of
  ``pairs``), ``run`` (index into ``run_names``, which is sorted), ``rank`` (1-based), ``score`` and
  ``norm`` (the score min-max normalised within the run's top k for the topic: ``(s - min) /
  (max - min)``, 1.0 when all of them are equal); sorted by pair then run.

A pool built here holds them as Arrow/numpy columns: ``pairs`` and ``entries`` are pandas frames
made on first use, and :meth:`Pool.pair_column`, :meth:`Pool.pair_text`,
:meth:`Pool.entry_column` and :meth:`Pool.topic_codes` read the columns without pandas (the
sampling path of ``pooljudge pool`` never imports it). A pool may also be made from frames.

Runs are consumed one at a time: each is cut to the rows that can reach its top k (a numeric
sort on scores, :func:`top_candidates`; readers may cut earlier) before the next is read, so
memory holds the candidates, not whole runs. The rest is integer work on dictionary codes
(Arrow/numpy); there is no Python loop per document.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, NamedTuple, TypeAlias

import numpy as np
import pyarrow as pa
from pooljudge.pooling.sampling_draws import within

from pooljudge.errors import InputError
from pooljudge.formats.pool_file import POOL_COLUMNS, joined_names, text_array
from pooljudge.formats.trec import RunColumns
from pooljudge.kernels import (
    decode,
    dictionary_encode,
    index_in,
    int_array,
    numpy_of,
    sort_indices,
    take,
)
from pooljudge.kernels.ranking import rank_positions, score_keys

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PairColumns", "Pool", "apply_budget", "budget_rows", "build_pool", "pool_table",
           "top_candidates", "topic_order"]

RunInput: TypeAlias = "RunColumns | pd.DataFrame"
ENTRY_COLUMNS = ("pair", "run", "rank", "score", "norm")


class PairColumns(NamedTuple):
    """A pool's pairs as columns: ``topic`` (int64 code into ``topic_ids``, the pooled topics in
    canonical order), ``doc`` and ``runs`` (Arrow strings), ``best_rank`` and ``n_runs``."""

    topic: np.ndarray
    topic_ids: pa.Array
    doc: pa.Array
    best_rank: np.ndarray
    runs: pa.Array
    n_runs: np.ndarray


class Pool:
    """A depth-k pool: pooled pairs, the run entries behind them, and the runs' names.

    ``pairs`` and ``entries`` are given as frames, or as :class:`PairColumns` and a mapping of
    :data:`ENTRY_COLUMNS` to numpy arrays (frames are then made on first use).
    """

    __slots__ = ("_columns", "_entries", "_pairs", "depth", "run_names")

    def __init__(self, pairs: pd.DataFrame | PairColumns,
                 entries: pd.DataFrame | Mapping[str, np.ndarray],
                 run_names: tuple[str, ...], depth: int) -> None:
        self._columns = pairs if isinstance(pairs, PairColumns) else None
        self._pairs = None if isinstance(pairs, PairColumns) else pairs
        self._entries = entries
        self.run_names, self.depth = tuple(run_names), depth

    @property
    def pairs(self) -> pd.DataFrame:
        """One row per pooled pair: ``topic, doc, best_rank, runs, n_runs``."""
        if self._pairs is None:
            import pandas as pd

            text = {c: self.pair_text(c).to_numpy(zero_copy_only=False).astype(object)
                    for c in ("topic", "doc", "runs")}
            self._pairs = pd.DataFrame({**text, "best_rank": self.pair_column("best_rank"),
                                        "n_runs": self.pair_column("n_runs")},
                                       columns=["topic", "doc", "best_rank", "runs", "n_runs"])
        return self._pairs

    @property
    def entries(self) -> pd.DataFrame:
        """One row per run entry: ``pair, run, rank, score, norm``."""
        if isinstance(self._entries, Mapping):
            import pandas as pd

            self._entries = pd.DataFrame({c: self._entries[c] for c in ENTRY_COLUMNS})
        return self._entries

    @property
    def n_pairs(self) -> int:
        """Number of pooled pairs."""
        return len(self.pairs) if self._columns is None else len(self._columns.topic)

    def pair_column(self, name: str) -> np.ndarray:
        """A numeric column of the pairs (``best_rank`` or ``n_runs``) as numpy."""
        if self._columns is None:  # the frame was given
            return self.pairs[name].to_numpy()
        return getattr(self._columns, name)

    def pair_text(self, name: str) -> pa.Array:
        """A text column of the pairs (``topic``, ``doc`` or ``runs``) as Arrow strings (a
        frame's column as Arrow infers it)."""
        if self._columns is None:
            return pa.array(self.pairs[name].to_numpy(dtype=object), from_pandas=True)
        if name == "topic":
            return take(self._columns.topic_ids, int_array(self._columns.topic))
        return getattr(self._columns, name)

    def entry_column(self, name: str) -> np.ndarray:
        """A column of the entries (one of :data:`ENTRY_COLUMNS`) as numpy."""
        if isinstance(self._entries, Mapping):
            return self._entries[name]
        return self._entries[name].to_numpy()

    @property
    def topics(self) -> list[str]:
        """The pooled topics in canonical order."""
        if self._columns is None:
            import pandas as pd

            return list(pd.unique(self.pairs["topic"]))
        return self._columns.topic_ids.to_pylist()

    def topic_codes(self) -> np.ndarray:
        """Per pair, the position (int64) of its topic in :attr:`topics`."""
        if self._columns is None:
            import pandas as pd

            return pd.Categorical(self.pairs["topic"], categories=self.topics).codes.astype(
                np.int64)
        return self._columns.topic

    def topic_sizes(self) -> pd.Series:
        """Number of pooled documents per topic, indexed by topic in canonical order."""
        return self.pairs.groupby("topic", sort=False).size()

    def subset(self, keep: np.ndarray) -> Pool:
        """The pool restricted to the pairs where the boolean mask ``keep`` is true."""
        keep = np.asarray(keep, dtype=bool)
        renumber = np.cumsum(keep) - 1
        entries = self.entries.loc[keep[self.entry_column("pair")]].reset_index(drop=True)
        entries["pair"] = renumber[entries["pair"].to_numpy()]
        return Pool(self.pairs.loc[keep].reset_index(drop=True), entries, self.run_names,
                    self.depth)


def topic_order(topics: Iterable[str]) -> list[str]:
    """Topic ids sorted for display and output: ASCII-digit ids by value first, then the rest.

    Ties in value (``"01"`` and ``"1"``) fall back to the string, so the order is total.
    """
    def key(topic: str) -> tuple[int, int, str]:
        numeric = topic.isascii() and topic.isdigit()
        return (0, int(topic), topic) if numeric else (1, 0, topic)

    return sorted(set(topics), key=key)


def build_pool(
    runs: Mapping[str, RunInput] | Iterable[tuple[str, RunInput]],
    depth: int,
    *,
    exclude: pd.DataFrame | None = None,
) -> Pool:
    """Pool the top ``depth`` documents of every run.

    ``runs`` maps run names to runs, or yields (name, run) pairs (consumed lazily, one run at a
    time); a run is :class:`~pooljudge.formats.trec.RunColumns` or a frame with ``topic, doc,
    score`` (or PyTerrier's ``qid, docno, score``). ``exclude`` (a qrels-like frame with
    ``topic, doc``, or ``qid, docno``) removes pairs already judged, whatever their label.
    Raises InputError for ``depth < 1``, no runs, a run name given twice, or a frame with a bad
    score or a repeated document. A pool may be empty.
    """
    if depth < 1:
        raise InputError(f"depth must be at least 1, got {depth}")
    items = runs.items() if isinstance(runs, Mapping) else runs
    tops: dict[str, _Top] = {}
    for name, run in items:
        if name in tops:
            raise InputError(f"two runs are named {name!r}")
        if not isinstance(run, RunColumns):  # a frame: pandas is loaded
            from pooljudge.formats.trec import run_columns

            run = run_columns(run, name=name)
        tops[name] = _candidates(run, depth)
    if not tops:
        raise InputError("no runs to pool")
    names = tuple(sorted(tops))
    if exclude is not None:  # PyTerrier's qid, docno and ir_measures' names too
        from pooljudge.formats.pyterrier import recognise_columns

        exclude = recognise_columns(exclude, ("topic", "doc"), name="exclude")
    return _assemble([tops[n] for n in names], names, depth, exclude)


class _Top(NamedTuple):
    topic: pa.Array
    doc: pa.Array
    score: np.ndarray


def top_candidates(run: RunColumns, depth: int) -> RunColumns:
    """The rows of a run (in file order) whose score reaches its topic's ``depth``-th best.

    Scores compare in single precision, as in the ranking, so this is a superset of the top
    ``depth`` under any tie order; every row ranked above a candidate is a candidate too, and
    ranking the candidates alone gives each its true rank. Applying it twice changes nothing.
    One integer sort (linear on the usual topic-grouped, score-sorted files), no string work and
    no Python loop per topic.
    """
    codes = numpy_of(run.topic.indices)
    if len(codes) == 0:
        return run
    keys = score_keys(codes, run.score)  # topic ascending, then score descending
    ordered = np.sort(keys, kind="stable")
    topic_of = ordered >> 32
    starts = np.flatnonzero(np.concatenate(([True], topic_of[1:] != topic_of[:-1])))
    ends = np.append(starts[1:], len(ordered))
    threshold = np.zeros(len(run.topic.dictionary), dtype=np.int64)
    threshold[topic_of[starts]] = ordered[np.minimum(starts + depth, ends) - 1]
    keep = np.flatnonzero(keys <= threshold[codes])
    if len(keep) == len(codes):
        return run
    rows = int_array(keep)
    doc_hash = None if run.doc_hash is None else run.doc_hash[keep]
    return RunColumns(take(run.topic, rows), take(run.doc, rows), run.score[keep], doc_hash)


def _candidates(run: RunColumns, depth: int) -> _Top:
    """A run's :func:`top_candidates` with plain (decoded) ids."""
    top = top_candidates(run, depth)
    return _Top(decode(top.topic), decode(top.doc), np.asarray(top.score, dtype=np.float64))


def _byte_codes(values: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Per row, the position of its id among the distinct ids in byte order; and those ids."""
    encoded = dictionary_encode(values)
    order = sort_indices(encoded.dictionary)  # once, for both the codes and the ids
    position = np.empty(len(order), dtype=np.int64)
    position[numpy_of(order)] = np.arange(len(order), dtype=np.int64)
    return position[numpy_of(encoded.indices)], take(encoded.dictionary, order)


def _assemble(tops: list[_Top], names: tuple[str, ...], depth: int,
              exclude: pd.DataFrame | None) -> Pool:
    """Rank the candidates of all runs together, cut at ``depth``, exclude, group by pair."""
    run = np.repeat(np.arange(len(tops), dtype=np.int64), [len(t.score) for t in tops])
    topic_codes, topic_ids = _byte_codes(pa.concat_arrays([t.topic for t in tops]))
    doc_codes, doc_ids = _byte_codes(pa.concat_arrays([t.doc for t in tops]))
    score = np.concatenate([t.score for t in tops])
    group = run * max(len(topic_ids), 1) + topic_codes
    order = rank_positions(group, doc_codes, score)
    starts = np.flatnonzero(np.r_[True, group[order][1:] != group[order][:-1]])
    rank = np.arange(1, len(order) + 1) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    keep = order[rank <= depth]
    canonical = topic_order(topic_ids.to_pylist())
    position = {topic: i for i, topic in enumerate(canonical)}
    to_canonical = np.array([position[t] for t in topic_ids.to_pylist()], dtype=np.int64)
    entries = {"run": run[keep], "topic": to_canonical[topic_codes[keep]],
               "doc": doc_codes[keep], "rank": rank[rank <= depth], "score": score[keep]}
    entries["norm"] = _min_max(group[keep], entries["score"])
    if exclude is not None and len(keep):
        entries = _exclude(entries, exclude, topic_ids, to_canonical, doc_ids)
    return _group(entries, names, depth, canonical, doc_ids)


def _min_max(group: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Scores min-max normalised within contiguous groups; 1.0 where a group's scores are equal."""
    if len(score) == 0:
        return score.copy()
    first = np.r_[True, group[1:] != group[:-1]]
    starts, ids = np.flatnonzero(first), np.cumsum(first) - 1
    low = np.minimum.reduceat(score, starts)[ids]
    span = np.maximum.reduceat(score, starts)[ids] - low
    return np.where(span > 0, (score - low) / np.where(span > 0, span, 1.0), 1.0)


def _exclude(entries: dict[str, np.ndarray], judged: pd.DataFrame, topic_ids: pa.Array,
             to_canonical: np.ndarray, doc_ids: pa.Array) -> dict[str, np.ndarray]:
    """Entries whose (topic, doc) is not among ``judged``'s pairs."""
    topic = numpy_of(index_in(pa.array(judged["topic"].astype(str).to_numpy(dtype=object),
                                       type=pa.string()), topic_ids), fill=-1)
    doc = numpy_of(index_in(pa.array(judged["doc"].astype(str).to_numpy(dtype=object),
                                     type=pa.string()), doc_ids), fill=-1)
    known = (topic >= 0) & (doc >= 0)
    width = max(len(doc_ids), 1)
    judged_keys = (to_canonical[topic[known].astype(np.int64)] * width
                   + doc[known].astype(np.int64))
    kept = ~np.isin(entries["topic"] * width + entries["doc"], judged_keys)
    return {name: values[kept] for name, values in entries.items()}


def _group(entries: dict[str, np.ndarray], names: tuple[str, ...], depth: int,
           canonical: list[str], doc_ids: pa.Array) -> Pool:
    """Sort entries by (topic, doc, run) and reduce each pair's group to one pool row."""
    order = _pair_order(entries["topic"], entries["doc"], entries["run"], len(names))
    entries = {name: values[order] for name, values in entries.items()}
    topic, doc = entries.pop("topic"), entries.pop("doc")
    new_pair = np.r_[True, (topic[1:] != topic[:-1]) | (doc[1:] != doc[:-1])][: len(order)]
    starts = np.flatnonzero(new_pair)
    seen = np.zeros(len(canonical), dtype=bool)
    seen[topic[starts]] = True  # topics left after exclude, renumbered in canonical order
    columns = PairColumns(
        (np.cumsum(seen) - 1)[topic[starts]],
        text_array([canonical[i] for i in np.flatnonzero(seen)]),
        take(doc_ids, int_array(doc[starts])),
        np.minimum.reduceat(entries["rank"], starts) if len(starts)
        else np.zeros(0, dtype=np.int64),
        joined_names(names, entries["run"], starts),
        np.diff(np.r_[starts, len(order)]).astype(np.int64))
    entries["pair"] = np.cumsum(new_pair) - 1
    return Pool(columns, entries, names, depth)


def _pair_order(topic: np.ndarray, doc: np.ndarray, run: np.ndarray, runs: int) -> np.ndarray:
    """Positions sorting entries by (topic, doc, run): one int64 key (each is distinct) argsorted,
    or a three-key lexsort when the key would not fit in 63 bits."""
    if len(topic) == 0:
        return np.zeros(0, dtype=np.int64)
    docs, topics = int(doc.max()) + 1, int(topic.max()) + 1
    if topics * docs * runs >= 1 << 62:
        return np.lexsort((run, doc, topic))
    return np.argsort((topic * docs + doc) * runs + run, kind="stable")


def apply_budget(
    pool: Pool, order: np.ndarray, *, budget: int | None = None, floor: int = 0
) -> pd.DataFrame:
    """The pool's pairs with their judging ``order``, cut to ``budget`` pairs per topic.

    ``order`` (1 = first within the topic) is aligned with ``pool.pairs``. Every run's top
    ``floor`` documents come first (in ``order`` among themselves) and are always kept, even when
    they alone exceed the budget; the rest of the budget follows ``order``. The result is sorted
    by topic then order, with ``order`` renumbered 1..n within each topic and a boolean ``floor``
    column. Raises InputError for a budget below 1 or a negative floor.
    """
    rows, renumbered, in_floor = budget_rows(pool, order, budget=budget, floor=floor)
    result = pool.pairs.iloc[rows].reset_index(drop=True)
    result["floor"] = in_floor
    result["order"] = renumbered
    return result


def budget_rows(pool: Pool, order: np.ndarray, *, budget: int | None = None, floor: int = 0
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`apply_budget` without pandas: the rows of ``pool.pairs`` it keeps, in its order,
    with their renumbered order and whether they are in the floor."""
    if budget is not None and budget < 1:
        raise InputError(f"budget must be at least 1, got {budget}")
    if floor < 0:
        raise InputError(f"floor must not be negative, got {floor}")
    in_floor = np.zeros(pool.n_pairs, dtype=bool)
    in_floor[pool.entry_column("pair")[pool.entry_column("rank") <= floor]] = True
    topic = pool.topic_codes()
    rows = np.lexsort((np.asarray(order), ~in_floor, topic))
    renumbered = within(topic[rows]) + 1
    kept = slice(None) if budget is None else in_floor[rows] | (renumbered <= budget)
    return rows[kept], renumbered[kept], in_floor[rows][kept]


def pool_table(pool: Pool, rows: np.ndarray, order: np.ndarray, **extra: np.ndarray
               ) -> pa.Table:
    """The pool file's rows as an Arrow table (no pandas): ``topic doc order best_rank runs``
    of the pairs at ``rows`` with their judging ``order``, then the numeric ``extra`` columns
    (aligned with ``rows``) in the order given."""
    index = int_array(np.asarray(rows, dtype=np.int64))
    columns = [take(pool.pair_text("topic"), index), take(pool.pair_text("doc"), index),
               int_array(np.asarray(order, dtype=np.int64)),
               int_array(pool.pair_column("best_rank")[rows]),
               take(pool.pair_text("runs"), index),
               *(int_array(values) for values in extra.values())]  # any numeric dtype
    return pa.Table.from_arrays(columns, names=[*POOL_COLUMNS, *extra])
