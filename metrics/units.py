"""Evaluation units: runs and qrels moved between the chunk (passage) and the document level.

A unit map (:mod:`pooljudge.formats.units`) says which document each chunk belongs to. Three
conversions, all vectorised (numpy and Arrow kernels, no Python loop per row):

- :func:`runs_to_documents`: a chunk run as a document run. Chunks are ranked in trec_eval's
  order (score descending, chunk id descending); a document takes the place of its best
  chunk, the first of its chunks in that order, with that chunk's score; its later chunks are
  dropped. The result is itself a run, ranked again in trec_eval's order (score descending,
  document id descending), so evaluating it is exactly evaluating that document run: where two
  documents' best chunks tie on score, the document ids decide, as trec_eval decides.
- :func:`qrels_to_chunks`: document qrels applied to chunks. ASSUMPTION: every chunk of a
  judged document gets the document's label — a chunk is relevant exactly when its document
  is, which overstates the relevant chunks of a long document with one relevant passage.
  Judged documents with no chunk in the map have no chunk to give their label to (a warning
  counts them).
- :func:`qrels_to_documents`: chunk qrels aggregated to documents. A document is judged when
  at least one of its chunks is; its label is the highest of its judged chunks' labels (so
  it is relevant when any chunk is); a document none of whose chunks is judged has no label.
  Unjudged chunks of a judged document are assumed no more relevant than its judged ones (a
  warning counts such documents).

A chunk id missing from the map is an InputError naming the first one (a chunk cannot be
placed in a document by guessing). :func:`level_of` tells the level of a run's or the qrels'
ids from the map.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
import pyarrow as pa

from pooljudge.errors import InputError, UsageError
from pooljudge.formats.columnar import RunColumns
from pooljudge.formats.trec import qrels_columns, run_columns
from pooljudge.formats.units import UnitColumns, unit_columns
from pooljudge.kernels import (
    decode,
    dictionary_encode,
    index_in,
    int_array,
    numpy_of,
    string_hashes,
    take,
)
from pooljudge.kernels.ranking import rank_rows

__all__ = [
    "LEVELS", "LEVEL_NAMES", "Level", "Units", "document_run", "level_of", "prepare_units",
    "qrels_to_chunks", "qrels_to_documents", "run_at_level", "runs_to_documents",
]

Level = Literal["chunk", "doc"]
LEVELS: tuple[Level, ...] = ("chunk", "doc")
LEVEL_NAMES: dict[str, str] = {"chunk": "chunk", "doc": "document"}
Warn = Callable[[str], None]


@dataclass(frozen=True)
class Units:
    """A unit map ready for look-ups: the chunk ids (unique), the distinct document ids, each
    chunk's document (index into ``docs``), and the chunks grouped by document
    (``by_doc[doc_offsets[d]:doc_offsets[d + 1]]`` are document d's chunks, in map order).
    ``names`` is every id once (the chunks, then the documents that are not also chunks), with
    its position among the chunks and among the documents (-1: not one), so that one look-up
    tells both."""

    chunks: pa.Array
    docs: pa.Array
    doc_of: np.ndarray
    doc_offsets: np.ndarray
    names: pa.Array
    chunk_of_name: np.ndarray
    doc_of_name: np.ndarray

    @functools.cached_property
    def by_doc(self) -> np.ndarray:
        """The chunks' positions grouped by document (a stable sort: map order within)."""
        return np.argsort(self.doc_of, kind="stable")


def prepare_units(units: Units | UnitColumns | pd.DataFrame) -> Units:
    """A map (read by :func:`pooljudge.formats.units.read_unit_columns`, or a DataFrame with
    ``chunk, doc``) indexed for the conversions; InputError for a bad frame."""
    if isinstance(units, Units):
        return units
    if isinstance(units, pd.DataFrame):
        units = unit_columns(units)
    encoded = dictionary_encode(decode(units.doc))
    chunks, docs = decode(units.chunk), encoded.dictionary
    doc_of = numpy_of(encoded.indices).astype(np.int64)
    counts = np.bincount(doc_of, minlength=len(docs))
    chunk_as_doc = _positions(chunks, docs)  # a chunk id that is a document id too
    is_chunk = np.zeros(len(docs), dtype=bool)
    is_chunk[chunk_as_doc[chunk_as_doc >= 0]] = True
    only_docs = np.flatnonzero(~is_chunk)
    return Units(chunks=chunks, docs=docs, doc_of=doc_of,
                 doc_offsets=np.concatenate(([0], np.cumsum(counts))),
                 names=pa.concat_arrays([chunks, take(docs, int_array(only_docs))]),
                 chunk_of_name=np.concatenate((np.arange(len(chunks)),
                                               np.full(len(only_docs), -1))),
                 doc_of_name=np.concatenate((chunk_as_doc, only_docs)))


def level_of(ids: pa.Array | pd.Series, units: Units, *, what: str) -> Level:
    """``"chunk"`` when the map knows some of ``ids`` as chunks only, ``"doc"`` when it knows
    some as documents only (ids in neither are ignored here: an unknown chunk is reported by the
    conversion). Ids that are both a chunk and a document decide nothing, unless they are all
    there is: then ``"doc"`` when each such chunk is its own document (either level reads the
    same), else a UsageError. UsageError also when ``what`` (a run, the qrels) mixes chunk-only
    and document-only ids; InputError when the map knows none of them."""
    ids = _strings(ids)
    return _level(ids, *_lookup(ids, units), units, what)


def run_at_level(run: RunColumns, units: Units, level: Level, *, name: str = "run"
                 ) -> RunColumns:
    """``run`` at ``level`` after one look-up of its ids: as it is when its own level
    (:func:`level_of`) is ``level``, a chunk run moved to documents by :func:`document_run`;
    UsageError for a document run at chunk level (a document ranking says nothing of chunks)."""
    as_chunk, as_doc = _lookup(run.doc, units)
    own = _level(run.doc, as_chunk, as_doc, units, f"run {name}")
    if own == level or (level == "chunk" and bool((as_chunk >= 0).all())):
        return run  # (the second: every id is a chunk that is its own document)
    if level == "chunk":
        raise UsageError(f"run {name} ranks documents: it cannot be used at chunk level (its "
                         "ranking says nothing about chunks); use --level doc")
    return _document_run(run, as_chunk, units, name)


def _level(ids: pa.Array, as_chunk: np.ndarray, as_doc: np.ndarray, units: Units,
           what: str) -> Level:
    """:func:`level_of` from the ids' positions among the chunks and the documents."""
    chunk_only = np.flatnonzero((as_chunk >= 0) & (as_doc < 0))
    doc_only = np.flatnonzero((as_doc >= 0) & (as_chunk < 0))
    if len(chunk_only) and len(doc_only):
        raise UsageError(f"{what} mixes chunk ids ({ids[int(chunk_only[0])]}) and document ids "
                         f"({ids[int(doc_only[0])]}) of the unit map: give it at one level")
    if len(chunk_only) or len(doc_only):
        return "chunk" if len(chunk_only) else "doc"
    both = np.flatnonzero(as_chunk >= 0)
    if not len(both):
        raise InputError(f"none of the ids of {what} is a chunk or a document of the unit map "
                         f"(e.g. {ids[0]}): is it the map of this collection?")
    own = units.doc_of[as_chunk[both]] == as_doc[both]
    if not own.all():
        bad = int(both[np.argmax(~own)])
        raise UsageError(f"the level of {what} is ambiguous: each of its ids is both a chunk and "
                         f"a document of the unit map, and chunk {ids[bad]} belongs to another "
                         "document; rename the chunks or the documents so they differ")
    return "doc"


def document_run(run: RunColumns, units: Units, *, name: str = "run") -> RunColumns:
    """The chunk run ``run`` as a document run (module docstring) for scoring or pooling: one
    row per (topic, document) with its best chunk's score, the highest of its chunks' (which
    chunk among equals does not change the score). Rows by topic code, then document; the
    evaluator and the pool rank them. One sort of the rows, no ranking: InputError naming
    ``name`` for a chunk missing from the map."""
    return _document_run(run, _lookup(run.doc, units)[0], units, name)


def _document_run(run: RunColumns, chunk: np.ndarray, units: Units, name: str) -> RunColumns:
    """:func:`document_run` given each row's position among the chunks (-1: not one)."""
    _refuse_unmapped(chunk, run.doc, run.topic, name)
    n_docs = max(len(units.docs), 1)
    keys = numpy_of(run.topic.indices).astype(np.int64) * n_docs + units.doc_of[chunk]
    order = np.argsort(keys)
    ordered = keys[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    score = np.maximum.reduceat(np.asarray(run.score, dtype=np.float64)[order], starts)
    topic = pa.DictionaryArray.from_arrays(
        int_array((ordered[starts] // n_docs).astype(np.int32)), run.topic.dictionary)
    doc = take(units.docs, int_array(ordered[starts] % n_docs))
    return RunColumns(topic, doc, np.ascontiguousarray(score), string_hashes(doc))


def runs_to_documents(runs: pd.DataFrame | RunColumns | Mapping[str, pd.DataFrame | RunColumns],
                      units: Units | UnitColumns | pd.DataFrame) -> pd.DataFrame:
    """Chunk runs at document level (module docstring): per topic, one row per document in
    ranking order with ``topic, doc, score, rank`` (1-based), ``chunk`` (its best chunk) and
    ``chunk_rank`` (that chunk's rank in the chunk run). A run is a frame (``topic, doc,
    score``: ``doc`` holds chunk ids) or RunColumns; a mapping of named runs adds a first column
    ``run``. InputError for a bad run or a chunk missing from the map (the first one)."""
    units = prepare_units(units)
    if isinstance(runs, Mapping):
        frames = [runs_to_documents(run, units).assign(run=name)
                  for name, run in runs.items()]
        frame = pd.concat(frames, ignore_index=True) if frames else _empty_document_run()
        return frame[["run", *frame.columns.drop("run")]]
    if isinstance(runs, pd.DataFrame):
        runs = run_columns(runs, name="run")
    best = _best_chunks(runs, units, "run")
    return pd.DataFrame({
        "topic": _series(best.topic), "doc": _series(best.doc), "score": best.score,
        "rank": best.rank, "chunk": _series(best.chunk), "chunk_rank": best.chunk_rank,
    })


def qrels_to_chunks(qrels: pd.DataFrame, units: Units | UnitColumns | pd.DataFrame, *,
                    warn: Warn | None = None, name: str = "qrels") -> pd.DataFrame:
    """Document qrels (``topic, doc, label``) as chunk qrels: ``topic, doc, label, parent``,
    where ``doc`` is the chunk id (the column the evaluator reads) and ``parent`` its document.

    ASSUMPTION (module docstring): each chunk of a judged document gets the document's label.
    ``warn`` (default :func:`warnings.warn`) hears how many judged documents, relevant ones
    among them, have no chunk in the map.
    """
    units = prepare_units(units)
    qrels_columns(qrels, name=name)  # the checks of any qrels: labels, pairs judged once
    found = _lookup(_strings(qrels["doc"]), units)[1]
    labels = qrels["label"].to_numpy()
    lost = found < 0
    if lost.any():
        _warn(warn, f"{int(lost.sum())} judged document(s) ({int((labels[lost] > 0).sum())} "
              "relevant) have no chunk in the unit map: they have no chunk-level judgment")
    rows = np.flatnonzero(~lost)
    doc = found[rows]
    counts = units.doc_offsets[doc + 1] - units.doc_offsets[doc]
    row_of = np.repeat(rows, counts)
    within = np.arange(len(row_of)) - np.repeat(np.cumsum(counts) - counts, counts)
    chunk = units.by_doc[np.repeat(units.doc_offsets[doc], counts) + within]
    return pd.DataFrame({
        "topic": qrels["topic"].to_numpy(dtype=object)[row_of],
        "doc": _series(take(units.chunks, int_array(chunk))),
        "label": labels[row_of].astype(np.int64),
        "parent": qrels["doc"].to_numpy(dtype=object)[row_of],
    })


def qrels_to_documents(qrels: pd.DataFrame, units: Units | UnitColumns | pd.DataFrame, *,
                       warn: Warn | None = None, name: str = "qrels") -> pd.DataFrame:
    """Chunk qrels (``topic, doc, label``; ``doc`` holds chunk ids) aggregated to documents
    (module docstring): ``topic, doc, label`` (the highest judged chunk's), ``judged_chunks``
    and ``chunks`` (the document's chunks in the map), one row per (topic, document) with a
    judged chunk, by topic (first appearance) then document (map order).

    InputError naming ``name`` and the first chunk missing from the map; ``warn`` (default
    :func:`warnings.warn`) hears how many documents have unjudged chunks.
    """
    units = prepare_units(units)
    qrels_columns(qrels, name=name)
    ids = _strings(qrels["doc"])
    chunk = _lookup(ids, units)[0]
    _refuse_unmapped(chunk, ids, qrels["topic"], name)
    topic_codes, topics = pd.factorize(qrels["topic"].astype(str), sort=False)
    keys = topic_codes.astype(np.int64) * len(units.docs) + units.doc_of[chunk]
    labels = qrels["label"].to_numpy().astype(np.int64)
    order = np.lexsort((labels, keys))
    ordered = keys[order]
    last = np.flatnonzero(np.append(ordered[1:] != ordered[:-1], True))
    first = np.concatenate(([0], last[:-1] + 1))
    doc = ordered[last] % len(units.docs)
    chunks = np.diff(units.doc_offsets)[doc]
    judged = last - first + 1
    partial = int((judged < chunks).sum())
    if partial:
        _warn(warn, f"{partial} of {len(last)} judged document(s) have unjudged chunks: each "
              "takes the highest label of its judged chunks")
    return pd.DataFrame({
        "topic": np.asarray(topics, dtype=object)[ordered[last] // len(units.docs)],
        "doc": _series(take(units.docs, int_array(doc))),
        "label": labels[order][last], "judged_chunks": judged, "chunks": chunks,
    })


# --- internals ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Best:
    """A document run built from chunks, rows in ranking order."""

    topic: pa.DictionaryArray
    doc: pa.Array
    score: np.ndarray
    rank: np.ndarray
    chunk: pa.Array
    chunk_rank: np.ndarray


def _best_chunks(run: RunColumns, units: Units, name: str) -> _Best:
    """Per (topic, document) the first of its chunks in the chunk ranking; the documents then
    ranked in trec_eval's order."""
    ids = decode(run.doc)
    topic_codes = numpy_of(run.topic.indices).astype(np.int64)
    chunk = _lookup(ids, units)[0]
    _refuse_unmapped(chunk, ids, run.topic, name)
    order = rank_rows(topic_codes, run.score, ids)
    chunk_rank = _ranks(topic_codes[order])
    keys = topic_codes[order] * len(units.docs) + units.doc_of[chunk[order]]
    _, first = np.unique(keys, return_index=True)
    rows = order[first]
    doc_codes = units.doc_of[chunk[rows]]
    docs = take(units.docs, int_array(doc_codes))
    ranked = rank_rows(topic_codes[rows], run.score[rows], docs)
    rows = rows[ranked]
    topic = pa.DictionaryArray.from_arrays(int_array(topic_codes[rows].astype(np.int32)),
                                           run.topic.dictionary)
    return _Best(topic=topic, doc=take(docs, int_array(ranked)),
                 score=np.ascontiguousarray(run.score[rows], dtype=np.float64),
                 rank=_ranks(topic_codes[rows]), chunk=take(ids, int_array(rows)),
                 chunk_rank=chunk_rank[first][ranked])


def _ranks(topic_codes: np.ndarray) -> np.ndarray:
    """1-based position of each row within its run of equal topic codes (rows grouped)."""
    n = len(topic_codes)
    starts = np.flatnonzero(np.concatenate(([True], topic_codes[1:] != topic_codes[:-1])))
    lengths = np.diff(np.append(starts, n))
    return np.arange(1, n + 1) - np.repeat(starts, lengths)


def _refuse_unmapped(found: np.ndarray, ids: pa.Array, topics, name: str) -> None:
    """InputError naming the first id (in row order) that the map does not know."""
    missing = found < 0
    if missing.any():
        row = int(np.argmax(missing))
        topic = topics[row] if not isinstance(topics, pd.Series) else topics.iat[row]
        raise InputError(f"chunk {ids[row]} (topic {topic}) is not in the unit map "
                         f"({int(missing.sum())} chunk row(s) are not)", path=name)


def _lookup(ids: pa.Array, units: Units) -> tuple[np.ndarray, np.ndarray]:
    """Per id, its position among the map's chunks and among its documents (-1: not one),
    from one hash look-up (of the dictionary only, for dictionary-encoded ids)."""
    if isinstance(ids, pa.DictionaryArray):
        name = _positions(ids.dictionary, units.names)[numpy_of(ids.indices)]
    else:
        name = _positions(ids, units.names)
    known = name >= 0
    as_chunk = np.where(known, units.chunk_of_name[np.maximum(name, 0)], -1)
    as_doc = np.where(known, units.doc_of_name[np.maximum(name, 0)], -1)
    return as_chunk, as_doc


def _positions(ids: pa.Array, values: pa.Array) -> np.ndarray:
    """Per id, its position in ``values`` (-1 when absent), as int64."""
    return numpy_of(index_in(ids, values), fill=-1).astype(np.int64)


def _strings(values: pa.Array | pd.Series) -> pa.Array:
    """Ids as an Arrow array (a pandas column's values as their text)."""
    if isinstance(values, pd.Series):
        return pa.array(values.astype(str).to_numpy(dtype=object), type=pa.string())
    return values


def _series(values: pa.Array) -> pd.Series:
    return pd.Series(decode(values).to_pandas(), copy=False).astype(object)


def _empty_document_run() -> pd.DataFrame:
    return pd.DataFrame({c: [] for c in ("run", "topic", "doc", "score", "rank", "chunk",
                                         "chunk_rank")})


def _warn(warn: Warn | None, message: str) -> None:
    if warn is None:
        warnings.warn(message, stacklevel=3)
    else:
        warn(message)
