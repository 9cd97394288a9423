"""Prels: the estimators' input written beside the qrels of a sampled campaign (re-exported by
:mod:`pooljudge.formats.trec`, where the other TREC-style files are read and written).

A TSV with the header ``topic doc label stratum inclusion`` and one line per pooled pair: its
label (empty when the pair was not sampled or not judged), its stratum (an integer >= 1) and its
first-order inclusion probability π in (0, 1], written with ``repr`` precision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pooljudge.errors import InputError
from pooljudge.formats._fields import clip
from pooljudge.formats.files import PathLike, atomic_writer, read_utf8

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PRELS_COLUMNS", "prels_bytes", "prels_lines", "read_prels", "write_prels"]

PRELS_COLUMNS = ("topic", "doc", "label", "stratum", "inclusion")


def write_prels(prels: pd.DataFrame, path: PathLike) -> None:
    """Write prels (a sampled pool's estimator input) as TSV (:func:`prels_lines`), atomically."""
    with atomic_writer(path) as handle:
        handle.writelines(prels_lines(prels))


def prels_bytes(prels: pd.DataFrame) -> bytes:
    """The TSV text :func:`write_prels` writes, as UTF-8 bytes (the app's download)."""
    return "".join(prels_lines(prels)).encode("utf-8")


def prels_lines(prels: pd.DataFrame) -> list[str]:
    """The prels TSV's lines: the header ``topic doc label stratum inclusion``, then one line per
    pooled pair sorted by topic and document; ``label`` is empty for a pair not sampled or not
    judged (NA in the frame), ``inclusion`` is written with ``repr`` precision so that it reads
    back exactly."""
    import pandas as pd

    missing = [c for c in PRELS_COLUMNS if c not in prels.columns]
    if missing:
        raise ValueError(f"prels lack columns {missing}")
    ordered = prels.sort_values(["topic", "doc"], kind="stable")
    labels = ["" if pd.isna(v) else str(int(v)) for v in ordered["label"].tolist()]
    rows = zip(ordered["topic"].astype(str).tolist(), ordered["doc"].astype(str).tolist(), labels,
               ordered["stratum"].astype(int).tolist(), ordered["inclusion"].astype(float).tolist(),
               strict=True)
    return ["\t".join(PRELS_COLUMNS) + "\n",
            *(f"{t}\t{d}\t{lab}\t{s}\t{p!r}\n" for t, d, lab, s, p in rows)]


def read_prels(path: PathLike) -> pd.DataFrame:
    """Read prels written by :func:`write_prels` into columns ``topic, doc`` (text), ``label``
    (nullable Int64: NA when empty), ``stratum`` (int64) and ``inclusion`` (float64).

    Raises InputError naming ``path:line`` for a header without the five columns, a wrong field
    count, a blank id, a label that is not an integer, a stratum that is not an integer >= 1, an
    inclusion probability that is not a number in (0, 1], or a (topic, doc) pair listed twice.
    """
    import pandas as pd

    lines = read_utf8(path).lstrip("\ufeff").splitlines()
    if not lines or lines[0].split("\t") != list(PRELS_COLUMNS):
        raise InputError(f"the header must be {' '.join(PRELS_COLUMNS)} (tab-separated)",
                         path=path, line=1)
    numbers = [n for n, line in enumerate(lines[1:], start=2) if line.strip()]
    rows = [lines[n - 1].split("\t") for n in numbers]
    for number, fields in zip(numbers, rows, strict=True):
        if len(fields) != len(PRELS_COLUMNS):
            raise InputError(f"expected {len(PRELS_COLUMNS)} tab-separated fields, found "
                             f"{len(fields)}", path=path, line=number)
    frame = pd.DataFrame(rows, columns=list(PRELS_COLUMNS), dtype=object)
    line_of = np.asarray(numbers, dtype=np.int64)

    def fail(bad: np.ndarray, what: str, column: str) -> None:
        if bad.any():
            row = int(np.argmax(bad))
            raise InputError(f"{what}: {clip(str(frame[column].iat[row]))}", path=path,
                             line=int(line_of[row]))

    for column in ("topic", "doc"):
        fail((frame[column].str.strip() == "").to_numpy(), f"blank {column} id", column)
    label = pd.to_numeric(frame["label"].replace("", None), errors="coerce")
    fail(((frame["label"] != "") & ~(np.isfinite(label) & (label == np.round(label))))
         .to_numpy(), "label is not an integer", "label")
    stratum = pd.to_numeric(frame["stratum"], errors="coerce")
    fail(~(np.isfinite(stratum) & (stratum == np.round(stratum)) & (stratum >= 1)).to_numpy(),
         "stratum is not an integer >= 1", "stratum")
    inclusion = pd.to_numeric(frame["inclusion"], errors="coerce")
    fail(~((inclusion > 0) & (inclusion <= 1)).to_numpy(),
         "inclusion probability is not a number in (0, 1]", "inclusion")
    fail(frame.duplicated(["topic", "doc"]).to_numpy(), "pair listed twice", "doc")
    return pd.DataFrame({"topic": frame["topic"], "doc": frame["doc"],
                         "label": label.astype("Int64"), "stratum": stratum.astype(np.int64),
                         "inclusion": inclusion.astype(np.float64)})
