"""Sampled pools (revision 0008): a campaign made from a pool file with ``stratum inclusion
sampled`` columns keeps every pooled pair's stratum and inclusion probability π.

Only the sampled pairs (``sampled = 1``) become ``pair`` rows, with their ``stratum`` and
``inclusion``: they are the campaign's queue, and nothing that claims, counts or times pairs
needs to know about sampling. The pooled-but-unsampled pairs go to ``unsampled_pair`` (ids as
text: their documents need not be in the collection) and come back only through
:func:`pool_sample`, which export reads to write label -1 lines and the prels.

A pool without the three columns is an ordinary pool: :func:`split_sample` hands it back
unchanged and the campaign's pairs keep NULL in both columns.
"""

from __future__ import annotations

from typing import NamedTuple, NoReturn

import numpy as np
import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate.store.common import campaign_row
from pooljudge.annotate.store.models import Document, Pair, Topic, UnsampledPair
from sqlmodel import Session

from pooljudge.errors import InputError
from pooljudge.formats.collection import pool_line_numbers
from pooljudge.formats.files import PathLike
from pooljudge.formats.pool_file import SAMPLE_COLUMNS

__all__ = ["SAMPLE_COLUMNS", "SplitPool", "pool_sample", "split_sample", "unsampled_rows"]



class SplitPool(NamedTuple):
    """A pool's ``queued`` rows (the sampled ones, or all of an ordinary pool) and its
    ``unsampled`` rows (None for an ordinary pool); ``stratum`` and ``inclusion`` are int64 and
    float64 in both when the pool is sampled."""

    queued: pd.DataFrame
    unsampled: pd.DataFrame | None

    @property
    def sampled(self) -> bool:
        """Whether the pool came from a sampling design."""
        return self.unsampled is not None


def split_sample(pool: pd.DataFrame, path: PathLike | None = None) -> SplitPool:
    """The pool split into the pairs to queue and the pooled-but-unsampled ones, checked.

    A pool with none of :data:`SAMPLE_COLUMNS` is ordinary: ``SplitPool(pool, None)``. Else all
    three are needed: ``stratum`` an integer >= 1, ``inclusion`` a number in (0, 1] (read
    exactly: text is parsed as a float, never rounded), ``sampled`` 0 or 1, and at least one
    pair sampled. InputError names the first bad row: ``path:line`` with the pool file's
    ``path``, else ``pool row N`` (counted from 1).
    """
    present = [c for c in SAMPLE_COLUMNS if c in pool.columns]
    if not present:
        return SplitPool(pool, None)
    if len(present) < len(SAMPLE_COLUMNS):
        missing = [c for c in SAMPLE_COLUMNS if c not in present]
        raise InputError(f"a sampled pool needs columns {', '.join(SAMPLE_COLUMNS)}; this one "
                         f"lacks {', '.join(missing)}", path=path)
    stratum = pd.to_numeric(pool["stratum"], errors="coerce").to_numpy(np.float64)
    inclusion = pd.to_numeric(pool["inclusion"], errors="coerce").to_numpy(np.float64)
    sampled = pd.to_numeric(pool["sampled"], errors="coerce").to_numpy(np.float64)
    for bad, what, column in (
            (~(np.isfinite(stratum) & (stratum == np.round(stratum)) & (stratum >= 1)),
             "stratum is not an integer >= 1", "stratum"),
            (~((inclusion > 0) & (inclusion <= 1)),
             "inclusion probability is not a number in (0, 1]", "inclusion"),
            (~np.isin(sampled, (0.0, 1.0)), "sampled is not 0 or 1", "sampled")):
        if bad.any():
            row = int(np.argmax(bad))
            _refuse(pool, row, f"{what}: {pool[column].iat[row]}", path)
    chosen = sampled == 1
    if not chosen.any():
        raise InputError("the sampled pool has no pair with sampled = 1", path=path)
    frame = pool.assign(stratum=stratum.astype(np.int64), inclusion=inclusion)
    return SplitPool(frame.loc[chosen].reset_index(drop=True),
                     frame.loc[~chosen].reset_index(drop=True))


def _refuse(pool: pd.DataFrame, row: int, message: str, path: PathLike | None) -> NoReturn:
    if path is not None:
        raise InputError(message, path=path, line=int(pool_line_numbers(path)[row]))
    raise InputError(f"pool row {row + 1}: {message}")


def unsampled_rows(campaign_id: int, unsampled: pd.DataFrame) -> pd.DataFrame:
    """The ``unsampled_pair`` rows of :func:`split_sample`'s unsampled pairs, to insert."""
    return pd.DataFrame({
        "campaign_id": campaign_id, "topic": unsampled["topic"].astype(str),
        "doc": unsampled["doc"].astype(str),
        "pool_order": unsampled["order"].to_numpy(np.int64),
        "best_rank": unsampled["best_rank"].to_numpy(np.int64),
        "runs": unsampled["runs"].fillna("").astype(str),
        "stratum": unsampled["stratum"].to_numpy(np.int64),
        "inclusion": unsampled["inclusion"].to_numpy(np.float64),
    })


def pool_sample(session: Session, *, campaign: str) -> pd.DataFrame | None:
    """Every pooled pair of a campaign made from a sampled pool: ``topic, doc`` (text),
    ``stratum`` (int64), ``inclusion`` (float64, exactly as stored) and ``sampled`` (bool: a
    queued pair); sorted by topic and document. None for a campaign made from an ordinary pool.
    """
    row = campaign_row(session, campaign)
    queued = session.execute(
        sa.select(Topic.key, Document.key, Pair.stratum, Pair.inclusion)
        .join(Topic, Topic.id == Pair.topic_id).join(Document, Document.id == Pair.document_id)
        .where(Pair.campaign_id == row.id, Pair.inclusion.is_not(None))).all()
    if not queued:
        return None
    unsampled = session.execute(
        sa.select(UnsampledPair.topic, UnsampledPair.doc, UnsampledPair.stratum,
                  UnsampledPair.inclusion).where(UnsampledPair.campaign_id == row.id)).all()
    columns = ["topic", "doc", "stratum", "inclusion"]
    parts = [pd.DataFrame(rows, columns=columns).assign(sampled=chosen)
             for rows, chosen in ((queued, True), (unsampled, False)) if rows]
    frame = pd.concat(parts, ignore_index=True)
    frame = frame.astype({"topic": object, "doc": object, "stratum": np.int64,
                          "inclusion": np.float64, "sampled": bool})
    return frame.sort_values(["topic", "doc"], kind="stable").reset_index(drop=True)
