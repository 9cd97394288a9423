"""PyTerrier's (and ir_measures') frames: the one place their column names are recognised.

PyTerrier's data model names a ranking ``qid, docno, score, rank`` (``rank`` from 0, best
first), its queries ``qid, query`` and its qrels ``qid, docno, label``; ir_measures and
ir_datasets name qrels ``query_id, doc_id, relevance`` and runs ``query_id, doc_id, score``.
pooljudge's frames name the same things ``topic, doc, score`` and ``topic, doc, label``, and
topics ``id, title, description, narrative``.

:func:`recognise_columns` renames the other spellings to pooljudge's (the readers of frames,
:func:`pooljudge.formats.trec.run_columns` and ``qrels_columns``, and ``build_pool``'s
``exclude`` call it); a column already named the pooljudge way wins over an alias, and a rank
column is ignored, as trec_eval ignores a run's ranks (the order is score descending, ties by
document id descending). The ``to_pyterrier_*`` functions go the other way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pooljudge.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ALIASES", "recognise_columns", "to_pyterrier_pool", "to_pyterrier_qrels",
           "to_pyterrier_run", "to_pyterrier_topics"]

ALIASES: dict[str, tuple[str, ...]] = {
    "topic": ("qid", "query_id"),
    "doc": ("docno", "doc_id"),
    "label": ("relevance",),
}
"""pooljudge's column name -> the names PyTerrier, ir_measures and ir_datasets give it."""


def recognise_columns(frame: pd.DataFrame, wanted: Sequence[str], *, name: str = "frame"
                      ) -> pd.DataFrame:
    """``frame`` with each of the ``wanted`` columns it lacks taken from its alias (a renamed
    shallow copy; the frame itself when nothing is renamed). InputError naming ``name`` when a
    missing column has two aliases present (``qid`` and ``query_id``): which one is meant is
    not guessed."""
    renames: dict[str, str] = {}
    for column in wanted:
        if column in frame.columns:
            continue
        present = [alias for alias in ALIASES.get(column, ()) if alias in frame.columns]
        if len(present) > 1:
            raise InputError(f"columns {' and '.join(present)} could both be the {column} "
                             "column: keep one", path=name)
        if present:
            renames[present[0]] = column
    return frame.rename(columns=renames) if renames else frame


def to_pyterrier_run(run: pd.DataFrame) -> pd.DataFrame:
    """A run (``topic, doc, score``, any spelling :func:`recognise_columns` knows) as a
    PyTerrier ranking ``qid, docno, score, rank``: rows in trec_eval's order (topic, score
    descending, doc descending) and ``rank`` from 0 within each topic; extra columns kept."""
    from pooljudge.kernels.ranking import rank_run

    run = recognise_columns(run, ("topic", "doc", "score"), name="run")
    _require(run, ("topic", "doc", "score"), "run")
    ranked = rank_run(run.drop(columns=[c for c in ("rank",) if c in run.columns]))
    ranked["rank"] = ranked["rank"].to_numpy() - 1
    return _pyterrier_names(ranked, ("qid", "docno", "score", "rank"))


def to_pyterrier_qrels(qrels: pd.DataFrame) -> pd.DataFrame:
    """Qrels (``topic, doc, label``) as PyTerrier's ``qid, docno, label`` (label int64)."""
    qrels = recognise_columns(qrels, ("topic", "doc", "label"), name="qrels")
    _require(qrels, ("topic", "doc", "label"), "qrels")
    frame = _pyterrier_names(qrels, ("qid", "docno", "label"))
    return frame.astype({"label": "int64"})


def to_pyterrier_topics(topics: pd.DataFrame) -> pd.DataFrame:
    """Topics (``id, title`` and optionally ``description, narrative``) as PyTerrier's queries
    ``qid, query``: the query is the title, as PyTerrier's TREC topic readers take it; the
    description and narrative are kept under their own names."""
    _require(topics, ("id", "title"), "topics")
    frame = topics.rename(columns={"id": "qid", "title": "query"})
    frame["qid"] = frame["qid"].astype(str)
    rest = [c for c in frame.columns if c not in ("qid", "query")]
    return frame[["qid", "query", *rest]].reset_index(drop=True)


def to_pyterrier_pool(pool: pd.DataFrame) -> pd.DataFrame:
    """A pool (``topic, doc, ...``) as a PyTerrier frame of documents to score: ``qid, docno``
    then the pool's other columns (order, best_rank, runs...), in the pool's row order."""
    _require(pool, ("topic", "doc"), "pool")
    return _pyterrier_names(pool, ("qid", "docno"))


def _pyterrier_names(frame: pd.DataFrame, first: tuple[str, ...]) -> pd.DataFrame:
    """``frame`` with topic/doc named qid/docno (as text), ``first`` leading."""
    renamed = frame.rename(columns={"topic": "qid", "doc": "docno"})
    renamed = renamed.astype({"qid": str, "docno": str})
    rest = [c for c in renamed.columns if c not in first]
    return renamed[[*first, *rest]].reset_index(drop=True)


def _require(frame: pd.DataFrame, columns: tuple[str, ...], name: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)}", path=name)
