"""Depth-k pools: every run's top k (trec_eval ranking order), merged per (topic, document).

A :class:`Pool` keeps two aligned views, both in a canonical order that does not depend on the
order of the input files or of their lines:

- ``pairs``: one row per pooled (topic, document) with ``topic, doc, best_rank, runs, n_runs``,
  sorted by topic (numeric ids numerically, see :func:`topic_order`) then document id (bytes);
- ``entries``: one row per (run, topic, document) inside a run's top k with ``pair`` (row of
  ``pairs``), ``run`` (index into ``run_names``, which is sorted), ``rank`` (1-based), ``score`` and
  ``norm`` (the score min-max normalised within the run's top k for the topic: ``(s - min) /
  (max - min)``, 1.0 when all of them are equal); sorted by pair then run.

Runs are consumed one at a time: each is cut to the rows that can reach its top k (a numeric
sort on scores, :func:`top_candidates`; readers may cut earlier) before the next is read, so
memory holds the candidates, not whole runs. The rest is integer work on dictionary codes
(Arrow/numpy); there is no Python loop per document.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pooljudge.errors import InputError
from pooljudge.formats.columnar import int_array, numpy_of
from pooljudge.formats.pyterrier import recognise_columns
from pooljudge.formats.ranking import byte_order_codes, rank_positions, score_keys
from pooljudge.formats.trec import RunColumns, run_columns

__all__ = ["Pool", "apply_budget", "build_pool", "top_candidates", "topic_order"]

RunInput = RunColumns | pd.DataFrame

@dataclass(frozen=True)
class Pool:
    """A depth-k pool: pooled pairs, the run entries behind them, and the runs' names."""

    pairs: pd.DataFrame
    entries: pd.DataFrame
    run_names: tuple[str, ...]
    depth: int

    @property
    def topics(self) -> list[str]:
        """The pooled topics in canonical order."""
        return list(pd.unique(self.pairs["topic"]))

    def topic_sizes(self) -> pd.Series:
        """Number of pooled documents per topic, indexed by topic in canonical order."""
        return self.pairs.groupby("topic", sort=False).size()

    def subset(self, keep: np.ndarray) -> Pool:
        """The pool restricted to the pairs where the boolean mask ``keep`` is true."""
        keep = np.asarray(keep, dtype=bool)
        renumber = np.cumsum(keep) - 1
        pair = self.entries["pair"].to_numpy()
        entries = self.entries.loc[keep[pair]].reset_index(drop=True)
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
        columns = run_columns(run, name=name) if isinstance(run, pd.DataFrame) else run
        tops[name] = _candidates(columns, depth)
    if not tops:
        raise InputError("no runs to pool")
    names = tuple(sorted(tops))
    if exclude is not None:  # PyTerrier's qid, docno and ir_measures' names too
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
    return RunColumns(run.topic.take(rows), run.doc.take(rows), run.score[keep], doc_hash)


def _candidates(run: RunColumns, depth: int) -> _Top:
    """A run's :func:`top_candidates` with plain (decoded) ids."""
    top = top_candidates(run, depth)
    doc = top.doc.dictionary_decode() if isinstance(top.doc, pa.DictionaryArray) else top.doc
    return _Top(top.topic.dictionary_decode(), doc, np.asarray(top.score, dtype=np.float64))


def _byte_codes(values: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Per row, the position of its id among the distinct ids in byte order; and those ids."""
    encoded = pc.dictionary_encode(values)
    ids = encoded.dictionary.take(pc.array_sort_indices(encoded.dictionary))
    return byte_order_codes(encoded), ids


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
    entries = pd.DataFrame({"run": run[keep], "topic": to_canonical[topic_codes[keep]],
                            "doc": doc_codes[keep], "rank": rank[rank <= depth],
                            "score": score[keep]})
    entries["norm"] = _min_max(group[keep], entries["score"].to_numpy())
    if exclude is not None and len(entries):
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


def _exclude(entries: pd.DataFrame, judged: pd.DataFrame, topic_ids: pa.Array,
             to_canonical: np.ndarray, doc_ids: pa.Array) -> pd.DataFrame:
    """Entries whose (topic, doc) is not among ``judged``'s pairs."""
    topic = pc.index_in(pa.array(judged["topic"].astype(str).to_numpy(dtype=object),
                                 type=pa.string()), value_set=topic_ids)
    doc = pc.index_in(pa.array(judged["doc"].astype(str).to_numpy(dtype=object),
                               type=pa.string()), value_set=doc_ids)
    known = pc.and_(pc.is_valid(topic), pc.is_valid(doc)).to_numpy(zero_copy_only=False)
    width = max(len(doc_ids), 1)
    judged_keys = (to_canonical[topic.to_numpy(zero_copy_only=False)[known].astype(np.int64)]
                   * width + doc.to_numpy(zero_copy_only=False)[known].astype(np.int64))
    keys = entries["topic"].to_numpy() * width + entries["doc"].to_numpy()
    return entries.loc[~np.isin(keys, judged_keys)].reset_index(drop=True)


def _group(entries: pd.DataFrame, names: tuple[str, ...], depth: int, canonical: list[str],
           doc_ids: pa.Array) -> Pool:
    """Sort entries by (topic, doc, run) and reduce each pair's group to one pool row."""
    topic, doc, run = (entries[c].to_numpy() for c in ("topic", "doc", "run"))
    order = np.lexsort((run, doc, topic))
    entries = entries.iloc[order].reset_index(drop=True)
    topic, doc, run = topic[order], doc[order], run[order]
    new_pair = np.r_[True, (topic[1:] != topic[:-1]) | (doc[1:] != doc[:-1])][: len(order)]
    starts = np.flatnonzero(new_pair)
    # A pair's first run is written bare, the others as ",name": concatenation joins them.
    bare = np.array(names, dtype=object)
    comma = np.array([f",{name}" for name in names], dtype=object)
    pieces = np.where(new_pair, bare[run], comma[run])
    joined = np.add.reduceat(pieces, starts) if len(starts) else bare[:0]
    pairs = pd.DataFrame(
        {
            "topic": np.array(canonical, dtype=object)[topic[starts]],
            "doc": doc_ids.take(pa.array(doc[starts], type=pa.int64())).to_numpy(
                zero_copy_only=False).astype(object),
            "best_rank": np.minimum.reduceat(entries["rank"].to_numpy(), starts)
            if len(starts) else np.zeros(0, dtype=np.int64),
            "runs": joined,
            "n_runs": np.diff(np.r_[starts, len(order)]).astype(np.int64),
        }
    )
    entries = entries.drop(columns=["topic", "doc"]).assign(pair=np.cumsum(new_pair) - 1)
    return Pool(pairs, entries[["pair", "run", "rank", "score", "norm"]], names, depth)


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
    if budget is not None and budget < 1:
        raise InputError(f"budget must be at least 1, got {budget}")
    if floor < 0:
        raise InputError(f"floor must not be negative, got {floor}")
    pairs = pool.pairs
    in_floor = np.zeros(len(pairs), dtype=bool)
    entries = pool.entries
    in_floor[entries["pair"].to_numpy()[entries["rank"].to_numpy() <= floor]] = True
    topic_codes = pd.Categorical(pairs["topic"], categories=pool.topics).codes
    rows = np.lexsort((np.asarray(order), ~in_floor, topic_codes))
    result = pairs.iloc[rows].reset_index(drop=True)
    result["floor"] = in_floor[rows]
    result["order"] = result.groupby("topic", sort=False).cumcount().to_numpy() + 1
    if budget is not None:
        result = result.loc[result["floor"] | (result["order"] <= budget)].reset_index(drop=True)
    return result
