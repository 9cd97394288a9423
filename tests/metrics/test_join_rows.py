"""The join's fast paths agree with their plain definitions: ranking topic by topic gives the
label order of ``rank_rows``, and the row-index views of a Ranking equal its boolean masks."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st
from pooljudge.metrics.join import Labelled, Ranking, rank
from pooljudge.metrics.qrels_lookup import Qrels

from pooljudge.kernels.ranking import rank_rows

SCORES = [0.0, -0.0, 1.0, 1.0 + 1e-12, 2.5, 16777217.0, 16777216.0, -3.0]


def _labelled(rows: list[tuple[int, int, int, int]], grouped: bool) -> Labelled:
    """(topic, doc, score index, label) rows; grouped: sorted by topic (a block of a run)."""
    if grouped:
        rows = sorted(rows, key=lambda row: row[0])
    seen: set[tuple[int, int]] = set()
    rows = [r for r in rows if (r[0], r[1]) not in seen and not seen.add((r[0], r[1]))]
    topic = np.asarray([r[0] for r in rows], dtype=np.int64)
    docs = pa.array([f"d{r[1]:03d}" if r[1] % 3 else f"D{r[1]}" for r in rows], pa.string())
    scores = np.asarray([SCORES[r[2]] for r in rows], dtype=np.float64)
    labels = np.asarray([r[3] for r in rows], dtype=np.int64)
    return Labelled(topic, labels, scores, docs, np.unique(topic), 0)


def _qrels(n_topics: int) -> Qrels:
    """Stand-in qrels: only their topic count matters to ``rank``."""
    nothing = np.zeros(0, dtype=np.int64)
    return Qrels(topics=pa.array([str(t) for t in range(n_topics)]), topic_of_row=nothing,
                 docs=pa.array([], pa.string()), labels=nothing,
                 offsets=np.zeros(n_topics + 1, dtype=np.int64), labels_by_topic=nothing,
                 doc_hash=nothing.astype(np.uint64), hash_keys=nothing.astype(np.uint64),
                 hash_rows=None, hash_keys_unique=True)


ROWS = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 30), st.integers(0, len(SCORES) - 1),
                          st.integers(-1, 2)), max_size=80)


@settings(max_examples=150, deadline=None)
@given(ROWS, st.booleans(), st.sampled_from(["9", "10"]))
def test_rank_orders_labels_as_rank_rows(rows, grouped, compat):
    run = _labelled(rows, grouped)
    ranking = rank(_qrels(5), run, compat=compat)
    precision = "double" if compat == "10" else "single"
    order = rank_rows(run.topic, run.scores, run.docs, precision=precision)
    assert ranking.labels.tolist() == run.labels[order].tolist()
    assert ranking.returned.tolist() == np.bincount(run.topic, minlength=5).tolist()


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 6), max_size=8), st.integers(0, 2**32 - 1),
       st.integers(1, 7), st.integers(1, 2))
def test_row_views_equal_the_masks(returned, seed, k, rel):
    offsets = np.concatenate(([0], np.cumsum(returned))).astype(np.int64)
    labels = np.random.default_rng(seed).integers(-1, 3, size=int(offsets[-1]))
    ranking = Ranking(qrels=_qrels(len(returned)), offsets=offsets, labels=labels,
                      run_only_topics=0)
    rows = np.arange(len(labels))
    assert ranking.top_rows(k).tolist() == np.flatnonzero(ranking.top(k)).tolist()
    assert ranking.topic_of(rows).tolist() == ranking.topic.tolist()
    assert ranking.rank_of(rows).tolist() == ranking.rank.tolist()
    assert ranking.hits(rel).tolist() == np.flatnonzero(labels >= rel).tolist()
    assert ranking.hits(rel, k).tolist() == np.flatnonzero((labels >= rel)
                                                           & ranking.top(k)).tolist()
