"""Retrieval logs (:class:`pooljudge.formats.logs.Logs`) turned into what evaluation reads:
runs per configuration and index version, topics, topic groups, and latency per run.

- **Runs** (:func:`log_runs`): one run per ``config@index_version`` (``default`` without a
  config, no ``@`` part without an index version), in TREC's ``topic doc rank score`` form.
  A query logged more than once for the same run keeps its first retrieval (production traffic
  repeats queries; a run holds one ranking per topic); a document listed twice in one result
  list keeps its best rank. Ranks are the logged ones. trec_eval orders by score (ties by
  document id, descending), so scores must say the same as ranks: a line without scores gets
  ``s = R + 1 - rank`` (R: the line's largest rank), and so does a line whose logged scores
  order its results differently from its ranks (a reranker logging first-stage scores), with a
  warning. Each of these is counted in a warning, never silent.
- **Topics, topic groups, strata, a selection of queries**: :mod:`pooljudge.metrics.log_queries`.
- **Latency**: :func:`pooljudge.metrics.latency.latency_table`.

The codes every conversion starts from (:class:`~pooljudge.metrics.log_index.LogIndex`,
:class:`~pooljudge.metrics.log_index.Codes`) and ``run_names`` are in
:mod:`pooljudge.metrics.log_index`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
from pooljudge.metrics.log_index import (
    LogIndex,
    arrow_strings,
    chunk_hashes,
    string_column,
    strings_at,
)

from pooljudge.formats.logs import Logs

__all__ = ["RUN_COLUMNS", "LogRuns", "log_runs"]

RUN_COLUMNS = ["topic", "doc", "rank", "score"]
_WINDOW = 16  # result lists up to this long are checked for repeated documents without sorting


@dataclass(frozen=True)
class LogRuns:
    """The runs of a log, ready to be taken one at a time (:meth:`run`) or all together
    (:meth:`frame`), and the warnings their making gave.

    ``rows``: the log's result rows in output order (by run, topic, rank), repeats dropped;
    ``synthetic``: for each of ``rows``, whether its score is rank-based (else ``logged``);
    ``bounds[i]:bounds[i+1]``: run ``i``'s slice of ``rows``; ``owner``: each result row's
    retrieval, ``topic_code``: each retrieval's topic in ``topics``.
    """

    names: list[str]
    topics: pd.Index
    rows: np.ndarray
    synthetic: np.ndarray
    logged: np.ndarray
    bounds: np.ndarray
    owner: np.ndarray
    topic_code: np.ndarray
    doc: pa.ChunkedArray
    rank: np.ndarray
    warnings: list[str]

    def run(self, i: int, start: int = 0, stop: int | None = None) -> pd.DataFrame:
        """Run ``i`` (its rows ``start:stop``) as a tidy frame ``topic, doc, rank, score``
        (topic categorical, doc ``string[pyarrow]``)."""
        size = self.bounds[i + 1] - self.bounds[i]
        stop = size if stop is None else min(stop, size)
        part = slice(self.bounds[i] + start, self.bounds[i] + stop)
        rows = self.rows[part]
        topic = pd.Categorical.from_codes(self.topic_code[self.owner[rows]],
                                          categories=self.topics)
        doc = self.doc.take(pa.array(rows))
        rank = self.rank[rows]
        return pd.DataFrame({"topic": topic, "doc": string_column(doc), "rank": rank,
                             "score": _scores(self.logged[rows], self.synthetic[part],
                                              self.owner[rows], rank)}, copy=False)

    def chunks(self, i: int, size: int = 1 << 18) -> Iterator[pd.DataFrame]:
        """Run ``i`` as consecutive frames of at most ``size`` rows (one in memory at a time);
        an empty run gives one empty frame."""
        total = int(self.bounds[i + 1] - self.bounds[i])
        for start in range(0, max(total, 1), size):
            yield self.run(i, start, start + size)

    def runs(self) -> Iterator[tuple[str, pd.DataFrame]]:
        """(name, frame) for every run, one frame at a time."""
        for i, name in enumerate(self.names):
            yield name, self.run(i)

    def frame(self) -> pd.DataFrame:
        """All runs as one tidy frame ``run, topic, doc, rank, score``."""
        frames = [frame.assign(run=name) for name, frame in self.runs()]
        if not frames:
            return pd.DataFrame(columns=["run", *RUN_COLUMNS])
        return pd.concat(frames, ignore_index=True)[["run", *RUN_COLUMNS]]


def log_runs(logs: Logs, index: LogIndex | None = None) -> LogRuns:
    """The runs of ``logs``, repeats dropped and scores made consistent with ranks (see the
    module's docstring); vectorised over all result rows. ``index``: :meth:`LogIndex.of`."""
    retrievals, results = logs.retrievals, logs.results
    index = index or LogIndex.of(logs)
    run_code, topic_code = index.runs.codes, index.topics.codes
    names, topics = index.runs.texts(), index.topics.values
    warnings: list[str] = []
    first = _first_of_each(run_code, topic_code, retrievals["line"].to_numpy(), warnings)
    order = first[np.lexsort((topic_code[first], run_code[first]))]
    lengths = retrievals["results"].to_numpy()
    rows = _expand(order, lengths)
    rank = results["rank"].to_numpy()
    owner = results["retrieval"].to_numpy()
    rows = _sorted_by_rank(rows, owner, rank)
    doc = arrow_strings(results["doc"])
    kept = np.zeros(len(retrievals), dtype=bool)
    kept[first] = True
    rows = _without_repeated_docs(rows, owner, rank, doc, retrievals["line"].to_numpy(), kept,
                                  warnings)
    logged = results["score"].to_numpy()
    synthetic = _synthetic_rows(rows, owner, logged, doc, warnings)
    bounds = np.searchsorted(run_code[owner[rows]], np.arange(len(names) + 1))
    return LogRuns(list(map(str, names)), pd.Index(pd.arrays.ArrowExtensionArray(topics)),
                   rows, synthetic, logged, bounds, owner, topic_code, doc, rank, warnings)


def _first_of_each(run_code: np.ndarray, topic_code: np.ndarray, lines: np.ndarray,
                   warnings: list[str]) -> np.ndarray:
    """The first retrieval of each (run, topic), in file order; a warning for the repeats."""
    key = run_code.astype(np.int64) * (int(topic_code.max(initial=0)) + 1) + topic_code
    repeat = pd.Series(key, copy=False).duplicated().to_numpy()  # hashing, in file order
    if repeat.any():
        warnings.append(f"{int(repeat.sum())} retrieval(s) repeat a query already logged for "
                        f"the same run (first repeat on line {lines[np.argmax(repeat)]}): each "
                        "run keeps the first retrieval of each query")
    return np.flatnonzero(~repeat)


def _expand(order: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The result rows of the retrievals ``order``, each retrieval's rows in file order
    (int32 while the rows fit, int64 beyond)."""
    starts = np.cumsum(lengths) - lengths
    sizes = lengths[order]
    total = int(sizes.sum())
    kind = np.int32 if int(lengths.sum()) < 2**31 else np.int64
    rows: np.ndarray = np.arange(total, dtype=kind)
    rows += np.repeat((starts[order] - (np.cumsum(sizes) - sizes)).astype(kind), sizes)
    return rows


def _sorted_by_rank(rows: np.ndarray, owner: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """``rows`` with each retrieval's rows in rank order (only unsorted retrievals sorted)."""
    late = (owner[1:] == owner[:-1]) & (rank[1:] < rank[:-1])  # in file order: no copies
    if not late.any():
        return rows
    unsorted = np.zeros(int(owner.max()) + 1, dtype=bool)
    unsorted[owner[1:][late]] = True
    o = owner[rows]
    part = np.flatnonzero(unsorted[o])
    group = np.cumsum(np.r_[True, o[1:] != o[:-1]])[part]  # each list's place in ``rows``
    rows = rows.copy()
    rows[part] = rows[part][np.lexsort((rank[rows[part]], group))]
    return rows


def _without_repeated_docs(rows: np.ndarray, owner: np.ndarray, rank: np.ndarray,
                           doc: pa.ChunkedArray, lines: np.ndarray, kept: np.ndarray,
                           warnings: list[str]) -> np.ndarray:
    """``rows`` without a document's worse-ranked listings in the same result list, found in
    file order (hashes give the candidate pairs, the strings confirm them); a warning for what
    was dropped. ``kept``: per retrieval, whether it is in the runs."""
    if not len(rows):
        return rows
    first, second = _repeated_pairs(owner, rank, chunk_hashes(doc))
    pairs = kept[owner[first]]
    first, second = first[pairs], second[pairs]
    if len(first):
        same = strings_at(doc, first) == strings_at(doc, second)
        first, second = first[same], second[same]
    if not len(first):
        return rows
    worse = np.unique(np.where(rank[first] > rank[second], first, second))
    dropped = np.zeros(len(owner), dtype=bool)
    dropped[worse] = True
    warnings.append(f"{len(worse)} result(s) list a document already listed higher for the "
                    f"same query (first on line {lines[owner[worse].min()]}): dropped")
    return rows[~dropped[rows]]


def _repeated_pairs(owner: np.ndarray, rank: np.ndarray, hashes: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of result rows of one list with the same document hash: neighbours up to
    ``_WINDOW`` apart compared directly, longer lists sorted by hash."""
    firsts, seconds = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    starts = np.r_[0, np.flatnonzero(owner[1:] != owner[:-1]) + 1]
    sizes = np.diff(np.r_[starts, len(owner)])
    for d in range(1, min(int(sizes.max()), _WINDOW + 1)):
        hit = np.flatnonzero((owner[d:] == owner[:-d]) & (hashes[d:] == hashes[:-d]))
        firsts.append(hit)
        seconds.append(hit + d)
    if sizes.max() > _WINDOW + 1:
        long_rows = np.flatnonzero(np.repeat(sizes > _WINDOW + 1, sizes))
        order = long_rows[np.lexsort((rank[long_rows], hashes[long_rows], owner[long_rows]))]
        hit = np.flatnonzero((owner[order][1:] == owner[order][:-1])
                             & (hashes[order][1:] == hashes[order][:-1]))
        firsts.append(order[hit])
        seconds.append(order[hit + 1])
    return np.concatenate(firsts), np.concatenate(seconds)


def _synthetic_rows(rows: np.ndarray, owner: np.ndarray, logged: np.ndarray,
                    doc: pa.ChunkedArray, warnings: list[str]) -> np.ndarray:
    """For each of ``rows``, whether its list needs rank-based scores: it logs none, or its
    logged scores order it differently from its ranks (descending, ties by document id
    descending, as trec_eval orders)."""
    o = owner[rows]
    s = logged[rows]
    wrong = (o[1:] == o[:-1]) & ~(s[1:] < s[:-1])
    ties = np.flatnonzero(wrong & (s[1:] == s[:-1]))
    if len(ties):  # equal scores: trec_eval puts the larger document id first
        wrong[ties] = ~(strings_at(doc, rows[ties]) > strings_at(doc, rows[ties + 1]))
    unscored = np.isnan(s)
    del s
    bad = np.zeros(int(owner.max(initial=0)) + 1, dtype=bool)
    bad[o[1:][wrong & ~unscored[1:]]] = True
    if bad.any():
        warnings.append(f"{int(bad.sum())} retrieval(s) log scores that order their results "
                        "differently from their ranks: their scores were replaced by "
                        "rank-based ones, so evaluation follows the logged ranks")
    return unscored | bad[o]


def _scores(scores: np.ndarray, synthetic: np.ndarray, owner: np.ndarray, rank: np.ndarray
            ) -> np.ndarray:
    """``scores`` with the ``synthetic`` rows set to ``R + 1 - rank`` (R: the largest rank of
    their list; a list's rows are contiguous and all synthetic or none)."""
    replace = np.flatnonzero(synthetic)
    if len(replace):
        part_owner, part_rank = owner[replace], rank[replace].astype(np.float64)
        starts = np.r_[0, np.flatnonzero(part_owner[1:] != part_owner[:-1]) + 1]
        biggest = np.maximum.reduceat(part_rank, starts)
        scores[replace] = np.repeat(biggest, np.diff(np.r_[starts, len(replace)])) + 1 - part_rank
    return scores

