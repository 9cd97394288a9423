"""Prels bound to prepared qrels: the sampled-judgment input of the estimators.

Prels (:func:`pooljudge.formats.trec.read_prels`) list every pooled (topic, doc) pair with its
label (empty when the pair was not sampled or not judged), its stratum and its first-order
inclusion probability π. :func:`bind_prels` prepares them once for any number of runs: a key
index that :func:`pooljudge.metrics.join.label` looks each run row up in (the joined
:class:`~pooljudge.metrics.join.Ranking` then carries, per ranked document, its prels row, or -1
for a
document outside the pool), the rows' topics in the qrels' topic order, and the cells
(topic, stratum) the estimators aggregate over.

Each row also has a ``weight``: 1 for a judged row, 0 for a row without a label. A bootstrap
replicate (:meth:`Prels.reweighted`) changes the weights of the judged rows to their
multiplicities in a resample within each cell; a simulation may set them to 0/1 to draw a
sample from complete judgments. Every estimator reads the sample through the weights only.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypeAlias, TypeVar

import numpy as np

from pooljudge.formats.prels import PrelsColumns, read_prels_columns
from pooljudge.formats.trec import QrelsColumns, qrels_columns
from pooljudge.kernels import index_in, numpy_of

if TYPE_CHECKING:
    import pandas as pd
    from pooljudge.metrics.qrels_lookup import Qrels

__all__ = ["Prels", "bind_prels", "load_prels"]

T = TypeVar("T")
PrelsSource: TypeAlias = "pd.DataFrame | PrelsColumns | str | os.PathLike[str]"


@dataclass(frozen=True)
class Prels:
    """Prels as arrays over their rows (file order), bound to one prepared qrels.

    ``index``: the rows as a :class:`~pooljudge.metrics.join.Qrels` whose labels are the row
    numbers (a
    lookup, nothing else); ``index_topic``: per qrels topic, its topic index in ``index`` (-1 when
    the prels do not have it). ``topic``: per row, its qrels topic index (-1 when the qrels do not
    have the topic: such rows count nowhere). ``label`` (int64; ``missing`` where empty),
    ``stratum`` (int64 >= 1), ``inclusion`` (π), ``weight`` (see the module docstring), ``cell``
    (per row, its (topic, stratum) cell, dense from 0), ``cell_topic`` (per cell, its qrels topic
    index) and ``pooled`` (per cell, its number of rows N).
    """

    index: Qrels
    index_topic: np.ndarray
    n_topics: int
    topic: np.ndarray
    label: np.ndarray
    stratum: np.ndarray
    inclusion: np.ndarray
    weight: np.ndarray
    cell: np.ndarray
    cell_topic: np.ndarray
    pooled: np.ndarray
    missing: int
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def judged(self) -> np.ndarray:
        """Per row, whether it has a label."""
        return self.cached("judged", lambda: self.label != self.missing)

    @property
    def sampled(self) -> np.ndarray:
        """Per cell, the judged rows n (the sum of their weights)."""
        return self.cached("sampled", lambda: self.per_cell(self.weight * self.judged))

    def per_cell(self, values: np.ndarray) -> np.ndarray:
        """Sum ``values`` (an array over rows) per cell."""
        return np.bincount(self.cell, weights=values, minlength=len(self.pooled))

    def per_topic(self, values: np.ndarray) -> np.ndarray:
        """Sum ``values`` (an array over rows) per qrels topic (rows of other topics left out)."""
        kept = self.topic >= 0
        return np.bincount(self.topic[kept], weights=values[kept], minlength=self.n_topics)

    def cell_fraction(self) -> np.ndarray:
        """Per row, p = n / N of its cell: the sampled share of its stratum (0 when none)."""
        def compute() -> np.ndarray:
            with np.errstate(divide="ignore", invalid="ignore"):
                return (self.sampled / self.pooled)[self.cell]
        return self.cached("fraction", compute)

    def reweighted(self, weight: np.ndarray) -> Prels:
        """The same prels with other row weights (a bootstrap replicate, a simulated draw)."""
        return replace(self, weight=np.asarray(weight, dtype=np.float64), _cache={})

    def cached(self, key: Hashable, compute: Callable[[], T]) -> T:
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]


def load_prels(prels: PrelsSource) -> pd.DataFrame | PrelsColumns:
    """A path's prels read as arrays (:func:`~pooljudge.formats.prels.read_prels_columns`, no
    pandas), ready for :func:`bind_prels`; a frame or columns pass through."""
    return read_prels_columns(prels) if isinstance(prels, (str, os.PathLike)) else prels


def bind_prels(prels: PrelsSource, qrels: Qrels) -> Prels:
    """Prepare prels (a path, read by :func:`~pooljudge.formats.trec.read_prels`, columns read
    by :func:`load_prels`, or a frame ``topic, doc, label, stratum, inclusion``, label NA when
    empty) for runs joined with ``qrels``. Raises InputError for a bad file or a pair listed
    twice."""
    from pooljudge.metrics.qrels_lookup import UNJUDGED

    prels = load_prels(prels)
    if isinstance(prels, PrelsColumns):
        columns = prels
        rows = np.arange(len(columns.label), dtype=np.int64)
        keys = QrelsColumns(columns.topic, columns.doc, rows, columns.doc_hash)
        labels = np.where(columns.judged, columns.label, UNJUDGED)
        return _bind(keys, labels, columns.stratum, columns.inclusion, qrels)
    import pandas as pd

    rows = np.arange(len(prels), dtype=np.int64)
    keys = qrels_columns(
        pd.DataFrame({"topic": prels["topic"], "doc": prels["doc"], "label": rows}), name="prels")
    label = pd.array(prels["label"], dtype="Int64")
    labels = np.where(label.isna(), UNJUDGED, label.fillna(0).to_numpy(dtype=np.int64))
    return _bind(keys, labels, prels["stratum"].to_numpy(dtype=np.int64),
                 prels["inclusion"].to_numpy(dtype=np.float64), qrels)


def _bind(keys: QrelsColumns, labels: np.ndarray, stratum: np.ndarray, inclusion: np.ndarray,
          qrels: Qrels) -> Prels:
    """:func:`bind_prels` of checked rows: ``keys`` (their labels are the row numbers) and per
    row its label (UNJUDGED when empty), stratum and π."""
    from pooljudge.metrics.qrels_lookup import UNJUDGED, prepare_qrels

    index = prepare_qrels(keys)
    index_topic = numpy_of(index_in(qrels.topics, index.topics), fill=-1).astype(np.int64)
    topic = np.full(len(labels), -1, dtype=np.int64)
    topic[index.labels] = _qrels_topic_of(index, index_topic)[index.topic_of_row]
    width = int(stratum.max(initial=0)) + 1
    cells, cell = np.unique(topic * width + stratum, return_inverse=True)
    judged = labels != UNJUDGED
    return Prels(
        index=index, index_topic=index_topic, n_topics=qrels.n_topics, topic=topic,
        label=labels, stratum=stratum, inclusion=inclusion,
        weight=judged.astype(np.float64), cell=cell.astype(np.int64),
        cell_topic=cells // width, pooled=np.bincount(cell, minlength=len(cells)).astype(float),
        missing=UNJUDGED,
    )


def _qrels_topic_of(index: Qrels, index_topic: np.ndarray) -> np.ndarray:
    """Per topic of ``index``, its qrels topic index (-1 when the qrels lack it)."""
    of = np.full(index.n_topics, -1, dtype=np.int64)
    known = index_topic >= 0
    of[index_topic[known]] = np.flatnonzero(known)
    return of
