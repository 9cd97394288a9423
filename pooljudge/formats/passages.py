"""A pool of passages: each pooled chunk's document and offsets, from a unit map, checked against
the documents' texts (``pooljudge init --units MAP``).

The pool's ids are chunks; the unit map (:mod:`pooljudge.formats.units`) gives each chunk's
document and its character offsets ``[start, end)`` in that document's text (Python string
offsets, that is code points). Whatever is wrong is refused, never dropped:

- a map without offsets (``chunk doc`` lines): a passage cannot be shown inside its document;
- a pooled chunk the map lacks: named by the pool file's line (or its pool row);
- a chunk whose document is not among the documents, or whose ``end`` is beyond its
  document's text, or whose id is also the id of a document holding pooled passages (both
  would be stored under one id): named by the map's line (or its map row).

Only the pooled chunks are checked: a map may cover a whole collection.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pooljudge.errors import InputError
from pooljudge.formats.files import PathLike, read_bytes

__all__ = ["PASSAGE_COLUMNS", "map_line_numbers", "pooled_passages"]

PASSAGE_COLUMNS = ("chunk", "doc", "start", "end")
_HEADERS = (["chunk", "doc"], ["chunk", "doc", "start", "end"])


def pooled_passages(chunks: pd.Series, units: pd.DataFrame, documents: pd.DataFrame, *,
                    units_path: PathLike | None = None, pool_path: PathLike | None = None,
                    pool_lines: np.ndarray | None = None) -> pd.DataFrame:
    """The passages of the pooled ``chunks`` (a pool's ``doc`` column): one row per distinct
    chunk, in first-pooled order, columns :data:`PASSAGE_COLUMNS` (``start``, ``end`` int64).

    ``units`` is a unit map frame (``chunk doc start end``, as :func:`read_units` gives);
    ``documents`` has ``id`` and ``text``. ``pool_lines`` (the pool file's line of each entry of
    ``chunks``) and the paths only make the messages name ``path:line``; without them a message
    names the pool row or the map row (counted from 1). InputError as the module says.
    """
    pooled = pd.Series(chunks.astype(str).to_numpy(), copy=False)
    map_chunks = units["chunk"].astype(str)
    if "start" not in units.columns or units["start"].isna().all():
        raise InputError("the unit map gives no offsets ('chunk doc', not 'chunk doc start "
                         "end'): a passage is shown inside its document at its offsets",
                         path=units_path, line=_first_line(units_path))
    twice = map_chunks.duplicated().to_numpy()
    if twice.any():  # a frame not from read_units (which refuses it, naming the line)
        i = int(np.argmax(twice))
        raise InputError(f"unit map row {i + 1}: chunk {map_chunks.iat[i]} listed twice")
    row_of = pd.Series(np.arange(len(units)), index=map_chunks.to_numpy())
    found = pooled.map(row_of)
    missing = found.isna().to_numpy()
    if missing.any():
        i = int(np.argmax(missing))
        where = _where(units_path, "the unit map")
        if pool_path is not None and pool_lines is not None:
            raise InputError(f"chunk {pooled.iat[i]} is not in {where}", path=pool_path,
                             line=int(pool_lines[i]))
        raise InputError(f"pool row {i + 1} names chunk {pooled.iat[i]}, which is not in {where}")
    rows = pd.unique(found.to_numpy(np.int64))
    passages = pd.DataFrame({"chunk": map_chunks.iloc[rows].to_numpy(),
                             "doc": units["doc"].astype(str).iloc[rows].to_numpy(),
                             "start": units["start"].iloc[rows].to_numpy(),
                             "end": units["end"].iloc[rows].to_numpy(), "row": rows})
    _check(passages, documents, units_path)
    return passages.drop(columns="row").astype({"start": np.int64, "end": np.int64})


def map_line_numbers(path: PathLike) -> np.ndarray:
    """The line of each data row of the unit map at ``path`` (aligned with :func:`read_units`'s
    rows: blank and ``#`` lines and a header skipped). Read again only for a message."""
    lines = read_bytes(path).decode("utf-8", errors="replace").split("\n")
    numbers = [n for n, line in enumerate(lines, start=1)
               if line.strip() and not line.strip().startswith("#")]
    if numbers and [w.lower() for w in lines[numbers[0] - 1].split()] in _HEADERS:
        numbers = numbers[1:]
    return np.array(numbers, dtype=np.int64)


def _check(passages: pd.DataFrame, documents: pd.DataFrame, path: PathLike | None) -> None:
    """InputError for the first passage without offsets, with an unknown document, ending beyond
    its document's text, or whose id is a document's id holding pooled passages."""
    no_offsets = passages["start"].isna().to_numpy() | passages["end"].isna().to_numpy()
    if no_offsets.any():
        _at(passages, int(np.argmax(no_offsets)), path, "chunk {chunk} has no offsets")
    texts = documents.assign(id=documents["id"].astype(str)).drop_duplicates("id")
    lengths = texts.set_index("id")["text"].fillna("").astype(str).str.len()
    length = passages["doc"].map(lengths)
    unknown = length.isna().to_numpy()
    if unknown.any():
        _at(passages, int(np.argmax(unknown)), path,
            "chunk {chunk}: its document {doc} is not among the documents")
    beyond = passages["end"].to_numpy(np.int64) > length.to_numpy(np.int64)
    if beyond.any():
        i = int(np.argmax(beyond))
        _at(passages, i, path, "chunk {chunk} ends at {end}, beyond the "
            f"{int(length.iat[i])} characters of document {{doc}}")
    clash = passages["chunk"].isin(set(passages["doc"])).to_numpy()
    if clash.any():
        _at(passages, int(np.argmax(clash)), path,
            "chunk {chunk} has the id of a document whose passages are pooled: give chunks "
            "ids of their own (the document is stored beside its passages)")


def _at(passages: pd.DataFrame, i: int, path: PathLike | None, message: str) -> None:
    """Raise InputError ``message`` (formatted with the passage's fields) at its map line."""
    row = passages.iloc[i]
    text = message.format(chunk=row["chunk"], doc=row["doc"], end=row["end"])
    map_row = int(row["row"])
    if path is not None:
        raise InputError(text, path=path, line=int(map_line_numbers(path)[map_row]))
    raise InputError(f"unit map row {map_row + 1}: {text}")


def _first_line(path: PathLike | None) -> int | None:
    if path is None:
        return None
    lines = map_line_numbers(path)
    return int(lines[0]) if len(lines) else None


def _where(path: PathLike | None, what: str) -> str:
    return what if path is None else f"{what} {path}"
